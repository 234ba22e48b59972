import { TaskState } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClientSimV09 } from '../../src/clientsim/index.ts';
import { findSurface } from '../../src/ui-ir/index.ts';
import { errorIndexes, expectSameStateV09, runBothV09 } from '../clientsim/v0_9/compare.ts';
import { CHARACTER, fillAndSubmitV09, startE2e, type E2eServer } from '../e2e/support/stack.ts';
import { wireState09 } from '../support/a2ui-equivalence.ts';
import { startRedis, type TestRedis } from '../support/redis-server.ts';
import { a2aClient, a2uiData, a2uiOf, CAPS_V09, errorOf, sendTask, text, userMessage } from './support.ts';

/*
 * One conversation, any instance (issue 19 item 4, A2A): two instances over one real Redis. A
 * turn on one, its submit on the other, the retry of that message back on the first: applied
 * once; the A2A client ends where a fresh native v0.9 client of either instance starts.
 */
let redis: TestRedis;
let one: E2eServer;
let two: E2eServer;
beforeAll(async () => {
  redis = await startRedis();
  const options = { redis: { url: redis.url, prefix: `a2a-${Date.now()}:` } };
  one = await startE2e({}, options);
  two = await startE2e({}, options);
});
afterAll(async () => {
  await one?.close();
  await two?.close();
  await redis?.stop();
});

describe('A2A across instances (Redis)', () => {
  it('turn on one instance, submit on the other, its retry on the first: applied once, all agree', async () => {
    const first = await a2aClient(one.url);
    const second = await a2aClient(two.url);
    const task = await sendTask(first, userMessage([text('create a character card')], { metadata: CAPS_V09 }));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const cid = task.contextId;
    const received = [...a2uiOf(task.status?.message).messages];
    const sim = createClientSimV09();
    sim.applyAll(received);
    const action = fillAndSubmitV09(sim, 'main--e0', CHARACTER);

    const message = userMessage([a2uiData([action])], { contextId: cid, metadata: CAPS_V09, messageId: 'submit-across' });
    const applied = await sendTask(second, message);
    expect(applied.status?.state, JSON.stringify(errorOf(applied))).toBe(TaskState.TASK_STATE_COMPLETED);
    received.push(...a2uiOf(applied.status?.message).messages);
    const version = (await two.handle.conversations.get(cid))!.version;

    const retried = await sendTask(first, { ...message });
    expect(retried.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect((await one.handle.conversations.get(cid))!.version).toBe(version);
    const committed = findSurface((await one.handle.conversations.get(cid))!.ir, 'main')!.data.committed as { name?: unknown };
    expect(committed.name).toBe(CHARACTER.name);
    received.push(...a2uiOf(retried.status?.message).messages);

    const run = runBothV09(received);
    expect(run.refused).toEqual([]);
    expect(errorIndexes(run.violations)).toEqual([]);
    expectSameStateV09(run.sim, run.oracle);
    for (const s of [one, two]) {
      const { bridges } = s.handle.a2ui.wire('0.9');
      expect(await bridges.prepare(cid)).toBe(true);
      const fresh = createClientSimV09();
      fresh.applyAll(bridges.snapshot(cid));
      expect(wireState09(run.sim)).toEqual(wireState09(fresh));
    }
    expect([...one.errors, ...two.errors]).toEqual([]);
  });
});
