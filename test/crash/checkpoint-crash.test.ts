import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { createDemoApp } from '../../src/app/index.ts';
import { decodeCheckpoint } from '../../src/conversation/checkpoint.ts';
import { createJsonlStore } from '../../src/conversation/index.ts';
import { createSeededSource } from '../../src/ui-ir/index.ts';
import { makeService } from '../conversation/fixtures/service.ts';
import { seededRandom } from '../e2e/support/cut-client.ts';
import { jsonlTestFiles } from '../support/jsonl-stores.ts';

/*
 * Issue 36: a crash in the middle of writing a checkpoint loses nothing. A child process drives a
 * conversation on the JSONL store with a checkpoint every two entries and is SIGKILLed at seeded
 * random moments, KILLS times (restarted on the same log in between). After each kill the
 * checkpoint on disk is whole (the previous one or the new one: never torn) and a load that
 * starts from it shows exactly what folding the whole log shows.
 */
const KILLS = 6;
const CHILD = fileURLToPath(new URL('./support/checkpoint-writer.ts', import.meta.url));
const { tempDir } = jsonlTestFiles('surfacer-checkpoint-crash-');

function start(dir: string, cid?: string): { child: ChildProcess; id: Promise<string> } {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dir, ...(cid ? [cid] : [])], { stdio: ['ignore', 'pipe', 'inherit'] });
  const id = new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve(out.split('\n')[0]!);
    });
    child.once('exit', (code) => reject(new Error(`the writer exited (${code}) before it started`)));
  });
  return { child, id };
}

it('SIGKILL while checkpoints are written: never a torn checkpoint, and a load from it equals the whole log\'s fold', async () => {
  const dir = tempDir();
  const random = seededRandom(36);
  let cid: string | undefined;
  let checkpointsSeen = 0;
  for (let kill = 0; kill < KILLS; kill += 1) {
    const writer = start(dir, cid);
    cid = await writer.id;
    await new Promise((resolve) => setTimeout(resolve, 300 + Math.floor(random() * 700)));
    const exited = new Promise((resolve) => writer.child.once('exit', resolve));
    writer.child.kill('SIGKILL');
    await exited;

    const file = join(dir, `${cid}.checkpoint`);
    if (existsSync(file)) {
      checkpointsSeen += 1;
      const chunks = createJsonlStore({ dir }).checkpoints!;
      const decoded = await decodeCheckpoint(readFileSync(file, 'utf8'), cid, (n) => chunks.readChunks(cid!, n));
      expect(decoded.ok, `kill ${kill}: ${decoded.ok ? '' : decoded.reason}`).toBe(true);
    }
    const fromCheckpoint = makeService(createJsonlStore({ dir }), { app: createDemoApp(), entropy: createSeededSource('reader'), limits: { checkpointEvery: 2 } }).service;
    const whole = makeService(createJsonlStore({ dir }), { app: createDemoApp(), entropy: createSeededSource('reader'), limits: { checkpointEvery: 0 } }).service;
    const a = (await fromCheckpoint.get(cid))!;
    const b = (await whole.get(cid))!;
    expect(a.version, `kill ${kill}`).toBe(b.version);
    expect(JSON.stringify(a.ir), `kill ${kill}`).toBe(JSON.stringify(b.ir));
  }
  // The kills landed while the writer checkpointed (one every two entries).
  expect(checkpointsSeen).toBeGreaterThan(0);
}, 120_000);
