import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run as compile } from '../../src/cli/commands/compile.ts';
import { run as sim } from '../../src/cli/commands/sim.ts';
import { run as validate } from '../../src/cli/commands/validate.ts';
import type { CliIo } from '../../src/cli/main.ts';
import { ERROR_REGISTRY } from '../../src/errors/index.ts';
import { memoryIo } from '../support/cli-io.ts';

/*
 * A FILE argument that cannot be read is a file error with its own registered code, the file's
 * name and the reason, and exit 2 (as a usage error: the call is wrong), in every command that
 * reads one; what a readable file holds is judged as before (exit 1 for bad content).
 */
const scratch = mkdtempSync(path.join(tmpdir(), 'surfacer-cli-input-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

type Run = (args: string[], io: CliIo) => Promise<number>;
const COMMANDS: Array<[string, Run, string[]]> = [
  ['validate', validate, []],
  ['sim', sim, []],
  ['compile', compile, ['--target', 'ir']],
];

describe('input files the CLI cannot read', () => {
  it('CLI_INPUT_UNREADABLE is a registered code', () => {
    expect(ERROR_REGISTRY.CLI_INPUT_UNREADABLE).toMatchObject({ category: 'cli', severity: 'error' });
  });

  it.each(COMMANDS)('surfacer %s: a missing file and a directory are CLI_INPUT_UNREADABLE with the name and why, exit 2', async (name, run, args) => {
    const missing = path.join(scratch, 'no-such-file.json');
    for (const [file, why] of [[missing, 'no such file (ENOENT)'], [scratch, 'it is a directory (EISDIR)']] as const) {
      const io = memoryIo();
      expect(await run([...args, file], io)).toBe(2);
      expect(io.err()).toContain('CLI_INPUT_UNREADABLE');
      // compile reports as it reports everything, one canonical error object per line.
      const said = name === 'compile' ? (JSON.parse(io.err()) as { technical_detail: string }).technical_detail : io.err();
      expect(said).toContain(`cannot read ${JSON.stringify(file)}: ${why}`);
      expect(io.err() + io.out()).not.toMatch(/DIRECTIVE_PARSE_FAILED|A2UI_S2C_STREAM_INVALID/);
    }
  });

  it.each(COMMANDS)('surfacer %s: a readable file with unreadable content is still a content error, exit 1', async (_name, run, args) => {
    const file = path.join(scratch, 'broken.json');
    writeFileSync(file, '{"oops"');
    const io = memoryIo();
    expect(await run([...args, file], io)).toBe(1);
    expect(io.err() + io.out()).not.toContain('CLI_INPUT_UNREADABLE');
  });
});
