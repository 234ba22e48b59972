import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisKeys } from '../../src/backend/redis/keys.ts';
import { startE2e, type E2eServer } from '../e2e/support/stack.ts';
import { CLUSTER_NODE_TIMEOUT_MS } from '../support/redis-cluster.ts';
import { startOnRedisCluster, type SessionClient } from './support/cluster.ts';
import { clusterSuite } from './support/cluster-suite.ts';
import { actionKeyCounts, readRedisLog, submittedRev } from './support/redis-log.ts';
import { current, loadFigures, matchesSnapshot, startLoadUsers, startSubmitLoad, type LoadUser } from './support/submit-load.ts';
import { characterAction } from './support/user.ts';

/*
 * Issue 34, item 2: a shard that lost its only replica keeps taking writes. Three primaries,
 * three replicas (cluster-node-timeout 1 s, AOF always), two instances with the default ack
 * mode under submit load: the primary holding the busy conversation is SIGKILLed and NOT
 * replaced. Its replica is promoted and has no replica of its own; the default
 * (`SURFACER_REDIS_ACK_MODE` available, `SURFACER_REDIS_ACK_REPLICAS` 1) acknowledges its
 * appends on that primary alone, so the conversation takes writes again within the promotion
 * time plus a few seconds, and every acknowledged submission is in the log exactly once. A third
 * instance with `SURFACER_REDIS_ACK_MODE=strict` refuses the same conversation's writes (503 with
 * Retry-After) for as long as the shard has no replica, and what it refused is not in the log.
 */
const USERS = 2;
const PREFIX = 'scale-rloss:';
/** "A few seconds" past the promotion for the conversation to be acknowledged again. */
const RECOVERY_AFTER_PROMOTION_MS = 5_000;

const suite = clusterSuite(() => startOnRedisCluster(2, PREFIX));
let strict: E2eServer;
beforeAll(async () => {
  strict = await startE2e({}, { redis: { url: suite.cluster.redis.url, prefix: PREFIX }, env: { SURFACER_REDIS_ACK_MODE: 'strict' } });
});
// Registered after the suite's: runs before it stops the cluster.
afterAll(async () => { await strict?.close(); });

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('Redis Cluster: the primary of a busy conversation SIGKILLed and not replaced', () => {
  it('its shard, promoted without a replica, takes writes again within the promotion time and a few seconds; strict instances refuse them; every acknowledged submission once', async () => {
    const instances = suite.cluster.instances as [E2eServer, E2eServer];
    const clients = suite.cluster.clients as [SessionClient, SessionClient];
    const redis = suite.cluster.redis;
    const keys = redisKeys(PREFIX, { cluster: true });
    const users: LoadUser[] = await startLoadUsers(instances, clients, USERS, suite.streams);
    const busy = users[0]!;
    const load = startSubmitLoad(users, instances, clients, {
      staleAfterLoss: async (u) => submittedRev(await readRedisLog(redis.url, PREFIX, u.c.cid), 'main'),
    });
    let promotedMs = 0;
    let recoveredMs = 0;
    await load.during(async () => {
      await sleep(800);
      const victim = await redis.primaryFor(keys.log(busy.c.cid));
      const killedAt = performance.now();
      await victim.kill();
      await redis.promotedOver(victim, keys.log(busy.c.cid));
      promotedMs = performance.now() - killedAt;
      for (;;) {
        if (load.acks.some((a) => a.user === 0 && a.at > killedAt + promotedMs)) break;
        if (load.unexpected.length > 0) break;
        if (performance.now() - killedAt > promotedMs + 30_000) throw new Error('the busy conversation did not take writes again within 30 s of the promotion');
        await sleep(20);
      }
      recoveredMs = performance.now() - killedAt;
      // Still without a replica: writes keep being acknowledged.
      const ackedBefore = load.acks.filter((a) => a.user === 0).length;
      await sleep(1_500);
      expect(load.acks.filter((a) => a.user === 0).length).toBeGreaterThan(ackedBefore);
    });
    expect(load.unexpected).toEqual([]);
    expect(recoveredMs).toBeLessThanOrEqual(promotedMs + RECOVERY_AFTER_PROMOTION_MS);

    // The strict instance refuses the busy conversation's writes while its shard has no replica.
    await current(instances, busy);
    const action = characterAction(busy.follower.sim, { name: 'Strictly', personality: 'Refused, then kept.' });
    const strictClient = suite.cluster.clientFor(strict.url, 'strict');
    for (let i = 0; i < 3; i += 1) {
      const refused = await strictClient.a2uiEvent(busy.c, action, 'strict-1');
      expect(refused.status, JSON.stringify(refused.body)).toBe(503);
      expect(refused.headers.get('Retry-After')).not.toBeNull();
    }
    // The same submission through a default instance: applied, once.
    const kept = await clients[0].a2uiEvent(busy.c, action, 'strict-1');
    expect(kept.status, JSON.stringify(kept.body)).toBe(200);

    for (const [j, u] of users.entries()) {
      const entries = await readRedisLog(redis.url, PREFIX, u.c.cid);
      expect(u.submissions.every((s) => s.acked || s.stale), `user ${j}`).toBe(true);
      const expected = u.submissions.filter((s) => s.acked).map((s) => [s.key, 1] as const);
      if (u === busy) expected.push(['strict-1', 1]);
      expect(Object.fromEntries(actionKeyCounts(entries)), `user ${j}`).toEqual(Object.fromEntries(expected));
      const { held, fresh } = await matchesSnapshot(instances, u);
      expect(held, `user ${j}`).toEqual(fresh);
    }
    console.log([
      `cluster replica loss: the busy conversation's primary killed, not replaced (cluster-node-timeout ${CLUSTER_NODE_TIMEOUT_MS} ms)`,
      ...loadFigures(users),
      `  replica promoted after ${Math.round(promotedMs)} ms; writes acknowledged again after ${Math.round(recoveredMs)} ms`,
    ].join('\n'));
    expect(suite.cluster.traffic.serverErrors((a) => a.status === 503)).toEqual([]);
    for (const s of instances) expect(s.errors).toEqual([]);
  }, 120_000);
});
