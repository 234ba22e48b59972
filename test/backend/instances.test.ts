import { describe, expect, it } from 'vitest';
import { irHash, StoreUnavailableError, type ConversationEvent } from '../../src/conversation/index.ts';
import { findSurface } from '../../src/ui-ir/index.ts';
import { createFakePlanner } from '../conversation/fixtures/demo-app.ts';
import { formAction } from '../conversation/fixtures/service.ts';
import { redisInstances } from './support.ts';

const CARD = { name: 'Aria', personality: 'Brave and kind.' };
const r = redisInstances();

/** Several service instances over one Redis: what one does, every other sees and respects. */
describe('conversation service on Redis, several instances', () => {
  it('one conversation driven alternately through two instances ends identical on both', async () => {
    const a = r.instance({ prefix: 'alt:' }).service;
    const b = r.instance({ prefix: 'alt:' }).service;
    const c = await a.create('owner');
    expect((await b.get(c.id))?.ownerSessionId).toBe('owner');
    const turn = await b.runTurn(c.id, 'create a character card named Aria');
    if (!turn.ok) throw new Error(turn.error.message);
    const onA = (await a.get(c.id))!;
    expect(irHash(onA.ir)).toBe(irHash(turn.next));
    expect(onA.version).toBe(2);

    const submit = formAction(onA.ir, 'main', CARD, { idempotencyKey: 'k1' });
    expect(await a.applyAction(c.id, submit)).toMatchObject({ ok: true, replayed: false });
    // The same submission reaching the other instance (a retry through the load balancer) replays.
    expect(await b.applyAction(c.id, submit)).toMatchObject({ ok: true, replayed: true });
    // The same key for another body is refused wherever it arrives.
    expect(await b.applyAction(c.id, { ...submit, context: { ...CARD, name: 'Bea' } })).toMatchObject({ ok: false, status: 422 });
    // A submit of the rendering before the save is stale on both.
    expect(await b.applyAction(c.id, formAction(onA.ir, 'main', CARD, { idempotencyKey: 'k2' }))).toMatchObject({ ok: false, status: 409 });

    const reset = await b.resetSurfaceEpoch(c.id, 'main');
    expect(reset.ok).toBe(true);
    expect(await a.runTurn(c.id, 'open my persona')).toMatchObject({ ok: true });
    const [onA2, onB2] = [(await a.get(c.id))!, (await b.get(c.id))!];
    expect(onB2.version).toBe(onA2.version);
    expect(irHash(onB2.ir)).toBe(irHash(onA2.ir));
    expect(findSurface(onB2.ir, 'main')).toMatchObject({ epoch: 1 });
    expect(await a.traces(c.id)).toEqual(await b.traces(c.id));
    expect(await a.countOwnedBy('owner')).toBe(1);
    expect(await b.divergences(c.id)).toEqual([]);
  });

  it('two instances submitting the same rendering at once: exactly one is applied, the other is stale', async () => {
    const a = r.instance({ prefix: 'race:' }).service;
    const b = r.instance({ prefix: 'race:' }).service;
    const c = await a.create('owner');
    const turn = await a.runTurn(c.id, 'create a character card');
    if (!turn.ok) throw new Error(turn.error.message);
    await b.get(c.id); // both hold the same folded state
    const [ra, rb] = await Promise.all([
      a.applyAction(c.id, formAction(turn.next, 'main', CARD, { idempotencyKey: 'ka' })),
      b.applyAction(c.id, formAction(turn.next, 'main', { ...CARD, name: 'Bea' }, { idempotencyKey: 'kb' })),
    ]);
    const outcomes = [ra, rb].map((x) => (x.ok ? 'applied' : x.status));
    expect(outcomes.sort()).toEqual([409, 'applied']);
    const final = (await b.get(c.id))!;
    expect(final.version).toBe(3);
    expect(findSurface(final.ir, 'main')!.rev).toBe(1);
  });

  it('changes made on one instance reach listeners on another, with their origin, one event per entry', async () => {
    const a = r.instance({ prefix: 'fan:' }).service;
    const b = r.instance({ prefix: 'fan:' }).service;
    const c = await a.create('owner');
    await b.get(c.id);
    const seen: ConversationEvent[] = [];
    const off = b.subscribe(c.id, (e) => seen.push(e));
    await a.runTurn(c.id, 'create a character card', undefined, { origin: 'page-one1' });
    const afterTurn = (await a.get(c.id))!;
    await a.applyAction(c.id, formAction(afterTurn.ir, 'main', CARD), { origin: 'page-one1' });
    await expect.poll(() => seen.length).toBe(2);
    expect(seen.map((e) => [e.version, e.cause])).toEqual([
      [2, { kind: 'turn', origin: 'page-one1' }],
      [3, { kind: 'action', surfaceId: 'main', origin: 'page-one1' }],
    ]);
    expect(irHash(seen[1]!.next)).toBe(irHash((await a.get(c.id))!.ir));
    off();
  });

  it('a turn running on one instance: a second waits for it, a cancel from the other stops it', async () => {
    const slow = createFakePlanner({ delayMs: 60_000 });
    const a = r.instance({ prefix: 'turn:', planner: slow }).service;
    const b = r.instance({ prefix: 'turn:' }).service;
    const c = await a.create('owner');
    const running = a.runTurn(c.id, 'create a character card');
    await expect.poll(async () => (await b.get(c.id))!.busy).toBe(true);
    const settled: string[] = [];
    const waiting = b.runTurn(c.id, 'create a character card').finally(() => settled.push('second'));
    void running.finally(() => settled.push('first'));
    expect(await b.cancelTurn(c.id)).toBe(true);
    expect(await running).toMatchObject({ ok: true, outcome: 'cancelled' });
    expect(await waiting).toMatchObject({ ok: true, outcome: 'applied' });
    // The second turn's planner answers at once: it ended after the first only because it waited.
    expect(settled).toEqual(['first', 'second']);
    const final = (await a.get(c.id))!;
    expect(final.busy).toBe(false);
    expect(final.ir.transcript.filter((t) => t.role === 'user')).toHaveLength(1); // the cancelled one left no message
    expect(await a.cancelTurn(c.id)).toBe(false);
  });

  it('a turn that cannot start before its deadline while another instance runs one is refused CONVERSATION_BUSY, changing nothing', async () => {
    const slow = createFakePlanner({ delayMs: 60_000 });
    const a = r.instance({ prefix: 'busy:', planner: slow }).service;
    const b = r.instance({ prefix: 'busy:', limits: { turnTimeoutMs: 300 } }).service;
    const c = await a.create('owner');
    const running = a.runTurn(c.id, 'create a character card');
    await expect.poll(async () => (await b.get(c.id))!.busy).toBe(true);
    expect(await b.runTurn(c.id, 'hello')).toMatchObject({ ok: false, error: { code: 'CONVERSATION_BUSY', retryable: true } });
    expect((await b.get(c.id))!.version).toBe(1);
    expect(await a.cancelTurn(c.id)).toBe(true);
    expect(await running).toMatchObject({ ok: true, outcome: 'cancelled' });
    expect(await b.runTurn(c.id, 'hello')).toMatchObject({ ok: true, outcome: 'applied' });
  });

  it('while Redis is down nothing is acknowledged (503), and service resumes by itself once it is back', async () => {
    const a = r.instance({ prefix: 'down:' }).service;
    const c = await a.create('owner');
    const turn = await a.runTurn(c.id, 'create a character card');
    if (!turn.ok) throw new Error(turn.error.message);
    await r.redis().kill();
    expect(await a.applyAction(c.id, formAction(turn.next, 'main', CARD, { idempotencyKey: 'down' })))
      .toMatchObject({ ok: false, error: { code: 'STORE_UNAVAILABLE', retryable: true } });
    expect(await a.runTurn(c.id, 'hello')).toMatchObject({ ok: false, error: { code: 'STORE_UNAVAILABLE' } });
    await expect(a.get(c.id)).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(a.create('owner')).rejects.toBeInstanceOf(StoreUnavailableError);
    await r.redis().start();
    await expect.poll(async () => (await a.get(c.id).catch(() => undefined))?.version, { timeout: 10_000 }).toBe(2);
    expect(await a.applyAction(c.id, formAction(turn.next, 'main', CARD, { idempotencyKey: 'down' }))).toMatchObject({ ok: true, replayed: false });
  });
});
