import { describe, expect, it } from 'vitest';
import { createMemoryStore, foldLog, type ConversationService, type ConversationStore, type TurnResult } from '../../src/conversation/index.ts';
import { createDemoApp } from '../../src/app/index.ts';
import { runDirectivesAdapter } from '../../src/conversation/index.ts';
import type { Planner, PlannerInput } from '../../src/planner/types.ts';
import { findSurface } from '../../src/ui-ir/index.ts';
import { formAction, makeService } from './fixtures/service.ts';

/** The demo's clarifier flow at the service: "ask me something" → choose → Continue → the form opens. */
async function askedConversation(service: ConversationService) {
  const c = await service.create('owner');
  const turn = await service.runTurn(c.id, 'ask me something');
  if (!turn.ok) throw new Error('turn failed');
  const clarifier = findSurface(turn.next, 'main')!;
  expect(clarifier.view.template).toBe('ask');
  return { cid: c.id, ir: turn.next };
}

function demoFold(entries: Parameters<typeof foldLog>[0]) {
  const app = createDemoApp();
  return foldLog(entries, { turn: { runDirectives: runDirectivesAdapter, registry: app.directives, mode: 'best-effort' }, actions: app.actions });
}

/** A planner that records its inputs and holds each call until released (or its signal aborts). */
function heldPlanner(inner: Planner): Planner & { inputs: PlannerInput[]; release(): void; waiting(): number } {
  const inputs: PlannerInput[] = [];
  let waiters: Array<() => void> = [];
  return {
    name: inner.name, label: inner.label, inputs,
    release() { for (const w of waiters.splice(0)) w(); },
    waiting: () => waiters.length,
    async plan(input, signal) {
      inputs.push(input);
      await new Promise<void>((resolve, reject) => {
        waiters.push(resolve);
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
      return inner.plan(input, signal);
    },
  };
}

describe('an action that continues the conversation (ask.submit)', () => {
  it('opens the persona form with the details carried over, without typing; the transcript shows the answers once', async () => {
    const store = createMemoryStore();
    const { service } = makeService(store, { demo: true });
    const { cid, ir } = await askedConversation(service);
    const result = await service.applyAction(cid, formAction(ir, 'main', { goal: 'persona', details: 'named Kim, a quiet librarian' }, {
      action: 'ask.submit', idempotencyKey: 'k1',
    }));
    if (!result.ok || result.kind !== 'applied') throw new Error(JSON.stringify(result));
    expect(result.continuation).toBeDefined();
    expect(findSurface(result.next, 'main')!.lifecycle).toBe('deleted');
    const turn = await result.continuation!;
    if (!turn?.ok) throw new Error(JSON.stringify(turn));
    expect(turn.outcome).toBe('applied');
    const persona = findSurface(turn.next, 'main')!;
    expect(persona.view.template).toBe('persona');
    expect(persona.data.draft).toMatchObject({ display_name: 'Kim', bio: 'named Kim, a quiet librarian' });
    // The action wrote the answers once; the continuation added only the assistant's reply.
    const texts = turn.next.transcript.map((t) => `${t.role}: ${t.text.split('\n')[0]}`);
    expect(texts).toEqual([
      'user: ask me something', expect.stringMatching(/^assistant: I am not sure/),
      'user: What would you like to set up?', expect.stringMatching(/^assistant: Here is the persona form/),
    ]);
    expect(turn.trace.continuation).toEqual({ action: 'ask.submit', surface_id: 'main', action_version: 3 });
    expect(turn.trace.llm.offline).toBe(true);

    // The log records the structured input; the fold replays it byte for byte.
    const entries = (await store.read(cid))!;
    const logged = entries.at(-1)!;
    expect(logged).toMatchObject({ type: 'turn', continuation: { actionVersion: 3, event: { action: 'ask.submit', button: 'Continue' } } });
    const folded = demoFold(entries);
    expect(folded.divergences).toEqual([]);
    expect(folded.ir).toEqual((await service.get(cid))!.ir);
    expect(folded.pending.size).toBe(0);
  });

  it('gives the planner the answers as a structured event with their labels', async () => {
    const planner = heldPlanner(createDemoApp().offlinePlanner);
    const { service } = makeService(createMemoryStore(), { demo: true, planner });
    const c = await service.create('owner');
    const first = service.runTurn(c.id, 'ask me something');
    await until(() => planner.waiting() === 1);
    planner.release();
    const asked = await first;
    if (!asked.ok) throw new Error('turn failed');
    const result = await service.applyAction(c.id, formAction(asked.next, 'main', { goal: 'scene settings', details: '' }, { action: 'ask.submit' }));
    if (!result.ok || result.kind !== 'applied') throw new Error('not applied');
    await until(() => planner.waiting() === 1);
    const input = planner.inputs.at(-1)!;
    expect(input.event).toEqual({
      type: 'ui.action', action: 'ask.submit', button: 'Continue',
      surface: { id: 'main', title: 'What would you like to set up?', template: 'ask' },
      answers: [
        { name: 'goal', label: 'I want to edit', value: 'scene settings', text: 'scene settings' },
        { name: 'details', label: 'Anything else?', value: null, text: '—' },
      ],
    });
    expect(input.text).toBe('Continue on “What would you like to set up?” — I want to edit: scene settings; Anything else?: —');
    planner.release();
    const turn = await result.continuation!;
    expect(turn?.ok && findSurface(turn.next, 'main')!.view.template).toBe('scene_settings');
  });

  it('cancel during the continuation leaves the surfaces as they were after the action, and records the cancelled turn', async () => {
    const planner = heldPlanner(createDemoApp().offlinePlanner);
    const store = createMemoryStore();
    const { service } = makeService(store, { demo: true, planner });
    const c = await service.create('owner');
    const first = service.runTurn(c.id, 'ask me something');
    await until(() => planner.waiting() === 1);
    planner.release();
    const asked = await first;
    if (!asked.ok) throw new Error('turn failed');
    const result = await service.applyAction(c.id, formAction(asked.next, 'main', { goal: 'persona' }, { action: 'ask.submit' }));
    if (!result.ok || result.kind !== 'applied') throw new Error('not applied');
    await until(() => planner.waiting() === 1);
    expect((await service.get(c.id))!.busy).toBe(true);
    expect(await service.cancelTurn(c.id)).toBe(true);
    const turn = (await result.continuation!) as Extract<TurnResult, { ok: true }>;
    expect(turn.outcome).toBe('cancelled');
    expect(turn.next).toBe(result.next);
    const after = (await service.get(c.id))!;
    expect(after.ir).toEqual(result.next);
    expect(after.busy).toBe(false);
    expect((await service.traces(c.id))!.at(-1)).toMatchObject({ outcome: 'cancelled', continuation: { action: 'ask.submit' } });
    expect(demoFold((await store.read(c.id))!).divergences).toEqual([]);
  });

  it('an idempotent replay of the submit does not run the continuation again', async () => {
    const { service } = makeService(createMemoryStore(), { demo: true });
    const { cid, ir } = await askedConversation(service);
    const request = formAction(ir, 'main', { goal: 'persona' }, { action: 'ask.submit', idempotencyKey: 'once' });
    const [a, b] = await Promise.all([service.applyAction(cid, request), service.applyAction(cid, request)]);
    if (!a.ok || a.kind !== 'applied' || !b.ok || b.kind !== 'applied') throw new Error('not applied');
    expect([a.replayed, b.replayed]).toEqual([false, true]);
    expect(a.continuation).toBeDefined();
    expect(b.continuation).toBeUndefined();
    await a.continuation;
    expect((await service.traces(cid))!.filter((t) => t.continuation !== undefined)).toHaveLength(1);
  });
});

describe('a crash between the action and its continuation', () => {
  it('loses nothing acknowledged; a retry of the action under its key runs the continuation then, once', async () => {
    const memory = createMemoryStore();
    // The first process "dies" when it would record the continuation: its append never happens.
    const crashing: ConversationStore = {
      ...memory, writers: memory.writers, read: memory.read, countOwnedBy: memory.countOwnedBy, close: memory.close,
      append: async (cid, entry, version) => {
        if (entry.type === 'turn' && entry.continuation !== undefined) throw new Error('killed before the append');
        return memory.append(cid, entry, version);
      },
    };
    const first = makeService(crashing, { demo: true }).service;
    const { cid, ir } = await askedConversation(first);
    const request = formAction(ir, 'main', { goal: 'persona' }, { action: 'ask.submit', idempotencyKey: 'k' });
    const answered = await first.applyAction(cid, request);
    if (!answered.ok || answered.kind !== 'applied') throw new Error('not applied');
    expect(await answered.continuation).toMatchObject({ ok: false, error: { code: 'CONVERSATION_LOG_FAILED' } });

    // The restarted process: the action (the answers) is there, the continuation is not.
    const restarted = makeService(memory, { demo: true }).service;
    const loaded = (await restarted.get(cid))!;
    expect(findSurface(loaded.ir, 'main')!.lifecycle).toBe('deleted');
    expect(loaded.ir.transcript.at(-1)!.text).toContain('I want to edit: persona');
    expect(await restarted.divergences(cid)).toEqual([]);
    expect((await restarted.traces(cid))!.filter((t) => t.continuation)).toHaveLength(0);

    // The client retries (same key, same request): replayed, and the continuation runs now.
    const retry = await restarted.applyAction(cid, request);
    if (!retry.ok || retry.kind !== 'applied') throw new Error('not applied');
    expect(retry.replayed).toBe(true);
    const turn = await retry.continuation;
    expect(turn?.ok && findSurface(turn.next, 'main')!.view.template).toBe('persona');
    // Once: a further retry replays without continuing again.
    const again = await restarted.applyAction(cid, request);
    expect(again.ok && again.kind === 'applied' && again.continuation).toBeUndefined();
    expect(demoFold((await memory.read(cid))!).divergences).toEqual([]);
    expect((await restarted.traces(cid))!.filter((t) => t.continuation)).toHaveLength(1);
  });
});

async function until(check: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}
