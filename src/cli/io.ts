import { readFile } from 'node:fs/promises';
import type { Readable } from 'node:stream';

/** Reads FILE, or standard input when the argument is `-` or absent. */
export async function readInput(file: string | undefined, stdin: Readable): Promise<string> {
  if (file !== undefined && file !== '-') return readFile(file, 'utf8');
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

/** Reads a JSON array or JSON Lines: the two shapes the CLI accepts for message streams. */
export function parseJsonArrayOrLines(text: string): unknown[] {
  const trimmed = text.replace(/^\uFEFF/, '').trim();
  if (trimmed === '') return [];
  if (trimmed.startsWith('[')) {
    const value: unknown = JSON.parse(trimmed);
    if (!Array.isArray(value)) throw new Error('expected a JSON array');
    return value;
  }
  return trimmed.split(/\r?\n/).filter((line) => line.trim() !== '').map((line, i) => {
    try {
      return JSON.parse(line) as unknown;
    } catch (error) {
      throw new Error(`line ${i + 1}: ${(error as Error).message}`);
    }
  });
}
