import { TaskState } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDemoApp } from '../../src/app/index.ts';
import { createRedisBackend } from '../../src/backend/index.ts';
import { a2aClient, sendTask, text, textOf, userMessage } from '../host-a2a/support.ts';
import { pausingPlanner } from '../support/pausing-planner.ts';
import { startRedis, type TestRedis } from '../support/redis-server.ts';
import { AguiClient, startAgui, TOKEN_A, types, type AguiStack } from './support.ts';

/*
 * Issue 34 item 3: a message resent to another instance while its turn runs there. Two instances
 * on one Redis, a planner that takes 800 ms, the same AG-UI run (same history, same message id)
 * sent to the second instance 150 ms after the first; likewise an A2A message/send with the same
 * messageId and contextId. The message runs once: one user entry, one answer; the resend waits for
 * the running turn and answers with the conversation as it is then.
 */
const PLANNING_MS = 800;
const RESEND_AFTER_MS = 150;

let redis: TestRedis;
const instances: AguiStack[] = [];
beforeAll(async () => {
  redis = await startRedis();
  for (let i = 0; i < 2; i += 1) {
    instances.push(await startAgui({ app: createDemoApp(), planner: pausingPlanner(PLANNING_MS), backend: createRedisBackend({ url: redis.url, prefix: 'resend-test:' }) }));
  }
}, 60_000);
afterAll(async () => {
  for (const s of instances) await s.close();
  await redis?.stop();
});

const wait = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('a message resent to another instance while it runs', () => {
  it('AG-UI: the same run on both instances, 150 ms apart: one turn, one user entry, one answer', async () => {
    const [one, two] = instances as [AguiStack, AguiStack];
    const a = new AguiClient(one.url, TOKEN_A);
    a.say('create a character card', 'm-1');
    const first = a.run();
    await wait(RESEND_AFTER_MS);
    const b = new AguiClient(two.url, TOKEN_A, a.threadId);
    b.say('create a character card', 'm-1');
    const [ran, resent] = await Promise.all([first, b.run()]);
    expect(ran.error).toBeUndefined();
    expect(resent.error).toBeUndefined();
    // Whichever reached the turn gate first ran the message (usually the first; on a loaded
    // machine the resend may get there first). The other ran nothing: no text of its own, the UI
    // as it is, and a finished run.
    const [answered, followed] = types(ran.events).includes('TEXT_MESSAGE_CONTENT') ? [ran, resent] : [resent, ran];
    expect(types(answered.events)).toContain('TEXT_MESSAGE_CONTENT');
    expect(types(followed.events)).toEqual(['RUN_STARTED', 'ACTIVITY_SNAPSHOT', 'RUN_FINISHED']);
    const conversation = (await two.surfacer.conversations.get(a.threadId))!;
    expect(conversation.turnCount).toBe(1);
    expect(conversation.ir.transcript.filter((e) => e.role === 'user').map((e) => e.text)).toEqual(['create a character card']);
    expect(conversation.ir.transcript.filter((e) => e.role === 'assistant')).toHaveLength(1);
    // A new message on the same thread still runs.
    b.say('ask me something', 'm-2');
    expect((await b.run()).error).toBeUndefined();
    expect((await one.surfacer.conversations.get(a.threadId))!.turnCount).toBe(2);
  }, 30_000);

  it('A2A: the same message/send (messageId, contextId) on both instances, 150 ms apart: one turn', async () => {
    const [one, two] = instances as [AguiStack, AguiStack];
    const clientOne = await a2aClient(one.url, { token: TOKEN_A });
    const clientTwo = await a2aClient(two.url, { token: TOKEN_A });
    const opening = await sendTask(clientOne, userMessage([text('hello')]));
    const cid = opening.contextId;
    const message = userMessage([text('create a character card')], { contextId: cid, messageId: `resend-${Date.now()}` });
    const first = sendTask(clientOne, message);
    await wait(RESEND_AFTER_MS);
    const [ran, resent] = await Promise.all([first, sendTask(clientTwo, { ...message })]);
    expect(ran.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(resent.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    // One of them (whichever reached the turn gate second) says it was answered already.
    expect([ran, resent].filter((task) => textOf(task.status?.message).includes('This message was answered already.'))).toHaveLength(1);
    const conversation = (await two.surfacer.conversations.get(cid))!;
    expect(conversation.turnCount).toBe(2);
    expect(conversation.ir.transcript.filter((e) => e.role === 'user' && e.text === 'create a character card')).toHaveLength(1);
  }, 30_000);
});
