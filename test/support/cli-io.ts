import { PassThrough, Readable } from 'node:stream';
import type { CliIo } from '../../src/cli/main.ts';

/** CLI io in memory: `stdin` holds the given text; `out()`/`err()` return what was written. */
export function memoryIo(options: { stdin?: string; env?: NodeJS.ProcessEnv } = {}): CliIo & { out: () => string; err: () => string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk) => { out += String(chunk); });
  stderr.on('data', (chunk) => { err += String(chunk); });
  return { stdin: Readable.from([options.stdin ?? '']), stdout, stderr, env: options.env ?? {}, out: () => out, err: () => err };
}
