import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TaskState, type StreamResponse, type Task, type TaskArtifactUpdateEvent, type TaskStatusUpdateEvent } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type ServeHandle } from '../../src/cli/commands/serve.ts';
import { createClientSim, createClientSimV09 } from '../../src/clientsim/index.ts';
import type { Logger } from '../../src/conversation/index.ts';
import { errorsOf, expectSameState, runBoth } from '../clientsim/compare.ts';
import { errorIndexes, expectSameStateV09, runBothV09 } from '../clientsim/v0_9/compare.ts';
import { wireState08, wireState09 } from '../support/a2ui-equivalence.ts';
import { startFakeOllama, type FakeOllama } from '../support/fake-ollama.ts';
import { piecesOf } from '../support/fake-stream.ts';
import { a2aClient, a2uiOf, CAPS_V08, CAPS_V09, sendTask, text, textOf, userMessage } from './support.ts';

/*
 * Issue 20, A2A: `message/stream` forwards a streamed turn as it happens, to the official
 * @a2a-js/sdk client (v1.0 and the v0.3 compat transport). A fake Ollama writes the answer in
 * small NDJSON pieces at a set pace: the words arrive as several chunks of one `answer`
 * artifact (TaskArtifactUpdateEvent, append) long before the task completes, and the form's UI
 * arrives in a working status before the model sent its last piece. Every A2UI message
 * received, in order, is accepted by the official v0.9 processor, ClientSim agrees, and the
 * state equals a fresh native snapshot. `message/send` forwards nothing before the end.
 */

const FORM = { type: 'ui.show_form', payload: { template: 'persona', values: { display_name: 'Sam' } } };
const TEXT = 'Here is your persona form, with your name filled in. Change anything you like, then press save.';
const ANSWER = JSON.stringify({
  assistant_text: TEXT,
  directives: [FORM, { type: 'ui.toast', payload: { level: 'info', text: 'Change anything you like, then save. Your changes are kept as you go.' } }],
});

let fake: FakeOllama;
let server: ServeHandle;
let dir: string;
const errors: string[] = [];
let sentAt: number[] = [];
beforeAll(async () => {
  fake = await startFakeOllama(() => ({ kind: 'stream', pieces: piecesOf(ANSWER, 6), paceMs: 20, onPiece: (_i, at) => sentAt.push(at) }));
  dir = mkdtempSync(join(tmpdir(), 'surfacer-a2a-stream-'));
  const logger: Logger = { info() {}, warn() {}, error(message, fields) { errors.push(`${message} ${JSON.stringify(fields ?? {})}`); } };
  server = await startServe({
    port: 0, hostname: '127.0.0.1', planner: 'ollama', dataDir: dir, logger, fsync: false,
    env: { SURFACER_SESSION_SECRET: 'a-long-enough-secret-for-tests', OLLAMA_HOST: fake.host, SURFACER_OLLAMA_MODEL: 'm', SURFACER_TOOL_MAX_STEPS: '0' },
  });
});
afterAll(async () => {
  await server.close(1000);
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

async function nativeV09(cid: string) {
  const { bridges } = server.a2ui.wire('0.9');
  expect(await bridges.prepare(cid)).toBe(true);
  const sim = createClientSimV09();
  expect(sim.applyAll(bridges.snapshot(cid)).filter((v) => v.severity === 'error')).toEqual([]);
  return sim;
}

async function timed(stream: AsyncGenerator<StreamResponse>): Promise<Array<{ event: StreamResponse; at: number }>> {
  const out: Array<{ event: StreamResponse; at: number }> = [];
  for await (const event of stream) out.push({ event, at: performance.now() });
  return out;
}

describe('message/stream of a streamed turn', () => {
  for (const legacy of [false, true]) {
    it(`${legacy ? 'v0.3' : 'v1.0'}: the words as answer-artifact chunks long before the end, the form in a working status before the model's last piece`, async () => {
      sentAt = [];
      const client = await a2aClient(server.url, { legacy });
      const events = await timed(client.sendMessageStream({ tenant: '', message: userMessage([text('set up my persona')], { metadata: CAPS_V09 }), configuration: undefined, metadata: undefined }));
      const lastPiece = sentAt.at(-1)!;
      expect(sentAt.length).toBe(piecesOf(ANSWER, 6).length);
      expect(events[0]!.event.payload?.$case).toBe('task');
      const final = events.at(-1)!;
      expect(final.event.payload?.$case).toBe('statusUpdate');
      const completed = final.event.payload!.value as TaskStatusUpdateEvent;
      expect(completed.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(textOf(completed.status?.message)).toBe(TEXT);

      // The words: several chunks of one artifact, appended, the last one marked, together the answer's text.
      const chunks = events.filter((e) => e.event.payload?.$case === 'artifactUpdate').map((e) => ({ ...e, update: e.event.payload!.value as TaskArtifactUpdateEvent }));
      expect(chunks.length).toBeGreaterThan(3);
      expect(new Set(chunks.map((c) => c.update.artifact?.artifactId)).size).toBe(1);
      expect(chunks.map((c) => c.update.append)).toEqual([false, ...chunks.slice(1).map(() => true)]);
      expect(chunks.map((c) => c.update.lastChunk)).toEqual([...chunks.slice(1).map(() => false), true]);
      expect(chunks.map((c) => textOf({ parts: c.update.artifact!.parts } as never)).join('')).toBe(TEXT);
      expect(chunks[0]!.at).toBeLessThan(lastPiece);
      expect(final.at - chunks[0]!.at).toBeGreaterThan(200);

      // The UI as it is applied: a working status carrying the form, before the model's last piece.
      const working = events.filter((e) => e.event.payload?.$case === 'statusUpdate'
        && (e.event.payload.value as TaskStatusUpdateEvent).status?.state === TaskState.TASK_STATE_WORKING
        && a2uiOf((e.event.payload.value as TaskStatusUpdateEvent).status?.message).messages.length > 0);
      expect(working.length).toBeGreaterThan(0);
      expect(working[0]!.at).toBeLessThan(lastPiece);
      expect(working[0]!.at).toBeLessThan(chunks.at(-1)!.at);

      // Every A2UI message received, in order, through the official processor and ClientSim: the native state.
      const received = [...working, final].flatMap((e) => a2uiOf((e.event.payload!.value as TaskStatusUpdateEvent).status?.message).messages);
      const run = runBothV09(received);
      expect(run.refused.map((i) => `${i}: ${run.reasons.get(i)}`)).toEqual([]);
      expect(errorIndexes(run.violations)).toEqual([]);
      expectSameStateV09(run.sim, run.oracle);
      expect(wireState09(run.sim)).toEqual(wireState09(await nativeV09(completed.contextId)));
      expect(errors).toEqual([]);
    });
  }

  it('v1.0 with A2UI v0.8: the form in a working status before the model\'s last piece, one message a part, the native v0.8 state', async () => {
    sentAt = [];
    const client = await a2aClient(server.url);
    const events = await timed(client.sendMessageStream({ tenant: '', message: userMessage([text('set up my persona')], { metadata: CAPS_V08 }), configuration: undefined, metadata: undefined }));
    const lastPiece = sentAt.at(-1)!;
    const statuses = events.filter((e) => e.event.payload?.$case === 'statusUpdate').map((e) => ({ at: e.at, update: e.event.payload!.value as TaskStatusUpdateEvent }));
    const completed = statuses.at(-1)!.update;
    expect(completed.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const working = statuses.filter((s) => s.update.status?.state === TaskState.TASK_STATE_WORKING && a2uiOf(s.update.status?.message).messages.length > 0);
    expect(working.length).toBeGreaterThan(0);
    expect(working[0]!.at).toBeLessThan(lastPiece);
    const first = a2uiOf(working[0]!.update.status?.message);
    expect(first.mimes.length).toBe(first.messages.length);
    expect(events.filter((e) => e.event.payload?.$case === 'artifactUpdate').length).toBeGreaterThan(3);
    const received = [...working.map((w) => w.update), completed].flatMap((u) => a2uiOf(u.status?.message).messages);
    const run = runBoth(received);
    expect(run.wc.threw).toEqual([]);
    expect(errorsOf(run.violations)).toEqual([]);
    expectSameState(run.sim, run.wc);
    const { bridges } = server.a2ui.wire('0.8');
    expect(await bridges.prepare(completed.contextId)).toBe(true);
    const native = createClientSim();
    expect(errorsOf(native.applyAll(bridges.snapshot(completed.contextId)))).toEqual([]);
    expect(wireState08(run.sim)).toEqual(wireState08(native));
    expect(errors).toEqual([]);
  });

  it('message/send of a streamed turn: unchanged, nothing forwarded before the answer (no artifact)', async () => {
    const client = await a2aClient(server.url);
    const task: Task = await sendTask(client, userMessage([text('set up my persona')], { metadata: CAPS_V09 }));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(task.status?.message)).toBe(TEXT);
    expect(task.artifacts).toEqual([]);
    const run = runBothV09(a2uiOf(task.status?.message).messages);
    expect(run.refused).toEqual([]);
    expect(wireState09(run.sim)).toEqual(wireState09(await nativeV09(task.contextId)));
    expect(errors).toEqual([]);
  });
});
