import { describe, expect, it } from 'vitest';
import { createDemoApp, createMemoryCardLibrary } from '../../src/app/index.ts';
import type { AppDefinition } from '../../src/conversation/app-definition.ts';
import {
  AppendConflictError, createMemoryStore, foldLog, irHash, runDirectivesAdapter, type ConversationService, type ConversationStore,
  type LogEntry,
} from '../../src/conversation/index.ts';
import { httpStatusOf } from '../../src/errors/index.ts';
import type { ActionRequest } from '../../src/ingress/index.ts';
import { findSurface, type ConversationIr } from '../../src/ui-ir/index.ts';
import { createEffectApp, createEffectProbe, type EffectProbe } from './fixtures/effect-app.ts';
import { formAction, makeService } from './fixtures/service.ts';

const CARD = { name: 'Aria', personality: 'Brave and kind.' };

async function cardOpen(service: ConversationService): Promise<{ cid: string; ir: ConversationIr }> {
  const c = await service.create('owner-1');
  const turn = await service.runTurn(c.id, 'create a character card');
  if (!turn.ok) throw new Error('turn failed');
  return { cid: c.id, ir: turn.next };
}

function fold(app: AppDefinition, entries: readonly LogEntry[]) {
  return foldLog(entries, { turn: { runDirectives: runDirectivesAdapter, registry: app.directives, mode: 'best-effort' }, actions: app.actions });
}

async function unchanged(service: ConversationService, store: ConversationStore, cid: string, before: { ir: ConversationIr; entries: number }): Promise<void> {
  expect((await service.get(cid))!.ir).toBe(before.ir);
  expect((await store.read(cid))!.length).toBe(before.entries);
}

function setup(probe: EffectProbe, store: ConversationStore = createMemoryStore()) {
  return makeService(store, { app: createEffectApp(probe) });
}

describe('an action with a side effect', () => {
  it('runs the effect once with the key, the conversation and its owner; logs the result; hands it to the transition', async () => {
    const probe = createEffectProbe('ok');
    const { service, store, app } = setup(probe);
    const { cid, ir } = await cardOpen(service);
    const result = await service.applyAction(cid, formAction(ir, 'main', CARD, { idempotencyKey: 'key-1' }));
    expect(result.ok && result.kind === 'applied' && result.toast).toEqual({ level: 'success', text: 'Saved with receipt r-1' });
    expect(probe.runs).toEqual([{ key: 'key-1', owner: 'owner-1', cid, request: expect.objectContaining(CARD), aborted: false }]);
    const entries = (await store.read(cid))!;
    expect(entries.at(-1)).toMatchObject({ type: 'action', effect: { result: { receipt: 'r-1' } } });

    // A replay of the same request applies nothing and runs nothing.
    const again = await service.applyAction(cid, formAction(ir, 'main', CARD, { idempotencyKey: 'key-1' }));
    expect(again.ok && again.kind === 'applied' && again.replayed).toBe(true);
    expect(probe.runs).toHaveLength(1);

    // The fold reproduces the IR from the recorded result, byte for byte, without running the effect.
    probe.behaviour = 'fail';
    const folded = fold(app, entries);
    expect(folded.divergences).toEqual([]);
    expect(irHash(folded.ir)).toBe(irHash((await service.get(cid))!.ir));
    expect(probe.runs).toHaveLength(1);
  });

  it.each([
    ['fail', 'ACTION_EFFECT_FAILED', 502],
    ['invalid', 'ACTION_EFFECT_FAILED', 502],
    ['hang', 'ACTION_EFFECT_TIMEOUT', 504],
  ] as const)('that ends in "%s" changes nothing, logs nothing and is not remembered under its key (%s)', async (behaviour, code, status) => {
    const probe = createEffectProbe(behaviour, 50);
    const { service, store } = setup(probe);
    const { cid, ir } = await cardOpen(service);
    const before = { ir: (await service.get(cid))!.ir, entries: (await store.read(cid))!.length };
    const result = await service.applyAction(cid, formAction(ir, 'main', CARD, { idempotencyKey: 'k' }));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe(code);
    expect(result.status).toBe(status);
    expect(result.error.retryable).toBe(true);
    await unchanged(service, store, cid, before);
    if (behaviour === 'hang') expect(probe.runs[0]!.aborted).toBe(true);
    // The same request again, once the effect works, is judged afresh and applied.
    probe.behaviour = 'ok';
    const retry = await service.applyAction(cid, formAction(ir, 'main', CARD, { idempotencyKey: 'k' }));
    expect(retry.ok && retry.kind === 'applied' && !retry.replayed).toBe(true);
    expect(probe.runs).toHaveLength(2);
  });

  it('whose shared store is away (StoreUnavailableError) answers STORE_UNAVAILABLE as when the log is (503 to retry, not 502), changing nothing', async () => {
    const probe = createEffectProbe('unavailable');
    const { service, store } = setup(probe);
    const { cid, ir } = await cardOpen(service);
    const before = { ir: (await service.get(cid))!.ir, entries: (await store.read(cid))!.length };
    const result = await service.applyAction(cid, formAction(ir, 'main', CARD, { idempotencyKey: 'k' }));
    expect(result).toMatchObject({ ok: false, error: { code: 'STORE_UNAVAILABLE', retryable: true } });
    expect(httpStatusOf('STORE_UNAVAILABLE')).toBe(503);
    await unchanged(service, store, cid, before);
    probe.behaviour = 'ok';
    const retry = await service.applyAction(cid, formAction(ir, 'main', CARD, { idempotencyKey: 'k' }));
    expect(retry.ok && retry.kind === 'applied' && !retry.replayed).toBe(true);
  });

  it('that is cancelled (the request went away) changes nothing', async () => {
    const probe = createEffectProbe('held');
    const { service, store } = setup(probe);
    const { cid, ir } = await cardOpen(service);
    const before = { ir: (await service.get(cid))!.ir, entries: (await store.read(cid))!.length };
    const controller = new AbortController();
    const pending = service.applyAction(cid, formAction(ir, 'main', CARD, { idempotencyKey: 'k' }), { signal: controller.signal });
    await until(() => probe.held === 1);
    controller.abort();
    const result = await pending;
    expect(!result.ok && result.error.code).toBe('ACTION_EFFECT_CANCELLED');
    expect(probe.runs[0]!.aborted).toBe(true);
    probe.release();
    await unchanged(service, store, cid, before);
  });

  it('whose input the domain check refuses never runs (the demo: an invalid card is not saved to the library)', async () => {
    const cards = createMemoryCardLibrary();
    const app = createDemoApp({ cards });
    const store = createMemoryStore();
    const { service } = makeService(store, { app });
    const { cid, ir } = await cardOpen(service);
    const result = await service.applyAction(cid, formAction(ir, 'main', { name: '', personality: '' }, { idempotencyKey: 'k' }));
    expect(!result.ok && result.error.code).toBe('ACTION_INPUT_INVALID');
    expect(cards.cards).toBe(0);
  });

  it('runs once when the decision is taken again after another writer appended first, and keeps its result for it', async () => {
    const probe = createEffectProbe('ok');
    const memory = createMemoryStore();
    let conflicts = 1;
    // One conflict on the next action append, as when another instance appended first.
    const store: ConversationStore = {
      ...memory, writers: memory.writers,
      append: async (cid, entry, version) => {
        if (entry.type === 'action' && conflicts-- > 0) throw new AppendConflictError(cid, version);
        return memory.append(cid, entry, version);
      },
      read: memory.read, countOwnedBy: memory.countOwnedBy, close: memory.close,
    };
    const { service } = setup(probe, store);
    const { cid, ir } = await cardOpen(service);
    const result = await service.applyAction(cid, formAction(ir, 'main', CARD, { idempotencyKey: 'k' }));
    expect(result.ok && result.kind === 'applied' && result.toast?.text).toBe('Saved with receipt r-1');
    expect(probe.runs).toHaveLength(1);
  });

  it('drops its result when the decision taken again refuses the action as stale (the documented contract)', async () => {
    const probe = createEffectProbe('held');
    const memory = createMemoryStore();
    // Two writers on one log: the store must say so, or an instance trusts its fold as the log.
    const store: ConversationStore = {
      writers: 'many', append: memory.append, read: memory.read, countOwnedBy: memory.countOwnedBy, close: memory.close,
    };
    const a = setup(probe, store);
    // A second "instance" of the same app on the same log.
    const b = setup(createEffectProbe('ok'), store);
    const { cid, ir } = await cardOpen(a.service);
    const first = a.service.applyAction(cid, formAction(ir, 'main', CARD, { idempotencyKey: 'a' }));
    await until(() => probe.held === 1);
    const other = await b.service.applyAction(cid, formAction(ir, 'main', { ...CARD, name: 'Brin' }, { idempotencyKey: 'b' }));
    expect(other.ok).toBe(true);
    probe.release();
    const result = await first;
    expect(!result.ok && result.error.code).toBe('A2UI_C2S_SURFACE_STALE');
    expect(probe.runs).toHaveLength(1);
    const actions = (await store.read(cid))!.filter((e) => e.type === 'action');
    expect(actions).toHaveLength(1);
    expect(findSurface((await a.service.get(cid))!.ir, 'main')!.data.committed).toMatchObject({ name: 'Brin' });
  });

  it('after a crash between the effect and the log append, a retry with the same key saves nothing twice (demo card library)', async () => {
    const cards = createMemoryCardLibrary();
    const app = createDemoApp({ cards });
    const memory = createMemoryStore();
    let crash = true;
    // The append fails as a crashed process's would: the effect already saved the card.
    const store: ConversationStore = {
      ...memory, writers: memory.writers, read: memory.read, countOwnedBy: memory.countOwnedBy, close: memory.close,
      append: async (cid, entry, version) => {
        if (entry.type === 'action' && crash) { crash = false; throw new Error('killed before the append'); }
        return memory.append(cid, entry, version);
      },
    };
    const { service } = makeService(store, { app });
    const { cid, ir } = await cardOpen(service);
    const request: ActionRequest = formAction(ir, 'main', CARD, { idempotencyKey: 'card-key' });
    const failed = await service.applyAction(cid, request);
    expect(!failed.ok && failed.error.code).toBe('CONVERSATION_LOG_FAILED');
    expect(cards.cards).toBe(1);
    // A restart: a new service folds the log (which does not hold the action) and takes the retry.
    const restarted = makeService(memory, { app });
    const retry = await restarted.service.applyAction(cid, request);
    expect(retry.ok && retry.kind === 'applied' && retry.toast?.text).toBe('Saved to your card library as card-1');
    expect(cards.cards).toBe(1);
    expect((await cards.find('owner-1', 'aria', 10)).map((c) => c.id)).toEqual(['card-1']);
    const logged = (await memory.read(cid))!.filter((e) => e.type === 'action');
    expect(logged).toMatchObject([{ effect: { result: { id: 'card-1' } } }]);
  });
});

async function until(check: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}
