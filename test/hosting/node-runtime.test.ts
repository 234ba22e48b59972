import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/cli/commands/serve.ts';
import { nodeEndOfLifeWarning, TESTED_NODE_LINES } from '../../src/hosting/index.ts';
import { memoryIo } from '../support/cli-io.ts';

/*
 * Issue 31: a server on a Node line past its end of life says so once at start, naming the lines
 * that are still patched; on a supported line it says nothing. `npm run test:node -- <major>` runs
 * this file on each tested line, so both branches of the last test run somewhere in CI.
 */
describe('the Node runtime Surfacer runs on', () => {
  it('warns past a line\'s end of life, from that day on, and names the lines still supported', () => {
    expect(nodeEndOfLifeWarning('v20.20.2', new Date('2026-04-29T23:59:59Z'))).toBeUndefined();
    const warning = nodeEndOfLifeWarning('v20.20.2', new Date('2026-04-30T00:00:00Z'));
    expect(warning).toBe('Node 20.20.2 is past its end of life (2026-04-30): it gets no security fixes; run Surfacer on Node 22, 24, 26');
    expect(nodeEndOfLifeWarning('v22.1.0', new Date('2026-11-28T00:00:00Z'))).toBeUndefined();
    expect(nodeEndOfLifeWarning('v22.1.0', new Date('2027-05-01T00:00:00Z'))).toMatch(/^Node 22\.1\.0 is past its end of life \(2027-04-30\).*Node 24, 26$/);
    // A line we do not test (older, newer, odd) is not judged here: `engines` speaks for those.
    expect(nodeEndOfLifeWarning('v18.20.0', new Date('2030-01-01T00:00:00Z'))).toBeUndefined();
    expect(nodeEndOfLifeWarning('v27.0.0', new Date('2026-11-28T00:00:00Z'))).toBeUndefined();
    expect(TESTED_NODE_LINES.map((l) => l.major)).toEqual([20, 22, 24, 26]);
  });

  it('surfacer serve logs it once at start on a line past its end, and not otherwise', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'surfacer-node-runtime-'));
    const memory = memoryIo({ env: { SURFACER_SESSION_SECRET: 'a-long-enough-secret-for-tests' } });
    const stop = new AbortController();
    const exited = run(['--port', '0', '--data', dir], memory, stop.signal);
    try {
      for (let i = 0; i < 250 && !/listening on/.test(memory.out()); i += 1) await new Promise((r) => setTimeout(r, 20));
      expect(memory.out()).toMatch(/listening on/);
      const expected = nodeEndOfLifeWarning(process.version, new Date());
      const said = memory.err().split('\n').filter((line) => line.includes('past its end of life'));
      if (expected === undefined) expect(said).toEqual([]);
      else {
        expect(said).toHaveLength(1);
        expect(said[0]).toContain(expected);
      }
    } finally {
      stop.abort();
      expect(await exited).toBe(0);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
