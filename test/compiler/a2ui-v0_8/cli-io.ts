import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { run } from '../../../src/cli/commands/validate.ts';
import { memoryIo } from '../../support/cli-io.ts';
import { SHARED_EXAMPLES_DIR } from '../../support/shared-examples.ts';

export { EXAMPLES_SKIP } from '../../support/shared-examples.ts';
export const EXAMPLES_DIR = SHARED_EXAMPLES_DIR;

export interface Example { name: string; messages: Record<string, unknown>[] }

/** The official example streams, none when they are not here (their suites are skipped then: EXAMPLES_SKIP). */
export function loadExamples(): Example[] {
  const out: Example[] = [];
  if (EXAMPLES_DIR === undefined) return out;
  for (const dir of ['minimal', 'basic']) {
    for (const file of readdirSync(path.join(EXAMPLES_DIR, dir)).filter((f) => f.endsWith('.json')).sort()) {
      out.push({ name: `${dir}/${file}`, messages: JSON.parse(readFileSync(path.join(EXAMPLES_DIR, dir, file), 'utf8')) });
    }
  }
  return out;
}

/** Runs `surfacer validate` in process with the stream on stdin. */
export async function validateCli(args: string[], stdinText: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const io = memoryIo({ stdin: stdinText });
  const code = await run(args, io);
  return { code, stdout: io.out(), stderr: io.err() };
}

/** The codes at the start of each finding's line (indented follow-on lines under a finding are not findings). */
export function codesOf(stdout: string): string[] {
  return stdout.split('\n').filter((l) => l !== '' && !l.startsWith(' ')).map((l) => l.split(' ')[0]!);
}
