import { fc } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { createIngress, createMemoryIdempotencyStore, type StoredOutcome } from '../../src/ingress/index.ts';
import { createSeededSource } from '../../src/ui-ir/index.ts';
import {
  a2uiBody, bothTransports, buildIr, createTestActions, decodeSurfaceId, htmlFields, memoryConversation, surfaceOf,
} from './fixtures.ts';

describe('createMemoryIdempotencyStore', () => {
  it('remembers until the TTL, on the injected clock', () => {
    let now = 1_000;
    const store = createMemoryIdempotencyStore<string>({ ttlMs: 100, clock: () => now });
    store.set('k', 'first');
    now += 99;
    expect(store.get('k')).toBe('first');
    now += 1;
    expect(store.get('k')).toBeUndefined();
    expect(store.size).toBe(0);
  });

  it('keeps at most maxEntries, dropping the oldest', () => {
    const store = createMemoryIdempotencyStore<number>({ maxEntries: 3, clock: () => 0 });
    for (let i = 0; i < 5; i++) store.set(`k${i}`, i);
    expect(store.size).toBe(3);
    expect([store.get('k0'), store.get('k1'), store.get('k2'), store.get('k4')]).toEqual([undefined, undefined, 2, 4]);
  });

  it('sweeps expired entries as time passes (bounded memory without reads)', () => {
    let now = 0;
    const store = createMemoryIdempotencyStore<number>({ ttlMs: 10, maxEntries: 1_000, clock: () => now });
    for (let i = 0; i < 500; i++) { store.set(`k${i}`, i); now += 1; }
    expect(store.size).toBeLessThanOrEqual(10);
  });

  it('an entry stored earlier (rebuilt from a log) lives for the rest of its TTL only', () => {
    const now = 1_000;
    const store = createMemoryIdempotencyStore<string>({ ttlMs: 100, clock: () => now });
    store.set('gone', 'x', now - 100);
    store.set('left', 'y', now - 99);
    expect([store.get('gone'), store.get('left'), store.size]).toEqual([undefined, 'y', 1]);
  });

  it('refuses nonsense bounds', () => {
    expect(() => createMemoryIdempotencyStore({ ttlMs: 0 })).toThrow(RangeError);
    expect(() => createMemoryIdempotencyStore({ maxEntries: 0 })).toThrow(RangeError);
  });

  it('property: entries() lists each key once, with the value it was last set to, oldest first, and nothing get() does not answer', () => {
    type Op = { kind: 'set'; key: number; back: number } | { kind: 'tick'; ms: number };
    const arbOp: fc.Arbitrary<Op> = fc.oneof(
      fc.record({ kind: fc.constant('set' as const), key: fc.nat(7), back: fc.oneof(fc.constant(0), fc.nat(150)) }),
      fc.record({ kind: fc.constant('tick' as const), ms: fc.nat(60) }),
    );
    fc.assert(fc.property(fc.array(arbOp, { maxLength: 60 }), fc.integer({ min: 1, max: 6 }), (ops, maxEntries) => {
      let now = 1_000;
      const store = createMemoryIdempotencyStore<string>({ ttlMs: 100, maxEntries, clock: () => now });
      const last = new Map<string, string>();
      ops.forEach((op, i) => {
        if (op.kind === 'tick') { now += op.ms; return; }
        const key = `k${op.key}`;
        store.set(key, `v${i}`, op.back === 0 ? undefined : now - op.back);
        if (now - op.back + 100 > now) last.set(key, `v${i}`); // stored unless already expired
        const listed = store.entries();
        expect(new Set(listed.map((e) => e.key)).size).toBe(listed.length);
        for (const e of listed) expect(e.value).toBe(last.get(e.key));
        const order = listed.map((e) => Number(e.value.slice(1)));
        expect(order).toEqual([...order].sort((a, b) => a - b));
        for (const e of listed) if (store.get(e.key) === undefined) expect(e.storedAt + 100).toBeLessThanOrEqual(now);
        expect(listed.length).toBeLessThanOrEqual(maxEntries);
      });
    }), { numRuns: 300 });
  });
});

function setup(options: { ttlMs?: number; maxEntries?: number; latencyMs?: number } = {}) {
  let now = 0;
  const clock = { advance: (ms: number) => { now += ms; } };
  const { registry, calls } = createTestActions();
  const ingress = createIngress({
    actions: registry, decodeSurfaceId, source: createSeededSource('idem'),
    idempotency: createMemoryIdempotencyStore<StoredOutcome>({ ttlMs: options.ttlMs ?? 60_000, maxEntries: options.maxEntries ?? 100, clock: () => now }),
  });
  const conversation = memoryConversation(buildIr(), { latencyMs: options.latencyMs ?? 0 });
  return { ingress, calls, conversation, clock };
}

function htmlRequest(ingress: ReturnType<typeof createIngress>, ir = buildIr(), fields: Record<string, string | undefined> = {}) {
  const parsed = ingress.parseHtml(htmlFields(surfaceOf(ir), fields));
  if (!parsed.ok) throw new Error(parsed.error.technical_detail);
  return parsed.request;
}

describe('idempotency through createIngress', () => {
  it('a repeated key returns the first result and applies once', async () => {
    const { ingress, calls, conversation } = setup();
    const request = htmlRequest(ingress);
    const first = await ingress.handle(request, conversation);
    const second = await ingress.handle(request, conversation);
    expect(first).toMatchObject({ kind: 'applied', status: 200, replayed: false, rev: 1, toast: { text: 'Saved.' } });
    expect(second).toEqual({ ...first, replayed: true });
    expect(calls).toHaveLength(1);
    expect(conversation.commits).toHaveLength(1);
  });

  it('concurrent duplicates share one application', async () => {
    const { ingress, calls, conversation } = setup({ latencyMs: 5 });
    const parsed = ingress.parseA2ui(a2uiBody(surfaceOf(buildIr())), { idempotencyKey: 'dup' });
    if (!parsed.ok) throw new Error('parse');
    const outcomes = await Promise.all(Array.from({ length: 5 }, () => ingress.handle(parsed.request, conversation)));
    expect(calls).toHaveLength(1);
    expect(conversation.commits).toHaveLength(1);
    expect(outcomes.filter((o) => o.replayed)).toHaveLength(4);
    expect(new Set(outcomes.map((o) => o.kind))).toEqual(new Set(['applied']));
  });

  it('without a key, concurrent submits of one render cannot both pass the rev check', async () => {
    const { ingress, calls, conversation } = setup({ latencyMs: 5 });
    const request = htmlRequest(ingress, buildIr(), { _idem: undefined });
    const outcomes = await Promise.all([ingress.handle(request, conversation), ingress.handle(request, conversation)]);
    expect(outcomes.map((o) => o.status).sort()).toEqual([200, 409]);
    expect(calls).toHaveLength(1);
  });

  it('after the TTL the key is forgotten and the request is judged again (stale now)', async () => {
    const { ingress, calls, conversation, clock } = setup({ ttlMs: 1_000 });
    const request = htmlRequest(ingress);
    await ingress.handle(request, conversation);
    clock.advance(1_000);
    const again = await ingress.handle(request, conversation);
    expect(again).toMatchObject({ kind: 'rejected', status: 409, replayed: false });
    expect(calls).toHaveLength(1);
  });

  it('evicted keys are judged again too (bounded size never means applied twice)', async () => {
    const { ingress, calls, conversation } = setup({ maxEntries: 1 });
    const request = htmlRequest(ingress);
    await ingress.handle(request, conversation);
    const side = surfaceOf(conversation.ir, 'side');
    const other = ingress.parseHtml({ _surface: 'side', _epoch: '0', _nonce: side.nonce, _rev: '0', _action: 'note.ok', _idem: 'other' });
    if (!other.ok) throw new Error('parse');
    expect(await ingress.handle(other.request, conversation)).toMatchObject({ kind: 'applied' });
    expect(await ingress.handle(request, conversation)).toMatchObject({ status: 409 });
    expect(calls.map((c) => c.name)).toEqual(['form.submit', 'note.ok']);
  });

  it('keys are scoped: another button of the same render, another surface or conversation is not a replay', async () => {
    const { ingress, calls, conversation } = setup();
    const submit = htmlRequest(ingress, buildIr(), { _idem: 'same' });
    const cancel = htmlRequest(ingress, buildIr(), { _idem: 'same', _action: 'form.cancel' });
    expect(await ingress.handle(cancel, conversation)).toMatchObject({ kind: 'applied', replayed: false, rev: 0 });
    expect(await ingress.handle(submit, conversation)).toMatchObject({ kind: 'rejected', status: 409 });
    const elsewhere = memoryConversation({ ...buildIr(), conversationId: 'c2' });
    expect(await ingress.handle(submit, elsewhere)).toMatchObject({ kind: 'applied', replayed: false });
    expect(calls.map((c) => c.name)).toEqual(['form.cancel', 'form.submit']);
  });

  it('an A2UI client\'s key names one request: another action or an error report under it is a reused key', async () => {
    const { ingress, calls, conversation } = setup();
    const [submit] = bothTransports(surfaceOf(buildIr()));
    const key = { idempotencyKey: 'k1' };
    expect(await ingress.handle({ ...submit!, ...key }, conversation)).toMatchObject({ kind: 'applied', replayed: false });
    const [cancel] = bothTransports(surfaceOf(conversation.ir), { action: 'form.cancel' });
    expect(await ingress.handle({ ...cancel!, ...key }, conversation)).toMatchObject({ kind: 'rejected', status: 422 });
    expect(calls.map((c) => c.name)).toEqual(['form.submit']);
  });

  it('rejections are not remembered: the same render re-sent after fixing a field is applied', async () => {
    const { ingress, calls, conversation } = setup();
    const wrong = htmlRequest(ingress, buildIr(), { name: '' });
    expect(await ingress.handle(wrong, conversation)).toMatchObject({ kind: 'rejected', status: 403, issues: [{ pointer: '/name' }] });
    const fixed = htmlRequest(ingress, buildIr(), { name: 'Grace' });
    expect(await ingress.handle(fixed, conversation)).toMatchObject({ kind: 'applied', replayed: false });
    expect(calls).toHaveLength(1);
  });

  it('a failed commit is not remembered and leaves the state as it was', async () => {
    const { registry, calls } = createTestActions();
    const ingress = createIngress({ actions: registry, decodeSurfaceId, source: createSeededSource('x') });
    let fail = true;
    const conversation = memoryConversation(buildIr(), { failCommit: () => fail });
    const request = htmlRequest(ingress);
    await expect(ingress.handle(request, conversation)).rejects.toThrow('disk full');
    expect(surfaceOf(conversation.ir).rev).toBe(0);
    fail = false;
    expect(await ingress.handle(request, conversation)).toMatchObject({ kind: 'applied', replayed: false });
    expect(calls).toHaveLength(2);
  });
});

describe('a key reused for a different request', () => {
  const REUSED = { kind: 'rejected', status: 422, replayed: false, error: { code: 'A2UI_C2S_IDEMPOTENCY_KEY_REUSED', retryable: false } };

  it('answers 422, applies nothing and is not remembered: the first request still replays', async () => {
    const { ingress, calls, conversation } = setup();
    const first = htmlRequest(ingress, buildIr(), { name: 'Grace' });
    const applied = await ingress.handle(first, conversation);
    expect(applied).toMatchObject({ kind: 'applied', replayed: false });
    const after = conversation.ir;
    const other = htmlRequest(ingress, buildIr(), { name: 'Hopper' });
    for (let i = 0; i < 2; i++) {
      const refused = await ingress.handle(other, conversation);
      expect(refused).toMatchObject(REUSED);
      if (refused.kind !== 'rejected') continue;
      expect(refused.error).toMatchObject({ category: 'a2ui_c2s', recovery_path: 'fix_request', severity: 'warning' });
    }
    expect(conversation.ir).toBe(after);
    expect(await ingress.handle(first, conversation)).toEqual({ ...applied, replayed: true });
    expect(calls.map((c) => c.context['name'])).toEqual(['Grace']);
    expect(conversation.commits).toHaveLength(1);
  });

  it.each([
    ['another nonce', { _nonce: 'another-nonce' }],
    ['another rev', { _rev: '7' }],
    ['another epoch', { _epoch: '3' }],
    ['another field value', { name: 'Grace', age: '4' }],
  ])('%s under the same key is refused, even where it would otherwise be stale (409)', async (_what, fields) => {
    const { ingress, calls, conversation } = setup();
    expect(await ingress.handle(htmlRequest(ingress, buildIr()), conversation)).toMatchObject({ kind: 'applied' });
    expect(await ingress.handle(htmlRequest(ingress, buildIr(), fields), conversation)).toMatchObject(REUSED);
    expect(calls).toHaveLength(1);
  });

  it('the same request through the other host is a replay, not a reuse', async () => {
    const { ingress, calls, conversation } = setup();
    const [a2ui, html] = bothTransports(surfaceOf(buildIr()));
    const key = { idempotencyKey: 'shared' };
    const first = await ingress.handle({ ...html!, ...key }, conversation);
    expect(await ingress.handle({ ...a2ui!, ...key }, conversation)).toEqual({ ...first, replayed: true });
    expect(calls).toHaveLength(1);
  });

  it('a refused first request binds nothing: the key is then free for the next one', async () => {
    const { ingress, calls, conversation } = setup();
    expect(await ingress.handle(htmlRequest(ingress, buildIr(), { _rev: '9' }), conversation)).toMatchObject({ status: 409 });
    expect(await ingress.handle(htmlRequest(ingress, buildIr()), conversation)).toMatchObject({ kind: 'applied', replayed: false });
    expect(calls).toHaveLength(1);
  });

  it('a client error report under a used key with another code is refused; the same report replays', async () => {
    const { ingress, conversation } = setup();
    const parse = (code: string) => {
      const parsed = ingress.parseA2ui(JSON.stringify({ error: { code, surfaceId: 'main--e0' } }), { idempotencyKey: 'e1' });
      if (!parsed.ok) throw new Error('parse');
      return parsed.request;
    };
    expect(await ingress.handle(parse('VALIDATION_FAILED'), conversation)).toMatchObject({ kind: 'recover', replayed: false });
    expect(await ingress.handle(parse('RENDER_FAILED'), conversation)).toMatchObject(REUSED);
    expect(await ingress.handle(parse('VALIDATION_FAILED'), conversation)).toMatchObject({ kind: 'recover', replayed: true });
  });
});

describe('client error events through createIngress', () => {
  it('answer 202 with the recovery to run; a replayed report says so', async () => {
    const { ingress, conversation } = setup();
    const parsed = ingress.parseA2ui(JSON.stringify({ error: { code: 'VALIDATION_FAILED', surfaceId: 'main--e0' } }), { idempotencyKey: 'e1' });
    if (!parsed.ok) throw new Error('parse');
    const first = await ingress.handle(parsed.request, conversation);
    expect(first).toMatchObject({ kind: 'recover', status: 202, recovery: 'epoch_reset', surfaceId: 'main', epoch: 0, replayed: false });
    expect(await ingress.handle(parsed.request, conversation)).toMatchObject({ kind: 'recover', replayed: true });
    expect(conversation.commits).toHaveLength(0);
  });
});
