import type { BaseEvent } from '@ag-ui/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDemoApp } from '../../src/app/index.ts';
import type { Planner } from '../../src/planner/types.ts';
import { findSurface } from '../../src/ui-ir/index.ts';
import { expectSameStateV09 } from '../clientsim/v0_9/compare.ts';
import { officialClick, officialInput } from '../support/a2ui-v0_9-oracle.ts';
import { AguiClient, startAgui, TOKEN_A, TOKEN_B, types, nativeHashesV09, type AguiStack } from './support.ts';

/*
 * Issue 19, AG-UI: the official @ag-ui/client HttpAgent against POST /ag-ui over real HTTP. A
 * turn, a resent history, an action (applied once, also when its run is sent again), a stale
 * action (RUN_ERROR with the stale code after a re-initialising snapshot), a cancel by going
 * away. Every A2UI operation received is accepted by the official v0.9 MessageProcessor, and
 * ClientSim v0.9 ends on the same state as it and as a client of the native v0.9 stream.
 */

/** The demo's offline planner, except that a turn saying "hold" waits until it is cancelled. */
function holdingPlanner(): Planner & { held: number; cancelled: number } {
  const offline = createDemoApp().offlinePlanner;
  const planner = {
    name: offline.name, label: offline.label, held: 0, cancelled: 0,
    async plan(input: Parameters<Planner['plan']>[0], signal: AbortSignal) {
      if (input.text.includes('hold')) {
        planner.held += 1;
        await new Promise<never>((_, reject) => signal.addEventListener('abort', () => {
          planner.cancelled += 1;
          reject(signal.reason);
        }, { once: true }));
      }
      const output = await offline.plan(input, signal);
      if (!input.text.includes('look it up')) return output;
      // As a chat planner's tool loop reports it: one read-only tool ran before the answer.
      return {
        ...output, meta: { ...output.meta, tool_loop: { tools: ['lookup_card'], requests: 1, stopped: 'answered' } },
        toolSteps: [{ index: 0, round: 0, callId: 'call-1', name: 'lookup_card', arguments: { name: 'Aria' }, ok: true, result: { found: false }, ms: 3 }],
      };
    },
  };
  return planner;
}

let s: AguiStack;
const planner = holdingPlanner();
beforeAll(async () => { s = await startAgui({ planner }); });
afterAll(async () => { await s.close(); });

const SURFACE = 'main--e0';
const SAVE = 'main.a0-form_submit.Button';


async function expectConsistent(client: AguiClient): Promise<void> {
  expect(client.invalidEvents).toEqual([]);
  expect(client.refused).toEqual([]);
  expect(client.violations).toEqual([]);
  expectSameStateV09(client.sim, client.oracle);
  const native = await nativeHashesV09(s, client.threadId);
  expect(client.sim.hashes()).toEqual(native);
  // The HttpAgent's activity messages (deltas applied by the official client) end on the same UI.
  const replayed = client.replayActivities();
  expect(replayed.refused).toEqual([]);
  expect(replayed.violations).toEqual([]);
  expectSameStateV09(replayed.sim, replayed.oracle);
  expect(replayed.sim.hashes()).toEqual(native);
}

/** Types and fills the card like a user of the official renderer, then clicks Save: the action it dispatches. */
function fillAndSave(client: AguiClient, name: string): Record<string, unknown> {
  const surface = client.oracle.processor.model.getSurface(SURFACE)!;
  for (const [id] of surface.componentsModel.entries) {
    const value = ({ 'main.f-name.TextField': name, 'main.f-personality.TextField': 'Brave and kind.', 'main.f-tags.TextField': 'bard, brave' } as Record<string, string>)[id];
    if (value === undefined) continue;
    officialInput(client.oracle, SURFACE, id, value);
    client.sim.input(SURFACE, id, value);
  }
  const clicked = officialClick(client.oracle, SURFACE, SAVE);
  expect(clicked.ok, JSON.stringify(clicked)).toBe(true);
  return JSON.parse(JSON.stringify((clicked as { action: unknown }).action)) as Record<string, unknown>;
}

const withAction = (userAction: Record<string, unknown>, runId?: string) => ({ forwardedProps: { a2uiAction: { userAction } }, ...(runId ? { runId } : {}) });

const runError = (events: readonly BaseEvent[]) => events.find((e) => e.type === 'RUN_ERROR') as (BaseEvent & { code?: string; message: string }) | undefined;

describe('POST /ag-ui through the official HttpAgent', () => {
  it('a turn: RUN_STARTED, the reply as text, the card as an a2ui-surface activity, RUN_FINISHED', async () => {
    const client = new AguiClient(s.url, TOKEN_A);
    client.say('create a character card', 'm1');
    const { events, error } = await client.run();
    expect(error).toBeUndefined();
    const seen = types(events);
    expect(seen[0]).toBe('RUN_STARTED');
    expect(seen.at(-1)).toBe('RUN_FINISHED');
    expect(seen).toContain('TEXT_MESSAGE_CONTENT');
    const start = seen.indexOf('TEXT_MESSAGE_START');
    expect(seen.slice(start, start + 3)).toEqual(['TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_END']);
    const activity = events.find((e) => e.type === 'ACTIVITY_SNAPSHOT') as BaseEvent & Record<string, unknown>;
    expect(activity).toMatchObject({ messageId: `a2ui-surface-${SURFACE}`, activityType: 'a2ui-surface', replace: true });
    const ops = (activity.content as { a2ui_operations: Array<Record<string, unknown>> }).a2ui_operations;
    // No deleteSurface: a renderer that replays the list onto the surface it holds keeps it (issue 35).
    expect(ops.map((o) => Object.keys(o).find((k) => k !== 'version'))).toEqual(['createSurface', 'updateComponents', 'updateDataModel']);
    expect(ops.every((o) => o.version === 'v0.9')).toBe(true);
    // The client's own view of the thread: the assistant's reply and the activity message.
    expect(client.agent.messages.some((m) => m.role === 'assistant')).toBe(true);
    expect(client.agent.messages.some((m) => m.role === 'activity' && m.id === `a2ui-surface-${SURFACE}`)).toBe(true);
    await expectConsistent(client);
    const conversation = await s.surfacer.conversations.get(client.threadId);
    expect(conversation?.turnCount).toBe(1);
    expect(findSurface(conversation!.ir, 'main')).toBeDefined();
  });

  it('the history sent again starts no turn; the UI comes again', async () => {
    const client = new AguiClient(s.url, TOKEN_A);
    client.say('create a character card', 'm1');
    await client.run();
    const before = await s.surfacer.conversations.get(client.threadId);
    const again = await client.run();
    expect(again.error).toBeUndefined();
    expect(types(again.events)).toEqual(['RUN_STARTED', 'ACTIVITY_SNAPSHOT', 'RUN_FINISHED']);
    const after = await s.surfacer.conversations.get(client.threadId);
    expect(after!.version).toBe(before!.version);
    expect(after!.turnCount).toBe(1);
    await expectConsistent(client);
  });

  it('an action from the official renderer goes through the ingress once, also when its run is sent again', async () => {
    const client = new AguiClient(s.url, TOKEN_A);
    client.say('create a character card');
    await client.run();
    const action = fillAndSave(client, 'Aria');
    expect(action).toMatchObject({ name: 'form.submit', surfaceId: SURFACE, sourceComponentId: SAVE, context: { name: 'Aria', rev: 0 } });
    const applied = await client.run(withAction(action, 'run-save-1'));
    expect(applied.error).toBeUndefined();
    expect(runError(applied.events)).toBeUndefined();
    // The client held the surface at the action's rev: it gets the change since, appended to its activity.
    expect(types(applied.events)).toEqual(['RUN_STARTED', 'ACTIVITY_DELTA', 'RUN_FINISHED']);
    const delta = applied.events[1] as BaseEvent & { messageId: string; activityType: string; patch: Array<{ op: string; path: string; value: Record<string, unknown> }> };
    expect(delta).toMatchObject({ messageId: `a2ui-surface-${SURFACE}`, activityType: 'a2ui-surface' });
    expect(delta.patch.length).toBeGreaterThan(0);
    expect(delta.patch.every((p) => p.op === 'add' && p.path === '/a2ui_operations/-' && p.value.version === 'v0.9')).toBe(true);
    expect(delta.patch.some((p) => 'deleteSurface' in p.value || 'createSurface' in p.value)).toBe(false);
    const conversation = await s.surfacer.conversations.get(client.threadId);
    expect(findSurface(conversation!.ir, 'main')!.data.committed).toMatchObject({ name: 'Aria', tags: ['bard', 'brave'] });
    expect(findSurface(conversation!.ir, 'main')!.rev).toBe(1);
    await expectConsistent(client);

    // The same run again (a client retrying after a lost answer): replayed, nothing applied.
    const replay = await client.run(withAction(action, 'run-save-1'));
    expect(replay.error).toBeUndefined();
    expect(types(replay.events).at(-1)).toBe('RUN_FINISHED');
    const after = await s.surfacer.conversations.get(client.threadId);
    expect(after!.version).toBe(conversation!.version);
    await expectConsistent(client);
  });

  it('a stale action: the re-initialising snapshot, then RUN_ERROR with the stale code; the next action works', async () => {
    const first = new AguiClient(s.url, TOKEN_A);
    first.say('create a character card');
    await first.run();
    // A second client of the same thread (same caller) saves first.
    const second = new AguiClient(s.url, TOKEN_A, first.threadId);
    await second.run();
    expect((await second.run(withAction(fillAndSave(second, 'Cora')))).error).toBeUndefined();
    const version = (await s.surfacer.conversations.get(first.threadId))!.version;

    const stale = await first.run(withAction(fillAndSave(first, 'Stale')));
    const seen = types(stale.events);
    expect(seen[0]).toBe('RUN_STARTED');
    expect(seen.at(-1)).toBe('RUN_ERROR');
    expect(seen.slice(1, -1)).toEqual(['ACTIVITY_SNAPSHOT']);
    expect(runError(stale.events)).toMatchObject({ code: 'A2UI_C2S_SURFACE_STALE' });
    expect((await s.surfacer.conversations.get(first.threadId))!.version).toBe(version);
    // Re-initialised from the server's state: the other client's save.
    await expectConsistent(first);
    expect(first.oracle.processor.model.getSurface(SURFACE)!.dataModel.get('/committed/name')).toBe('Cora');

    const next = await first.run(withAction(fillAndSave(first, 'Dara')));
    expect(next.error).toBeUndefined();
    expect(findSurface((await s.surfacer.conversations.get(first.threadId))!.ir, 'main')!.data.committed).toMatchObject({ name: 'Dara' });
    await expectConsistent(first);
  });

  it('an action that continues the conversation: its turn is a step of the run, its UI comes with the run', async () => {
    const client = new AguiClient(s.url, TOKEN_A);
    client.say('ask me something');
    await client.run();
    const nodes = client.sim.surface(SURFACE)!.tree.nodes;
    const goal = nodes.find((n) => n.type === 'ChoicePicker')!;
    const details = nodes.find((n) => n.type === 'TextField' && n.id.includes('details'))!;
    expect(client.sim.input(SURFACE, goal.id, ['persona'])).toEqual([]);
    expect(client.sim.input(SURFACE, details.id, 'named Kim')).toEqual([]);
    officialInput(client.oracle, SURFACE, goal.id, ['persona']);
    officialInput(client.oracle, SURFACE, details.id, 'named Kim');
    const clicked = officialClick(client.oracle, SURFACE, 'main.a0-ask_submit.Button');
    expect(clicked.ok, JSON.stringify(clicked)).toBe(true);
    const run = await client.run(withAction(JSON.parse(JSON.stringify((clicked as { action: unknown }).action)) as Record<string, unknown>, 'ask-1'));
    expect(run.error).toBeUndefined();
    const seen = types(run.events);
    expect(seen[0]).toBe('RUN_STARTED');
    expect(seen.at(-1)).toBe('RUN_FINISHED');
    const step = run.events.filter((e) => e.type === 'STEP_STARTED' || e.type === 'STEP_FINISHED');
    expect(step).toMatchObject([{ stepName: 'continue:ask.submit' }, { stepName: 'continue:ask.submit' }]);
    // The continuation re-made the surface under its next epoch: the old one is deleted.
    const activities = run.events.filter((e) => e.type === 'ACTIVITY_SNAPSHOT').map((e) => (e as BaseEvent & { messageId: string }).messageId);
    expect(activities).toEqual(['a2ui-surface-main--e0', 'a2ui-surface-main--e1']);
    expect(client.oracle.processor.model.getSurface(SURFACE)).toBeUndefined();
    expect(JSON.stringify(client.sim.surface('main--e1')!.components)).toContain('Display name');
    await expectConsistent(client);
    expect((await s.surfacer.conversations.get(client.threadId))!.turnCount).toBe(2);
  });

  it("the turn's tool loop as TOOL_CALL events (the tool ran on the server: its result included), before the reply", async () => {
    const client = new AguiClient(s.url, TOKEN_A);
    client.say('create a character card, look it up first');
    const run = await client.run();
    expect(run.error).toBeUndefined();
    const seen = types(run.events);
    expect(seen.slice(0, 6)).toEqual(['RUN_STARTED', 'TOOL_CALL_START', 'TOOL_CALL_ARGS', 'TOOL_CALL_END', 'TOOL_CALL_RESULT', 'TEXT_MESSAGE_START']);
    expect(run.events[1]).toMatchObject({ toolCallName: 'lookup_card' });
    expect(run.events[2]).toMatchObject({ delta: '{"name":"Aria"}' });
    expect(run.events[4]).toMatchObject({ content: '{"found":false}' });
    expect(seen.at(-1)).toBe('RUN_FINISHED');
    expect(client.invalidEvents).toEqual([]);
    // The client records the call and its result in the thread, as for any agent's tool.
    expect(client.agent.messages.some((m) => m.role === 'tool')).toBe(true);
  });

  it('a client that goes away cancels its turn (the planner sees the abort); the same history retries it', async () => {
    const client = new AguiClient(s.url, TOKEN_A);
    client.say('create a character card');
    await client.run();
    const cancelledBefore = planner.cancelled;
    client.say('hold on, make a card', 'held-1');
    const running = client.run();
    await expect.poll(() => planner.held).toBeGreaterThan(0);
    await expect.poll(async () => (await s.surfacer.conversations.get(client.threadId))!.busy).toBe(true);
    client.agent.abortRun();
    await running;
    await expect.poll(() => planner.cancelled).toBe(cancelledBefore + 1);
    await expect.poll(async () => (await s.surfacer.conversations.get(client.threadId))!.busy).toBe(false);
    // Not answered: the same history sent again runs the message again.
    const held = planner.held;
    const retry = client.run();
    await expect.poll(() => planner.held).toBe(held + 1);
    client.agent.abortRun();
    await retry;
    await expect.poll(() => planner.cancelled).toBe(cancelledBefore + 2);
    await expect.poll(async () => (await s.surfacer.conversations.get(client.threadId))!.busy).toBe(false);
    expect(s.errors).toEqual([]);
  });
});

describe('who may call POST /ag-ui', () => {
  it('no token or an unknown one: 401 with the bearer scheme, nothing created', async () => {
    for (const headers of [{}, { Authorization: 'Bearer nope' }, { Authorization: `Basic ${TOKEN_A}` }] as Array<Record<string, string>>) {
      const response = await fetch(`${s.url}/ag-ui`, {
        method: 'POST', headers: { 'Content-Type': 'application/json', ...headers },
        body: JSON.stringify({ threadId: 'cNoTokenThread', runId: 'r1', messages: [{ id: 'm', role: 'user', content: 'create a character card' }] }),
      });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(await response.json()).toMatchObject({ code: 'HTTP_UNAUTHORIZED' });
    }
    expect(await s.surfacer.conversations.get('cNoTokenThread')).toBeUndefined();
    const anonymous = new AguiClient(s.url, undefined);
    anonymous.say('create a character card');
    const run = await anonymous.run();
    expect(String(run.error)).toMatch(/401/);
  });

  it("another principal's thread is a 404: no UI, nothing changed", async () => {
    const owner = new AguiClient(s.url, TOKEN_A);
    owner.say('create a character card');
    await owner.run();
    const before = await s.surfacer.conversations.get(owner.threadId);
    const intruder = new AguiClient(s.url, TOKEN_B, owner.threadId);
    intruder.say('create a character card');
    const run = await intruder.run();
    expect(String(run.error)).toMatch(/404/);
    expect(run.events.filter((e) => e.type === 'ACTIVITY_SNAPSHOT')).toEqual([]);
    // Its action too (with the owner's nonce and rev: still nobody's business).
    const action = fillAndSave(owner, 'Mallory');
    const acted = await intruder.run(withAction(action));
    expect(String(acted.error)).toMatch(/404/);
    expect((await s.surfacer.conversations.get(owner.threadId))!.version).toBe(before!.version);
    // The owner's thread answers the owner still.
    const response = await fetch(`${s.url}/ag-ui`, {
      method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${TOKEN_B}` },
      body: JSON.stringify({ threadId: owner.threadId, runId: 'r', messages: [] }),
    });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ code: 'HTTP_NOT_FOUND' });
  });
});
