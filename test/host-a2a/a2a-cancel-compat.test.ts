import { TaskState, type Task } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDemoApp } from '../../src/app/index.ts';
import type { Planner } from '../../src/planner/types.ts';
import { errorIndexes, expectSameStateV09, runBothV09 } from '../clientsim/v0_9/compare.ts';
import { CHARACTER, fillAndSubmitV09, startE2e, type E2eServer } from '../e2e/support/stack.ts';
import { a2aClient, a2uiData, a2uiOf, CAPS_V09, errorOf, sendTask, text, userMessage } from './support.ts';

/*
 * tasks/cancel ends a running turn (the task is canceled, the conversation keeps no answer), and
 * the v0.3 compatibility layer: the SDK's v0.3 client (its compat JSON-RPC transport, from the
 * v0.3 card) gets the same turns, A2UI and actions, in v0.3 part shapes (one A2UI message per
 * DataPart, since a v0.3 DataPart holds an object).
 */

/** The demo app's offline planner, except that a message with "slowly" waits until it is cancelled. */
function holdingPlanner(): Planner {
  const offline = createDemoApp().offlinePlanner;
  return {
    name: 'offline', label: 'offline (holding)',
    plan(input, signal) {
      if (!input.text.includes('slowly')) return offline.plan(input, signal);
      return new Promise((_resolve, reject) => {
        if (signal.aborted) reject(signal.reason as Error);
        signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
      });
    },
  };
}

let s: E2eServer;
beforeAll(async () => { s = await startE2e({}, { planner: holdingPlanner() }); });
afterAll(async () => { await s.close(); });

async function startedTask(stream: AsyncGenerator<import('@a2a-js/sdk').StreamResponse>): Promise<Task> {
  const first = await stream.next();
  expect(first.done).toBe(false);
  const payload = first.value!.payload;
  expect(payload?.$case).toBe('task');
  const task = payload!.value as Task;
  expect(task.status?.state).toBe(TaskState.TASK_STATE_WORKING);
  return task;
}

async function rest(stream: AsyncGenerator<import('@a2a-js/sdk').StreamResponse>) {
  const out = [];
  for await (const event of stream) out.push(event);
  return out;
}

describe('tasks/cancel', () => {
  for (const legacy of [false, true]) {
    it(`${legacy ? 'v0.3' : 'v1.0'}: a running turn is canceled; the stream ends canceled; the conversation is free again`, async () => {
      const client = await a2aClient(s.url, { legacy });
      expect(client.protocolVersion).toBe(legacy ? '0.3' : '1.0');
      const opened = await sendTask(client, userMessage([text('hello')], { metadata: CAPS_V09 }));
      const cid = opened.contextId;
      const before = (await s.handle.conversations.get(cid))!;
      const stream = client.sendMessageStream({ tenant: '', message: userMessage([text('slowly create a character card')], { contextId: cid, metadata: CAPS_V09 }), configuration: undefined, metadata: undefined });
      const task = await startedTask(stream);
      expect(task.contextId).toBe(cid);
      await expect.poll(async () => (await s.handle.conversations.get(cid))!.busy).toBe(true);
      const canceled = await client.cancelTask({ tenant: '', id: task.id, metadata: undefined });
      expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      const events = await rest(stream);
      const last = events.at(-1)?.payload;
      expect(last?.$case).toBe('statusUpdate');
      expect((last!.value as { status?: Task['status'] }).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      await expect.poll(async () => (await s.handle.conversations.get(cid))!.busy).toBe(false);
      const after = (await s.handle.conversations.get(cid))!;
      // No surface came of the cancelled turn.
      expect(after.ir.surfaces.map((x) => x.id)).toEqual(before.ir.surfaces.map((x) => x.id));
      const fetched = await client.getTask({ tenant: '', id: task.id });
      expect(fetched.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      // A finished task cannot be canceled.
      await expect(client.cancelTask({ tenant: '', id: task.id, metadata: undefined })).resolves.toMatchObject({ status: { state: TaskState.TASK_STATE_CANCELED } });
      await expect(client.cancelTask({ tenant: '', id: opened.id, metadata: undefined })).rejects.toThrow();
    });
  }
});

describe('A2A v0.3 through the SDK compat client', () => {
  it('a v0.9 turn and its submit, one A2UI message per DataPart; both renderers agree', async () => {
    const client = await a2aClient(s.url, { legacy: true });
    expect(client.protocolVersion).toBe('0.3');
    const task = await sendTask(client, userMessage([text('create a character card')], { metadata: CAPS_V09 }));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const cid = task.contextId;
    const parts = task.status!.message!.parts.filter((p) => p.content?.$case === 'data' && p.metadata?.mimeType !== undefined);
    expect(parts.length).toBeGreaterThan(1);
    expect(parts.every((p) => p.content?.$case === 'data' && !Array.isArray(p.content.value))).toBe(true);
    const received = a2uiOf(task.status?.message).messages;
    let run = runBothV09(received);
    expect(run.refused).toEqual([]);
    expect(errorIndexes(run.violations)).toEqual([]);
    expectSameStateV09(run.sim, run.oracle);

    const action = fillAndSubmitV09(run.sim, 'main--e0', CHARACTER);
    // A v0.3 client sends the action as one object per DataPart.
    const part = { ...a2uiData([action]), content: { $case: 'data' as const, value: action } };
    const applied = await sendTask(client, userMessage([part], { contextId: cid, metadata: CAPS_V09 }));
    expect(applied.status?.state, JSON.stringify(errorOf(applied))).toBe(TaskState.TASK_STATE_COMPLETED);
    received.push(...a2uiOf(applied.status?.message).messages);
    run = runBothV09(received);
    expect(run.refused).toEqual([]);
    expect(errorIndexes(run.violations)).toEqual([]);
    expectSameStateV09(run.sim, run.oracle);
    const main = (await s.handle.conversations.get(cid))!.ir.surfaces.find((x) => x.id === 'main')!;
    expect((main.data.committed as { name?: unknown }).name).toBe(CHARACTER.name);
  });

  it('on the wire: v0.3 JSON-RPC `message/send` answers with `kind: "data"` parts carrying metadata.mimeType', async () => {
    const res = await fetch(`${s.url}/a2a`, {
      method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0', id: 7, method: 'message/send',
        params: { message: { kind: 'message', messageId: 'm-wire-1', role: 'user', parts: [{ kind: 'text', text: 'create a character card' }], metadata: CAPS_V09 } },
      }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-a2a-extensions')).toBe('https://a2ui.org/a2a-extension/a2ui/v0.9');
    const body = await res.json() as { id: number; result: { kind: string; status: { state: string; message: { parts: Array<Record<string, any>> } } } };
    expect(body.id).toBe(7);
    expect(body.result.kind).toBe('task');
    expect(body.result.status.state).toBe('completed');
    const data = body.result.status.message.parts.filter((p) => p.kind === 'data');
    expect(data.length).toBeGreaterThan(1);
    for (const p of data) {
      expect(p.metadata.mimeType).toBe('application/json+a2ui');
      expect(p.data.version).toBe('v0.9');
    }
    // Nothing of this file's requests made the server log an error.
    expect(s.errors).toEqual([]);
  });
});
