import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisBackend } from '../../src/backend/index.ts';
import { findSurface } from '../../src/ui-ir/index.ts';
import { expectSameStateV09 } from '../clientsim/v0_9/compare.ts';
import { officialClick, officialInput } from '../support/a2ui-v0_9-oracle.ts';
import { startRedis, type TestRedis } from '../support/redis-server.ts';
import { AguiClient, startAgui, TOKEN_A, TOKEN_B, types, type AguiStack } from './support.ts';

/*
 * One AG-UI thread across two instances sharing a Redis (own connections each, as separate
 * processes have): a turn on one; the history sent again to the other starts no second turn
 * (the "already answered" record is shared); an action on the other is applied; the first
 * instance's client, still on the old surface, gets the stale code and is brought in step;
 * another principal gets 404 on either instance.
 */
let redis: TestRedis;
const instances: AguiStack[] = [];

beforeAll(async () => {
  redis = await startRedis();
  for (let i = 0; i < 2; i += 1) {
    instances.push(await startAgui({ backend: createRedisBackend({ url: redis.url, prefix: 'agui-test:' }) }));
  }
}, 60_000);
afterAll(async () => {
  for (const s of instances) await s.close();
  await redis?.stop();
});

function save(client: AguiClient, name: string): Record<string, unknown> {
  officialInput(client.oracle, 'main--e0', 'main.f-name.TextField', name);
  officialInput(client.oracle, 'main--e0', 'main.f-personality.TextField', 'Brave.');
  const clicked = officialClick(client.oracle, 'main--e0', 'main.a0-form_submit.Button');
  expect(clicked.ok, JSON.stringify(clicked)).toBe(true);
  return JSON.parse(JSON.stringify((clicked as { action: unknown }).action)) as Record<string, unknown>;
}

describe('AG-UI on two instances over Redis', () => {
  it('one thread, either instance: one turn, the action applied once, the stale client re-initialised', async () => {
    const [one, two] = instances as [AguiStack, AguiStack];
    const a = new AguiClient(one.url, TOKEN_A);
    a.say('create a character card', 'm-1');
    expect((await a.run()).error).toBeUndefined();

    // The same history to the other instance: no second turn.
    const b = new AguiClient(two.url, TOKEN_A, a.threadId);
    b.say('create a character card', 'm-1');
    const resent = await b.run();
    expect(types(resent.events)).toEqual(['RUN_STARTED', 'ACTIVITY_SNAPSHOT', 'RUN_FINISHED']);
    expect((await two.surfacer.conversations.get(a.threadId))!.turnCount).toBe(1);

    const saved = await b.run({ forwardedProps: { a2uiAction: { userAction: save(b, 'Cora') } } });
    expect(types(saved.events).at(-1)).toBe('RUN_FINISHED');
    await expect.poll(async () => findSurface((await one.surfacer.conversations.get(a.threadId))!.ir, 'main')!.data.committed.name).toBe('Cora');

    const stale = await a.run({ forwardedProps: { a2uiAction: { userAction: save(a, 'Late') } } });
    expect(types(stale.events)).toEqual(['RUN_STARTED', 'ACTIVITY_SNAPSHOT', 'RUN_ERROR']);
    expect(stale.events.at(-1)).toMatchObject({ code: 'A2UI_C2S_SURFACE_STALE' });
    for (const client of [a, b]) {
      expect(client.refused).toEqual([]);
      expect(client.violations).toEqual([]);
      expectSameStateV09(client.sim, client.oracle);
    }
    expect(a.sim.hashes()).toEqual(b.sim.hashes());
    expect(a.oracle.processor.model.getSurface('main--e0')!.dataModel.get('/committed/name')).toBe('Cora');

    for (const s of instances) {
      const response = await fetch(`${s.url}/ag-ui`, {
        method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${TOKEN_B}` },
        body: JSON.stringify({ threadId: a.threadId, runId: 'r-b', messages: [] }),
      });
      expect(response.status).toBe(404);
      await response.arrayBuffer();
    }
    for (const s of instances) expect(s.errors).toEqual([]);
  });
});
