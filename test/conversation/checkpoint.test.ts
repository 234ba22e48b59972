import { readdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fc } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { createDemoApp } from '../../src/app/index.ts';
import { decodeCheckpoint, encodeCheckpoint, MAX_KEPT_TRACES } from '../../src/conversation/checkpoint.ts';
import {
  createJsonlStore, createMemoryStore, foldLog, foldMore, irHash, type ConversationService, type ConversationStore, type FoldContext, type FoldResult, type Logger,
} from '../../src/conversation/index.ts';
import { runDirectivesAdapter } from '../../src/conversation/turn.ts';
import { createLocalBackend } from '../../src/backend/index.ts';
import { createSurfacer } from '../../src/server/index.ts';
import { createSeededSource, findSurface } from '../../src/ui-ir/index.ts';
import { jsonlTestFiles } from '../support/jsonl-stores.ts';
import { formAction, makeService } from './fixtures/service.ts';

/*
 * Issue 36: checkpoints of the folded state. A checkpoint is equivalent to replaying the entries
 * it replaces (property, over generated conversations of the demo app, cut anywhere); a load
 * reads the last checkpoint and the entries after it; a missing, corrupt or foreign checkpoint
 * falls back to folding the whole log and is written anew; the log itself is never touched.
 */
const { tempDir, jsonlStore } = jsonlTestFiles('surfacer-checkpoint-');
const PROMPTS = ['create a character card', 'ask me something', 'show my saved cards', 'hello', 'show me Kestrel\'s portrait'];

type Step = { kind: 'say'; prompt: number } | { kind: 'save'; name: string; key: boolean };
const arbStep: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('say' as const), prompt: fc.nat(PROMPTS.length - 1) }),
  fc.record({ kind: fc.constant('save' as const), name: fc.string({ minLength: 1, maxLength: 12 }), key: fc.boolean() }),
);

/** Drives the demo app through `steps` (saves only when the card is open); the conversation's id. */
async function drive(service: ConversationService, steps: readonly Step[], owner = 'owner'): Promise<string> {
  const c = await service.create(owner);
  let n = 0;
  for (const step of steps) {
    // As between requests: the background checkpoint write gets its turns (an in-memory store never yields).
    await new Promise((resolve) => setImmediate(resolve));
    if (step.kind === 'say') {
      await service.runTurn(c.id, PROMPTS[step.prompt]!);
      continue;
    }
    const ir = (await service.get(c.id))!.ir;
    const main = findSurface(ir, 'main');
    if (main === undefined || main.lifecycle === 'deleted' || !main.view.actions.some((a) => a.name === 'form.submit')) continue;
    n += 1;
    await service.applyAction(c.id, formAction(ir, 'main', { name: step.name, personality: 'Kind.' }, step.key ? { idempotencyKey: `k-${n}` } : {}));
  }
  return c.id;
}

const app = createDemoApp();
const foldContext: FoldContext = { turn: { registry: app.directives, runDirectives: runDirectivesAdapter, mode: 'best-effort' }, actions: app.actions };

function comparable(folded: FoldResult): unknown {
  return {
    ir: JSON.stringify(folded.ir), hash: irHash(folded.ir), version: folded.version, turnCount: folded.turnCount, meta: folded.meta,
    traces: folded.traces.slice(-MAX_KEPT_TRACES), pending: [...folded.pending.entries()], divergences: folded.divergences,
  };
}

function recording(): { logger: Logger; warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, logger: { info() {}, warn(message, fields) { warnings.push(`${message} ${JSON.stringify(fields ?? {})}`); }, error() {} } };
}

describe('checkpoints', () => {
  it('property: a checkpoint at any entry, then the entries after it, folds to what the whole log folds to', async () => {
    await fc.assert(fc.asyncProperty(fc.array(arbStep, { minLength: 2, maxLength: 14 }), fc.nat(), async (steps, at) => {
      const store = createMemoryStore();
      const { service } = makeService(store, { demo: true, entropy: createSeededSource('cp-prop'), limits: { checkpointEvery: 0 } });
      const cid = await drive(service, steps);
      const entries = (await store.read(cid))!;
      fc.pre(entries.length >= 2);
      const cut = 2 + (at % (entries.length - 1));
      const whole = foldLog(entries, foldContext);
      const head = foldLog(entries.slice(0, cut), foldContext);
      const encoded = await encodeCheckpoint(head, []);
      const decoded = await decodeCheckpoint(encoded.head, cid, async (n) => encoded.chunks.slice(0, n).map((c) => c.text));
      if (!decoded.ok) throw new Error(decoded.reason);
      // It names the hash the entry it replaces recorded.
      expect(decoded.irHash).toBe((entries[cut - 1] as { irHash: string }).irHash);
      foldMore(decoded.state.folded, entries.slice(cut), foldContext);
      expect(comparable(decoded.state.folded)).toEqual(comparable(whole));
    }), { numRuns: 40 });
  }, 120_000);

  it('a restarted service loads from the checkpoint and the entries after it, and goes on as before (idempotency keys too)', async () => {
    const store = createMemoryStore();
    const reads: number[] = [];
    const watched: ConversationStore = { ...store, checkpoints: store.checkpoints, read: (cid, after) => { reads.push(after ?? 0); return store.read(cid, after); } };
    const live = makeService(store, { demo: true, entropy: createSeededSource('cp-live'), limits: { checkpointEvery: 4 } }).service;
    const steps: Step[] = [{ kind: 'say', prompt: 0 }, ...Array.from({ length: 9 }, (_, i): Step => ({ kind: 'save', name: `Aria ${i}`, key: true })), { kind: 'say', prompt: 3 }];
    const cid = await drive(live, steps);
    await new Promise((resolve) => setTimeout(resolve, 50)); // the background write
    const text = await store.checkpoints!.read(cid);
    expect(text).toBeDefined();
    const restarted = makeService(watched, { demo: true, entropy: createSeededSource('cp-restarted'), limits: { checkpointEvery: 4 } }).service;
    const before = (await live.get(cid))!;
    const after = (await restarted.get(cid))!;
    expect(JSON.stringify(after.ir)).toBe(JSON.stringify(before.ir));
    expect(after.version).toBe(before.version);
    // Only the tail was read: from the checkpoint's entry on.
    expect(reads).toHaveLength(1);
    expect(reads[0]).toBeGreaterThan(0);
    expect(reads[0]).toBeGreaterThanOrEqual(before.version - 5);
    // A key used before the checkpoint is still the same action: replayed, not applied again.
    const entries = (await store.read(cid))!;
    const keyed = entries.find((e) => e.type === 'action' && e.request.idempotencyKey === 'k-1');
    const replay = await restarted.applyAction(cid, JSON.parse(JSON.stringify((keyed as { request: unknown }).request)) as never);
    expect(replay).toMatchObject({ ok: true, replayed: true });
    const turn = await restarted.runTurn(cid, 'hello');
    expect(turn.ok).toBe(true);
  });

  it('an action-heavy conversation is checkpointed less often: at most 8 kept outcomes per entry since the last checkpoint, at most 4 × checkpointEvery entries apart (issue 34)', async () => {
    const store = createMemoryStore();
    const versions: number[] = [];
    const write = store.checkpoints!.write;
    (store.checkpoints as { write: typeof write }).write = (cid, head, chunks) => {
      versions.push((JSON.parse(head.split('\n')[0]!) as { version: number }).version);
      return write(cid, head, chunks);
    };
    const { service } = makeService(store, { demo: true, entropy: createSeededSource('cp-spacing'), limits: { checkpointEvery: 4 } });
    const saves = 160;
    const cid = await drive(service, [{ kind: 'say', prompt: 0 }, ...Array.from({ length: saves }, (_, i): Step => ({ kind: 'save', name: `Aria ${i}`, key: true }))]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const entries = (await store.read(cid))!;
    expect(entries).toHaveLength(saves + 2);
    // Every save keeps its key's outcome. When entry v is committed the store holds v − 3 (the
    // created entry and the turn come first, and v's own is remembered once it is committed).
    const gaps = versions.map((v, i) => ({ v, gap: v - (versions[i - 1] ?? 0) }));
    for (const { v, gap } of gaps) {
      expect(gap).toBeGreaterThanOrEqual(4);
      expect(gap).toBeLessThanOrEqual(16);
      expect(gap === 16 || gap * 8 >= v - 3).toBe(true);
      // Not later than due: one entry earlier was not (the write before it had finished: the drive yields between steps).
      expect((gap - 1) * 8 >= v - 4 && gap - 1 >= 4).toBe(false);
    }
    expect(gaps.slice(0, 4).map((g) => g.gap)).toEqual([4, 4, 4, 4]);
    expect(gaps.at(-1)!.gap).toBe(16);
    // Every 4 entries would have been 40 checkpoints.
    expect(versions.length).toBeLessThanOrEqual(20);
    // And a restart still loads from the last one and the entries after it.
    const restarted = makeService(store, { demo: true, entropy: createSeededSource('cp-spacing-2'), limits: { checkpointEvery: 4 } }).service;
    expect(JSON.stringify((await restarted.get(cid))!.ir)).toBe(JSON.stringify((await service.get(cid))!.ir));
  });

  it('the head\'s header is JSON.stringify of it, byte for byte, however the kept outcomes change between checkpoints (each outcome encoded once)', async () => {
    const store = createMemoryStore();
    const { service } = makeService(store, { demo: true, entropy: createSeededSource('cp-header'), limits: { checkpointEvery: 0 } });
    const cid = await drive(service, [{ kind: 'say', prompt: 0 }, { kind: 'save', name: 'Aria', key: true }]);
    const folded = foldLog((await store.read(cid))!, foldContext);
    type Kept = Parameters<typeof encodeCheckpoint>[1][number];
    const pool: Kept[] = Array.from({ length: 300 }, (_, i) => Object.freeze({
      key: `k-${i}`, storedAt: 1_000 + i,
      value: { fingerprint: `f-${i}`, outcome: { kind: 'applied', status: 200, replayed: false, surfaceId: 'main', action: 'form.submit', rev: i, toast: { level: 'success', text: `Saved “${i}”` } } },
    }) as never);
    // The store's own objects (a kept entry is one object while it is kept), and sometimes new ones with the same content.
    let round = 0;
    const fresh = (list: Kept[]): Kept[] => (round++ % 3 === 2 ? list.map((o) => ({ ...o })) : list);
    const lists: Kept[][] = [
      [], pool.slice(0, 3), pool.slice(0, 3), pool.slice(0, 100), pool.slice(0, 100), pool.slice(0, 164), // growing
      pool.slice(32, 196), pool.slice(64, 228), pool.slice(70, 228), // the front expires or is evicted, the end grows
      [...pool.slice(70, 150), ...pool.slice(151, 228)], // a key used again: its first entry leaves the middle
      pool.slice(70, 228).map((o, i) => (i === 90 ? { ...o, key: 'other' } : o)), // same outcome, another key
      pool.slice(70, 228).map((o, i) => (i === 0 ? { ...o, storedAt: 1 } : o)), // or another time
      [...pool.slice(0, 150)].reverse(), pool.slice(0, 150), // any order
    ];
    for (const outcomes of lists) {
      const text = (await encodeCheckpoint(folded, fresh(outcomes))).head.split('\n')[0]!;
      const parsed = JSON.parse(text) as Record<string, unknown>;
      expect(Object.keys(parsed)).toEqual(['checkpoint', 'cid', 'version', 'irHash', 'transcript', 'chunks', 'meta', 'turnCount', 'traces', 'outcomes', 'pending', 'divergences']);
      expect(text).toBe(JSON.stringify({ ...parsed, outcomes: outcomes.map(({ key, value, storedAt }) => ({ key, outcome: value, storedAt })) }));
    }
  });

  it('the kept outcomes\' text is their JSON after any run of drops, additions, re-keys and copies (reused blocks never stand in for content)', async () => {
    const store = createMemoryStore();
    const { service } = makeService(store, { demo: true, entropy: createSeededSource('cp-blocks'), limits: { checkpointEvery: 0 } });
    const cid = await drive(service, [{ kind: 'say', prompt: 0 }]);
    const folded = foldLog((await store.read(cid))!, foldContext);
    type Kept = Parameters<typeof encodeCheckpoint>[1][number];
    let made = 0;
    const entry = (): Kept => Object.freeze({ key: `k-${made}`, storedAt: made, value: { fingerprint: `f-${made++}` } as never });
    const op = fc.oneof(
      fc.record({ t: fc.constant('drop' as const), n: fc.nat(70) }),
      fc.record({ t: fc.constant('add' as const), n: fc.nat(90) }),
      fc.record({ t: fc.constant('rekey' as const), at: fc.nat(200) }),
      fc.record({ t: fc.constant('copy' as const), at: fc.nat(200) }),
    );
    await fc.assert(fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 30 }), async (ops) => {
      let list: Kept[] = [];
      for (const o of ops) {
        if (o.t === 'drop') list = list.slice(o.n);
        else if (o.t === 'add') list = [...list, ...Array.from({ length: o.n }, entry)];
        else if (list.length > 0) {
          const at = o.at % list.length;
          // Another key for an entry in the middle (its first use superseded), or the same content in a new object.
          list = list.map((k, i) => (i !== at ? k : o.t === 'rekey' ? entry() : Object.freeze({ ...k })));
        }
        const text = (await encodeCheckpoint(folded, list)).head.split('\n')[0]!;
        const parsed = JSON.parse(text) as Record<string, unknown>;
        expect(text).toBe(JSON.stringify({ ...parsed, outcomes: list.map(({ key, value, storedAt }) => ({ key, outcome: value, storedAt })) }));
      }
    }), { numRuns: 60 });
  });

  it('a long transcript: full chunks are stored once and only new ones travel; a restart reads them all back', async () => {
    const store = createMemoryStore();
    const sent: number[][] = [];
    const write = store.checkpoints!.write;
    (store.checkpoints as { write: typeof write }).write = (cid, head, chunks) => { sent.push(chunks.map((c) => c.index)); return write(cid, head, chunks); };
    const live = makeService(store, { demo: true, entropy: createSeededSource('cp-long'), limits: { checkpointEvery: 16 } }).service;
    const c = await live.create('owner');
    for (let i = 0; i < 400; i += 1) {
      await live.runTurn(c.id, i % 7 === 0 ? 'create a character card' : `hello ${i}`);
      await new Promise((resolve) => setImmediate(resolve));
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    const transcript = (await live.get(c.id))!.ir.transcript.length;
    expect(transcript).toBeGreaterThan(750);
    // Every full chunk was sent exactly once, in order, across all the checkpoints.
    expect(sent.flat()).toEqual(Array.from({ length: Math.floor(transcript / 250) }, (_, i) => i));
    const restarted = makeService(store, { demo: true, entropy: createSeededSource('cp-long-2'), limits: { checkpointEvery: 16 } }).service;
    expect(JSON.stringify((await restarted.get(c.id))!.ir)).toBe(JSON.stringify((await live.get(c.id))!.ir));
    // A missing chunk: the checkpoint is ignored and the whole log folded; the next one sends every chunk again.
    const { logger, warnings } = recording();
    (store.checkpoints as unknown as { readChunks: (cid: string, n: number) => Promise<Array<string | undefined>> }).readChunks = async (_cid, n) => Array.from({ length: n }, () => undefined);
    const again = makeService(store, { demo: true, entropy: createSeededSource('cp-long-3'), limits: { checkpointEvery: 16 }, logger }).service;
    expect(JSON.stringify((await again.get(c.id))!.ir)).toBe(JSON.stringify((await live.get(c.id))!.ir));
    expect(warnings.some((w) => w.includes('a transcript chunk is missing'))).toBe(true);
  }, 60_000);

  it('as createSurfacer composes the service (the instrumented store), checkpoints are written and a restart starts from one', async () => {
    const dir = tempDir();
    const make = () => createSurfacer({
      app: createDemoApp(), backend: createLocalBackend(createJsonlStore({ dir })), env: {}, sessionSecret: 'checkpoint-test-secret-0123456789',
      serviceLimits: { checkpointEvery: 4 },
    });
    const first = make();
    const c = await first.conversations.create('owner');
    for (let i = 0; i < 9; i += 1) {
      await first.conversations.runTurn(c.id, PROMPTS[i % 4]!);
      await new Promise((resolve) => setImmediate(resolve));
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    const decoded = await decodeCheckpoint(readFileSync(join(dir, `${c.id}.checkpoint`), 'utf8'), c.id, async () => []);
    expect(decoded.ok && decoded.state.folded.version).toBeGreaterThanOrEqual(8);
    const expected = JSON.stringify((await first.conversations.get(c.id))!.ir);
    await first.close();
    const second = make();
    expect(JSON.stringify((await second.conversations.get(c.id))!.ir)).toBe(expected);
    await second.close();
  });

  it('missing, torn, corrupt, foreign or stale: ignored (said in the log), the whole log folded, a good checkpoint written again; the log untouched', async () => {
    const dir = tempDir();
    const live = makeService(jsonlStore({ dir }), { demo: true, entropy: createSeededSource('cp-bad'), limits: { checkpointEvery: 4 } }).service;
    const steps: Step[] = [{ kind: 'say', prompt: 0 }, ...Array.from({ length: 8 }, (_, i): Step => ({ kind: 'save', name: `Brin ${i}`, key: false }))];
    const cid = await drive(live, steps);
    const other = await drive(live, steps, 'someone else');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const expected = JSON.stringify((await live.get(cid))!.ir);
    const file = join(dir, `${cid}.checkpoint`);
    const good = readFileSync(file, 'utf8');
    const log = readFileSync(join(dir, `${cid}.jsonl`), 'utf8');
    const lines = good.split('\n');
    const header = JSON.parse(lines[0]!) as Record<string, unknown>;
    const variants: Array<[string, string | undefined]> = [
      ['missing', undefined],
      ['torn', good.slice(0, Math.floor(good.length / 2))],
      ['not JSON', 'garbage\n'],
      ['its IR edited', [lines[0], JSON.stringify({ ...JSON.parse(lines[1]!) as object, seq: 12345 }), ...lines.slice(2)].join('\n')],
      ['a transcript entry that is not one', [lines[0], lines[1], lines[2]!.replace('"role":"user"', '"role":"robot"'), ...lines.slice(3)].join('\n')],
      ['its transcript re-spaced (same content, another text)', [lines[0], lines[1], lines[2]!.replace('},{', '}, {'), ...lines.slice(3)].join('\n')],
      ['another conversation\'s', readFileSync(join(dir, `${other}.checkpoint`), 'utf8')],
      ['not this log\'s (an entry it names that the log does not hold)', [JSON.stringify({ ...header, version: 4000 }), ...lines.slice(1)].join('\n')],
    ];
    for (const [label, text] of variants) {
      if (text === undefined) unlinkSync(file);
      else writeFileSync(file, text);
      const { logger, warnings } = recording();
      const restarted = makeService(jsonlStore({ dir }), { demo: true, entropy: createSeededSource('cp-bad-2'), limits: { checkpointEvery: 4 }, logger }).service;
      expect(JSON.stringify((await restarted.get(cid))!.ir), label).toBe(expected);
      if (text !== undefined) expect(warnings.some((w) => w.startsWith('conversation checkpoint ignored')), label).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const rewritten = await decodeCheckpoint(readFileSync(file, 'utf8'), cid, async () => []);
      expect(rewritten.ok, label).toBe(true);
      expect(readFileSync(join(dir, `${cid}.jsonl`), 'utf8'), label).toBe(log);
    }
    // No temporary file left behind by the writes.
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });
});
