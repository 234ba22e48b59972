import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createMemoryStore, foldLog, irHash } from '../../src/conversation/index.ts';
import { createSeededSource, findLiveSurface } from '../../src/ui-ir/index.ts';
import { formAction, makeService } from './fixtures/service.ts';
import { jsonlTestFiles } from '../support/jsonl-stores.ts';

const { tempDir, jsonlStore } = jsonlTestFiles('surfacer-replay-');

describe('IR = fold(log)', () => {
  it.each([false, true])('a restarted service reproduces the same IR from the JSONL log (demo app: %s)', async (demo) => {
    const dir = tempDir();
    const live = makeService(jsonlStore({ dir }), { demo, entropy: createSeededSource(`live-${demo}`) }).service;
    const c = await live.create('owner');
    const values = demo ? { name: 'Aria', personality: 'Kind.' } : { name: 'Aria', level: '4' };
    const turn = await live.runTurn(c.id, 'create a character card');
    if (!turn.ok) throw new Error('turn failed');
    const saved = await live.applyAction(c.id, formAction(turn.next, 'main', values, { idempotencyKey: 'k1' }));
    if (!saved.ok) throw new Error(`action failed: ${saved.error.code}`);
    await live.resetSurfaceEpoch(c.id, 'main');
    await live.runTurn(c.id, 'explode or thanks');
    await live.runTurn(c.id, 'hello');
    const before = (await live.get(c.id))!;

    // A different entropy source: everything must come from the recorded draws.
    const restarted = makeService(jsonlStore({ dir }), { demo, entropy: createSeededSource('other') }).service;
    const after = (await restarted.get(c.id))!;
    expect(after.ir).toEqual(before.ir);
    expect(irHash(after.ir)).toBe(irHash(before.ir));
    expect(after).toMatchObject({ ownerSessionId: 'owner', a2uiToken: c.a2uiToken, version: before.version, turnCount: before.turnCount });
    expect(await restarted.divergences(c.id)).toEqual([]);
    expect(await restarted.traces(c.id)).toEqual(await live.traces(c.id));
    // Idempotency keys survive the restart: a late duplicate replays the first outcome (its
    // toast included) instead of failing as stale.
    const duplicate = await restarted.applyAction(c.id, formAction(turn.next, 'main', values, { idempotencyKey: 'k1' }));
    expect(duplicate).toMatchObject({ ok: true, kind: 'applied', replayed: true, action: 'form.submit', surfaceId: 'main' });
    expect(duplicate.ok && duplicate.kind === 'applied' ? duplicate.toast : 'no').toEqual(saved.kind === 'applied' ? saved.toast : 'no');
    expect((await restarted.get(c.id))!.version).toBe(before.version);
  });

  it('forgets a logged idempotency key once its TTL has passed, restart or not', async () => {
    const dir = tempDir();
    let now = Date.parse('2026-11-22T10:00:00Z');
    const options = { demo: true, clock: () => now, limits: { idempotencyTtlMs: 60_000 } };
    const live = makeService(jsonlStore({ dir }), options).service;
    const c = await live.create('owner');
    const turn = await live.runTurn(c.id, 'create a character card');
    if (!turn.ok) throw new Error('turn failed');
    const submit = formAction(turn.next, 'main', { name: 'Aria', personality: 'Kind.' }, { idempotencyKey: 'k1' });
    expect(await live.applyAction(c.id, submit)).toMatchObject({ ok: true, replayed: false });
    now += 30_000;
    expect(await makeService(jsonlStore({ dir }), options).service.applyAction(c.id, submit)).toMatchObject({ ok: true, replayed: true });
    now += 31_000;
    // Past the TTL the key is judged afresh: its render is out of date by now.
    expect(await makeService(jsonlStore({ dir }), options).service.applyAction(c.id, submit)).toMatchObject({ ok: false, status: 409 });
    expect(await live.applyAction(c.id, submit)).toMatchObject({ ok: false, status: 409 });
  });

  it('keeps a logged key whose time it cannot read (a log written elsewhere) for a full TTL', async () => {
    const store = createMemoryStore();
    const live = makeService(store, { demo: true }).service;
    const c = await live.create('owner');
    const turn = await live.runTurn(c.id, 'create a character card');
    if (!turn.ok) throw new Error('turn failed');
    const submit = formAction(turn.next, 'main', { name: 'Aria', personality: 'Kind.' }, { idempotencyKey: 'k1' });
    expect(await live.applyAction(c.id, submit)).toMatchObject({ ok: true, replayed: false });
    const copy = createMemoryStore();
    for (const [i, entry] of (await store.read(c.id))!.entries()) await copy.append(c.id, entry.type === 'action' ? { ...entry, at: 'not a time' } : entry, i);
    const restarted = makeService(copy, { demo: true }).service;
    expect(await restarted.divergences(c.id)).toEqual([]);
    expect(await restarted.applyAction(c.id, submit)).toMatchObject({ ok: true, replayed: true });
  });

  it('flags an entry whose recorded hash no longer matches', async () => {
    const store = createMemoryStore();
    const { service, app } = makeService(store);
    const c = await service.create('o');
    await service.runTurn(c.id, 'create a character card');
    const entries = (await store.read(c.id))!;
    const tampered = entries.map((e) => (e.type === 'turn' ? { ...e, text: 'something else' } : e));
    const folded = foldLog(tampered, {
      turn: { runDirectives: (await import('./fixtures/demo-app.ts')).fakeRunDirectives, registry: app.directives, mode: 'best-effort' },
      actions: app.actions,
    });
    expect(folded.divergences).toEqual([{ entry: 2, type: 'turn', message: 'IR hash differs' }]);
  });

  it('loses no acknowledged submission when the process dies mid-append', async () => {
    const dir = tempDir();
    const first = makeService(jsonlStore({ dir })).service;
    const c = await first.create('o');
    const turn = await first.runTurn(c.id, 'create a character card');
    if (!turn.ok) throw new Error('turn failed');
    const ack = await first.applyAction(c.id, formAction(turn.next, 'main', { name: 'Aria' }));
    expect(ack.ok).toBe(true);
    const { appendFileSync } = await import('node:fs');
    appendFileSync(join(dir, `${c.id}.jsonl`), '{"type":"action","v":1,"at":"2026');
    const second = makeService(jsonlStore({ dir })).service;
    const recovered = (await second.get(c.id))!;
    expect(findLiveSurface(recovered.ir, 'main')!.data.committed).toMatchObject({ name: 'Aria' });
    expect(await second.divergences(c.id)).toEqual([]);
  });

  it('property: any sequence of turns, actions, resets and cancels folds back to the live IR', async () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('turn' as const), text: fc.constantFrom('create a character card', 'toast', 'close', 'bogus', 'explode', 'hi') }),
      fc.record({ kind: fc.constant('submit' as const), name: fc.string({ minLength: 1, maxLength: 12 }), fresh: fc.boolean() }),
      fc.record({ kind: fc.constant('submit' as const), name: fc.string({ minLength: 1, maxLength: 12 }), fresh: fc.constant(true) }),
      fc.record({ kind: fc.constant('cancel' as const) }),
      fc.record({ kind: fc.constant('reset' as const) }),
    );
    await fc.assert(fc.asyncProperty(fc.array(op, { maxLength: 12 }), fc.string({ maxLength: 8 }), async (ops, seed) => {
      const store = createMemoryStore();
      const live = makeService(store, { entropy: createSeededSource(seed) }).service;
      const c = await live.create('o');
      await live.runTurn(c.id, 'create a character card');
      for (const [i, step] of ops.entries()) {
        const ir = (await live.get(c.id))!.ir;
        if (step.kind === 'turn') await live.runTurn(c.id, step.text);
        else if (step.kind === 'reset') await live.resetSurfaceEpoch(c.id, 'main');
        else if (step.kind === 'cancel' && findLiveSurface(ir, 'main')) await live.applyAction(c.id, formAction(ir, 'main', {}, { action: 'form.cancel' }));
        else if (step.kind === 'submit' && findLiveSurface(ir, 'main')) {
          const request = formAction(ir, 'main', { name: step.name }, { idempotencyKey: step.fresh ? `k${i}` : 'same' });
          await live.applyAction(c.id, step.fresh ? request : { ...request, rev: 0 });
        }
      }
      const restarted = makeService(store, { entropy: createSeededSource('unrelated') }).service;
      const folded = (await restarted.get(c.id))!;
      expect(folded.ir).toEqual((await live.get(c.id))!.ir);
      expect(await restarted.divergences(c.id)).toEqual([]);
    }), { numRuns: 60 });
  });
});
