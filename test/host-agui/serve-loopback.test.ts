import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/commands/serve.ts';
import { memoryIo } from '../support/cli-io.ts';

/*
 * `surfacer serve` with the agent endpoints open (no SURFACER_API_TOKENS): it refuses a
 * non-loopback --host with a usage error, before anything listens, and says why. (Binding a
 * wider host with tokens is not tried here: tests never bind outside loopback.)
 */
const dirs: string[] = [];
afterAll(() => { for (const dir of dirs) rmSync(dir, { recursive: true, force: true }); });

describe('surfacer serve and the agent endpoints', () => {
  it('refuses --host 0.0.0.0 without SURFACER_API_TOKENS (exit 2, the reason on stderr)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'surfacer-serve-agents-'));
    dirs.push(dir);
    const memory = memoryIo({ env: { SURFACER_SESSION_SECRET: 'a-long-enough-secret-for-tests' } });
    const exit = await run(['--port', '0', '--data', dir, '--host', '0.0.0.0'], memory);
    expect(exit).toBe(2);
    expect(memory.err()).toMatch(/agent endpoints \(AG-UI, A2A, MCP\) need SURFACER_API_TOKENS/);
    expect(memory.out()).not.toMatch(/listening on/);
  });
});
