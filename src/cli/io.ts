import { readFile } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { makeError, type SurfacerError } from '../errors/index.ts';

/** Exit code of a command whose input FILE cannot be read (as for usage errors: the call is wrong, not the content). */
export const EXIT_INPUT_UNREADABLE = 2;

export type InputText = { ok: true; text: string } | { ok: false; error: SurfacerError };

// Plain words for what usually goes wrong with a path; anything else keeps the system's text.
const REASONS: Record<string, string> = {
  ENOENT: 'no such file',
  EISDIR: 'it is a directory',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOTDIR: 'a part of the path is not a directory',
};

/**
 * Reads FILE, or standard input when the argument is `-` or absent. A FILE that cannot be read is
 * a `CLI_INPUT_UNREADABLE` error naming the file and why, never a finding about its content.
 */
export async function readInputText(file: string | undefined, stdin: Readable): Promise<InputText> {
  if (file !== undefined && file !== '-') {
    try {
      return { ok: true, text: await readFile(file, 'utf8') };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const why = (code !== undefined ? REASONS[code] : undefined) ?? (error as Error).message;
      return { ok: false, error: makeError('CLI_INPUT_UNREADABLE', `cannot read ${JSON.stringify(file)}: ${why}${code ? ` (${code})` : ''}`) };
    }
  }
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return { ok: true, text: Buffer.concat(chunks).toString('utf8') };
}

/** `surfacer <command>: CLI_INPUT_UNREADABLE cannot read "x.json": no such file (ENOENT)`, for stderr. */
export function inputErrorLine(command: string, error: SurfacerError): string {
  return `surfacer ${command}: ${error.code} ${error.technical_detail}\n`;
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
