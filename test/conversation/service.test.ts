import { describe, expect, it } from 'vitest';
import {
  createMemoryStore, TraceSchema, type ConversationEvent, type ConversationStore, type LogEntry,
} from '../../src/conversation/index.ts';
import { makeError } from '../../src/errors/index.ts';
import type { Planner } from '../../src/planner/types.ts';
import { createFakePlanner } from './fixtures/demo-app.ts';
import { formAction, makeService } from './fixtures/service.ts';

describe('conversation service', () => {
  it('creates conversations owned by a session, each with its own A2UI bearer token', async () => {
    const { service } = makeService(createMemoryStore());
    const a = await service.create('owner-1');
    const b = await service.create('owner-1');
    expect(a.id).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(a.id).not.toBe(b.id);
    expect(a.a2uiToken).not.toBe(b.a2uiToken);
    expect(a.a2uiToken.length).toBeGreaterThanOrEqual(32);
    expect(a).toMatchObject({ ownerSessionId: 'owner-1', version: 1, turnCount: 0, busy: false });
    expect((await service.get(a.id))!.ir).toEqual(a.ir);
    expect(await service.get('missing')).toBeUndefined();
    expect(await service.verifyA2uiToken(a.id, a.a2uiToken)).toBe(true);
    expect(await service.verifyA2uiToken(a.id, b.a2uiToken)).toBe(false);
    expect(await service.verifyA2uiToken('missing', a.a2uiToken)).toBe(false);
  });

  it('runs a planner turn: transcript, surfaces, trace, and one event', async () => {
    const planner = createFakePlanner();
    const { service } = makeService(createMemoryStore(), { planner });
    const c = await service.create('o');
    const events: ConversationEvent[] = [];
    const unsubscribe = service.subscribe(c.id, (e) => events.push(e));
    const result = await service.runTurn(c.id, 'create a character card', undefined, { origin: 'tab-1' });
    unsubscribe();
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.outcome).toBe('applied');
    expect(result.next.transcript.map((t) => [t.role, t.text])).toEqual([
      ['user', 'create a character card'], ['assistant', 'Here is a character card.'],
    ]);
    expect(result.next.surfaces.map((s) => s.id)).toEqual(['main']);
    expect(planner.calls).toEqual([{ text: 'create a character card', ir: c.ir }]);
    const trace = TraceSchema.parse(result.trace);
    expect(trace).toMatchObject({
      conversation_id: c.id, turn_index: 0, outcome: 'applied', strict_mode: false,
      llm: { provider: 'offline', label: 'offline planner', offline: true, stream: false, format_mode: 'none' },
      validation: { status: 'ok', applied: 1, error_codes: [] },
    });
    expect(trace.surfaces[0]).toMatchObject({ surface_id: 'main', target: 'html', epoch: 0, rev: 0 });
    expect(trace.timings.total_ms).toBeGreaterThanOrEqual(trace.timings.llm_ms);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ cid: c.id, prev: c.ir, next: result.next, cause: { kind: 'turn', origin: 'tab-1' }, version: 2 });
    expect(await service.traces(c.id)).toEqual([result.trace]);
    expect((await service.get(c.id))!.turnCount).toBe(1);
  });

  it('records validation errors in the trace and says something when nothing could be shown', async () => {
    const { service } = makeService(createMemoryStore());
    const c = await service.create('o');
    const result = await service.runTurn(c.id, 'bogus');
    if (!result.ok) throw new Error('turn failed');
    expect(result.trace.validation).toMatchObject({ status: 'errors', applied: 0, error_codes: ['DIRECTIVE_UNKNOWN_TYPE'] });
    expect(result.next.transcript.at(-1)).toMatchObject({ role: 'system' });
  });

  it('keeps the user message and a note when the planner fails', async () => {
    const { service } = makeService(createMemoryStore());
    const c = await service.create('o');
    const result = await service.runTurn(c.id, 'explode');
    if (!result.ok) throw new Error('turn failed');
    expect(result.outcome).toBe('planner_failed');
    expect(result.error?.code).toBe('PLANNER_FAILED');
    expect(result.next.transcript.map((t) => t.role)).toEqual(['user', 'system']);
    expect(result.trace.recovery).toEqual([{ code: 'PLANNER_FAILED', path: 'retry' }]);
  });

  it('keeps the code of a planner failing with a canonical error (e.g. LLM_UNAVAILABLE)', async () => {
    const failing: Planner = {
      name: 'ollama', label: 'ollama · test',
      plan: async () => { throw Object.assign(new Error('down'), { error: makeError('LLM_UNAVAILABLE', 'ECONNREFUSED') }); },
    };
    const { service } = makeService(createMemoryStore(), { planner: failing, demo: true });
    const c = await service.create('o');
    const result = await service.runTurn(c.id, 'hello');
    expect(result).toMatchObject({ ok: true, outcome: 'planner_failed', error: { code: 'LLM_UNAVAILABLE' } });
    if (result.ok) expect(result.trace.llm).toMatchObject({ provider: 'ollama', label: 'ollama · test', offline: false });
  });

  it('cancels a running turn (cancelTurn or the caller signal) without changing the IR', async () => {
    const { service } = makeService(createMemoryStore());
    const c = await service.create('o');
    expect(await service.cancelTurn(c.id)).toBe(false);
    const running = service.runTurn(c.id, 'slow one');
    await until(async () => (await service.get(c.id))!.busy);
    expect(await service.cancelTurn(c.id)).toBe(true);
    const result = await running;
    if (!result.ok) throw new Error('turn failed');
    expect(result.outcome).toBe('cancelled');
    expect(result.error?.code).toBe('PLANNER_CANCELLED');
    expect(result.next).toBe(result.prev);
    const controller = new AbortController();
    const second = service.runTurn(c.id, 'slow two', controller.signal);
    setTimeout(() => controller.abort(), 20);
    expect(await second).toMatchObject({ ok: true, outcome: 'cancelled' });
    const conversation = (await service.get(c.id))!;
    expect(conversation.ir.transcript).toEqual([]);
    expect(conversation.turnCount).toBe(2);
    expect(conversation.busy).toBe(false);
  });

  it('times a slow planner out', async () => {
    const { service } = makeService(createMemoryStore(), { limits: { turnTimeoutMs: 30 } });
    const c = await service.create('o');
    expect(await service.runTurn(c.id, 'slow')).toMatchObject({ ok: true, outcome: 'planner_failed', error: { code: 'PLANNER_TIMEOUT' } });
  });

  it('applies actions through the ingress: commit, stale rejection, idempotent replay', async () => {
    const { service } = makeService(createMemoryStore());
    const c = await service.create('o');
    const turn = await service.runTurn(c.id, 'create a character card');
    if (!turn.ok) throw new Error('turn failed');
    const request = formAction(turn.next, 'main', { name: 'Aria', level: '3' }, { idempotencyKey: 'k1' });
    const first = await service.applyAction(c.id, request, { origin: 'tab' });
    expect(first).toMatchObject({ ok: true, kind: 'applied', replayed: false, surfaceId: 'main', action: 'form.submit', toast: { text: 'Saved.' } });
    if (!first.ok) return;
    const surface = first.next.surfaces[0]!;
    expect(surface.rev).toBe(1);
    expect(surface.data.committed).toMatchObject({ name: 'Aria', level: 3 });
    const again = await service.applyAction(c.id, request);
    expect(again).toMatchObject({ ok: true, replayed: true });
    expect((await service.get(c.id))!.ir.surfaces[0]!.rev).toBe(1);
    const stale = await service.applyAction(c.id, { ...request, idempotencyKey: 'k2' });
    expect(stale).toMatchObject({ ok: false, status: 409, error: { code: 'A2UI_C2S_SURFACE_STALE' } });
    const invalid = await service.applyAction(c.id, formAction(first.next, 'main', { name: '' }));
    expect(invalid).toMatchObject({ ok: false, status: 403, error: { code: 'A2UI_C2S_ACTION_FORBIDDEN' } });
    if (!invalid.ok) expect(invalid.issues?.[0]?.pointer).toBe('/name');
  });

  it('client error reports are remembered apart from action keys: across cache eviction, and never crowding them out', async () => {
    const { service } = makeService(createMemoryStore(), { limits: { maxCachedConversations: 1, idempotencyKeys: 2 } });
    const c = await service.create('o');
    const turn = await service.runTurn(c.id, 'create a character card');
    if (!turn.ok) throw new Error('turn failed');
    const submit = formAction(turn.next, 'main', { name: 'Aria', level: '3' }, { idempotencyKey: 'k1' });
    expect(await service.applyAction(c.id, submit)).toMatchObject({ ok: true, replayed: false });
    const report = (key: string) => {
      const parsed = service.ingress.parseA2ui(JSON.stringify({ error: { code: 'VALIDATION_FAILED', surfaceId: 'main--e0', message: 'x' } }), { idempotencyKey: key });
      if (!parsed.ok) throw new Error(parsed.error.code);
      return parsed.request;
    };
    for (const key of ['e1', 'e2', 'e3']) expect(await service.applyAction(c.id, report(key))).toMatchObject({ ok: true, kind: 'recover', replayed: false });
    // Three reports in a store of two action keys: the action's key is still there.
    expect(await service.applyAction(c.id, submit)).toMatchObject({ ok: true, kind: 'applied', replayed: true });
    // Evict c from the cache (another conversation is used), then repeat the first report.
    await service.create('o');
    expect(await service.applyAction(c.id, report('e1'))).toMatchObject({ ok: true, kind: 'recover', replayed: true });
    expect(await service.applyAction(c.id, submit)).toMatchObject({ ok: true, kind: 'applied', replayed: true });
  });

  it('resets a surface epoch (recovery) so old renderings become stale', async () => {
    const { service } = makeService(createMemoryStore());
    const c = await service.create('o');
    const turn = await service.runTurn(c.id, 'create a character card');
    if (!turn.ok) throw new Error('turn failed');
    const old = formAction(turn.next, 'main', { name: 'Aria' });
    const reset = await service.resetSurfaceEpoch(c.id, 'main');
    if (!reset.ok) throw new Error('reset failed');
    const before = turn.next.surfaces[0]!;
    const after = reset.next.surfaces[0]!;
    expect(after.epoch).toBe(before.epoch + 1);
    expect(after.nonce).not.toBe(before.nonce);
    expect(await service.applyAction(c.id, old)).toMatchObject({ ok: false, status: 409 });
    expect(await service.applyAction(c.id, formAction(reset.next, 'main', { name: 'Aria' }))).toMatchObject({ ok: true });
    expect(await service.resetSurfaceEpoch(c.id, 'nope')).toMatchObject({ ok: false, error: { code: 'IR_SURFACE_NOT_FOUND' } });
  });

  it('runs one turn or action at a time per conversation, in arrival order', async () => {
    const order: string[] = [];
    const slow = createFakePlanner({ delayMs: 80 });
    const planner: Planner = { ...slow, plan: async (input, signal) => { order.push(`plan:${input.text}`); const out = await slow.plan(input, signal); order.push(`planned:${input.text}`); return out; } };
    const { service } = makeService(createMemoryStore(), { planner });
    const c = await service.create('o');
    service.subscribe(c.id, (e) => order.push(`event:${e.cause.kind}`));
    const first = service.runTurn(c.id, 'create a character card');
    const second = service.runTurn(c.id, 'toast please');
    await Promise.all([first, second]);
    expect(order).toEqual([
      'plan:create a character card', 'planned:create a character card', 'event:turn',
      'plan:toast please', 'planned:toast please', 'event:turn',
    ]);
    // The second turn saw the first one's result.
    expect(slow.calls[1]!.ir.surfaces.map((s) => s.id)).toEqual(['main']);
  });

  it('refuses work beyond the per-conversation queue bound', async () => {
    const { service } = makeService(createMemoryStore(), { planner: createFakePlanner({ delayMs: 50 }), limits: { maxQueuePerConversation: 1 } });
    const c = await service.create('o');
    const running = service.runTurn(c.id, 'hello');
    expect(await service.runTurn(c.id, 'hello again')).toMatchObject({ ok: false, error: { code: 'CONVERSATION_BUSY' } });
    await running;
  });

  it('acknowledges nothing it could not log', async () => {
    const inner = createMemoryStore();
    let failing = false;
    const store: ConversationStore = {
      ...inner,
      append: async (cid: string, entry: LogEntry, version: number) => { if (failing) throw new Error('disk full'); return inner.append(cid, entry, version); },
      read: (cid: string, after?: number) => inner.read(cid, after),
    };
    const { service } = makeService(store);
    const c = await service.create('o');
    const turn = await service.runTurn(c.id, 'create a character card');
    if (!turn.ok) throw new Error('turn failed');
    failing = true;
    const events: unknown[] = [];
    service.subscribe(c.id, (e) => events.push(e));
    expect(await service.runTurn(c.id, 'toast')).toMatchObject({ ok: false, error: { code: 'CONVERSATION_LOG_FAILED' } });
    expect(await service.applyAction(c.id, formAction(turn.next, 'main', { name: 'A' }, { idempotencyKey: 'x' })))
      .toMatchObject({ ok: false, error: { code: 'CONVERSATION_LOG_FAILED' } });
    expect(await service.resetSurfaceEpoch(c.id, 'main')).toMatchObject({ ok: false, error: { code: 'CONVERSATION_LOG_FAILED' } });
    expect((await service.get(c.id))!.ir).toBe(turn.next);
    expect(events).toEqual([]);
    failing = false;
    // The failed submit was not remembered as done: the same key now applies.
    expect(await service.applyAction(c.id, formAction(turn.next, 'main', { name: 'A' }, { idempotencyKey: 'x' }))).toMatchObject({ ok: true, replayed: false });
  });

  it('reports unknown conversations as not found', async () => {
    const { service } = makeService(createMemoryStore());
    expect(await service.runTurn('nope', 'hi')).toMatchObject({ ok: false, error: { code: 'HTTP_NOT_FOUND' } });
    expect(await service.traces('nope')).toBeUndefined();
  });
});

async function until(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 300 && !(await check()); i++) await new Promise((r) => setTimeout(r, 10));
}
