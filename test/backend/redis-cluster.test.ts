import { describe, expect, it } from 'vitest';
import type { Backend } from '../../src/backend/index.ts';
import { redisKeys } from '../../src/backend/redis/keys.ts';
import { irHash, type ConversationEvent, type ConversationService } from '../../src/conversation/index.ts';
import { createFakePlanner } from '../conversation/fixtures/demo-app.ts';
import { formAction } from '../conversation/fixtures/service.ts';
import { startRedisCluster } from '../support/redis-cluster.ts';
import { redisForTestFile } from '../support/redis-server.ts';
import { redisInstances, type InstanceOptions } from './support.ts';

/*
 * The Redis backend in cluster mode on a local 6-node Redis Cluster: several services ("instances",
 * each its own cluster client) share conversations whose keys sit on one shard each, change notices
 * travel by sharded pub/sub, cancels by broadcast pub/sub, and appends wait for a replica.
 */
const CARD = { name: 'Aria', personality: 'Brave and kind.' };
// Seeds as an operator gives them (every node's URL): several URLs select cluster mode.
const r = redisInstances(redisForTestFile(startRedisCluster));
const instance = (prefix: string, options: Omit<InstanceOptions, 'prefix'> = {}): { service: ConversationService; backend: Backend } => r.instance({ prefix, ...options });

describe('conversation service on a Redis Cluster, several instances', () => {
  it('one conversation driven through two instances: the same state on both, notices across instances, replays and stale submits as on one Redis', async () => {
    const a = instance('alt:').service;
    const b = instance('alt:').service;
    const c = await a.create('owner');
    const seen: ConversationEvent[] = [];
    await b.get(c.id);
    const off = b.subscribe(c.id, (e) => seen.push(e));
    const turn = await b.runTurn(c.id, 'create a character card named Aria');
    if (!turn.ok) throw new Error(turn.error.message);
    const onA = (await a.get(c.id))!;
    expect(irHash(onA.ir)).toBe(irHash(turn.next));
    const submit = formAction(onA.ir, 'main', CARD, { idempotencyKey: 'k1' });
    expect(await a.applyAction(c.id, submit)).toMatchObject({ ok: true, replayed: false });
    expect(await b.applyAction(c.id, submit)).toMatchObject({ ok: true, replayed: true });
    expect(await b.applyAction(c.id, formAction(onA.ir, 'main', CARD, { idempotencyKey: 'k2' }))).toMatchObject({ ok: false, status: 409 });
    // The action applied on A reached B's listener through the shard's sharded channel.
    await expect.poll(() => seen.map((e) => e.version)).toEqual([2, 3]);
    off();
    expect(irHash((await b.get(c.id))!.ir)).toBe(irHash((await a.get(c.id))!.ir));
    expect(await b.countOwnedBy('owner')).toBe(1);
  });

  it('conversations spread over the shards; each one\'s keys share its slot', async () => {
    const a = instance('spread:').service;
    const primaries = new Set<number>();
    const keys = redisKeys('spread:', { cluster: true });
    for (let i = 0; i < 9; i += 1) {
      const c = await a.create('owner');
      const slot = await r.redis().slotOf(keys.log(c.id));
      expect(await r.redis().slotOf(keys.turn(c.id))).toBe(slot);
      expect(await r.redis().slotOf(keys.channel(c.id))).toBe(slot);
      primaries.add((await r.redis().primaryFor(keys.log(c.id))).port);
    }
    expect(primaries.size).toBeGreaterThanOrEqual(2);
    expect(await a.countOwnedBy('owner')).toBe(9);
  });

  it('a turn running on one instance is cancelled from another (broadcast channel), and the waiting turn then runs', async () => {
    const a = instance('turn:', { planner: createFakePlanner({ delayMs: 60_000 }) }).service;
    const b = instance('turn:').service;
    const c = await a.create('owner');
    const running = a.runTurn(c.id, 'create a character card');
    await expect.poll(async () => (await b.get(c.id))!.busy).toBe(true);
    const waiting = b.runTurn(c.id, 'create a character card');
    expect(await b.cancelTurn(c.id)).toBe(true);
    expect(await running).toMatchObject({ ok: true, outcome: 'cancelled' });
    expect(await waiting).toMatchObject({ ok: true, outcome: 'applied' });
  });

  it('records, rate limits and idempotency keys work across shards', async () => {
    const { backend } = instance('misc:');
    const records = backend.records('cards', (v) => v as { id: number; owner: string });
    const saved = await Promise.all(['o1', 'o2', 'o3', 'o4'].map((owner) => records.save(owner, `k-${owner}`, (n) => ({ id: n, owner }))));
    expect(new Set(saved.map((r) => r.id)).size).toBe(4);
    expect(await records.save('o1', 'k-o1', (n) => ({ id: n, owner: 'again' }))).toEqual(saved[0]);
    expect(await records.list('o2')).toEqual([saved[1]]);
    const limiter = backend.rateLimiter('r', { perMinute: 1, burst: 2 });
    expect([await limiter.take('x'), await limiter.take('x'), await limiter.take('x')]).toEqual([true, true, false]);
    const idem = backend.idempotency<{ n: number }>('i', { ttlMs: 60_000 });
    await idem.set('q', { n: 1 });
    await idem.set('q', { n: 2 });
    expect(await idem.get('q')).toEqual({ n: 1 });
  });

  it('an append waits for a replica of its shard: with that replica paused it fails as unavailable, never a silent success', async () => {
    const { service } = instance('ack:', { backend: { ackTimeoutMs: 300 } });
    const c = await service.create('owner');
    const keys = redisKeys('ack:', { cluster: true });
    const primary = await r.redis().primaryFor(keys.log(c.id));
    const replicaPort = Number(/^slave0:ip=[^,]+,port=(\d+)/m.exec(String(await r.redis().command(primary, ['INFO', 'replication'])))![1]);
    const replica = r.redis().nodes.find((n) => n.port === replicaPort)!;
    replica.pause();
    try {
      const failed = await service.runTurn(c.id, 'create a character card');
      expect(failed).toMatchObject({ ok: false, error: { code: 'STORE_UNAVAILABLE', retryable: true } });
      // Written on the primary all the same (not undone): the retry below runs on top of it.
      expect(Number(await r.redis().command(primary, ['XLEN', keys.log(c.id)]))).toBeGreaterThan(1);
    } finally {
      replica.resume();
    }
    await r.redis().waitHealthy();
    expect(await service.runTurn(c.id, 'create a character card')).toMatchObject({ ok: true });
  });

  it('a conversation whose slot moves to another shard: a listener on another instance gets the change made right after the move, with nothing after it to wake it', async () => {
    const a = instance('move:').service;
    const b = instance('move:').service;
    const keys = redisKeys('move:', { cluster: true });
    const c = await a.create('owner');
    await b.get(c.id);
    const seen: number[] = [];
    const off = b.subscribe(c.id, (e) => seen.push(e.version));
    try {
      const primaries = [];
      for (const node of r.redis().nodes) {
        if (/^role:master/m.test(String(await r.redis().command(node, ['INFO', 'replication'])))) primaries.push(node);
      }
      const slot = await r.redis().slotOf(keys.log(c.id));
      const home = await r.redis().primaryFor(keys.log(c.id));
      for (const to of [...primaries.filter((p) => p !== home), home]) {
        await r.redis().moveSlot(slot, to);
        const turn = await a.runTurn(c.id, 'create a character card');
        if (!turn.ok) throw new Error(turn.error.message);
        const version = (await a.get(c.id))!.version;
        await expect.poll(() => seen.at(-1), { timeout: 5_000 }).toBe(version);
      }
    } finally {
      off();
    }
  });

  it('one primary stalls (SIGSTOP): the other shards keep being served by the same instance, and once the cluster promotes its replica the instance goes there', async () => {
    const { service } = instance('stall:', { seed: 'stall', backend: { commandTimeoutMs: 300 } });
    const keys = redisKeys('stall:', { cluster: true });
    // Two conversations on two different shards.
    const first = await service.create('owner');
    let other = await service.create('owner');
    const firstHome = await r.redis().primaryFor(keys.log(first.id));
    while (await r.redis().primaryFor(keys.log(other.id)) === firstHome) other = await service.create('owner');
    firstHome.pause();
    try {
      const blocked = await service.runTurn(first.id, 'create a character card');
      expect(blocked).toMatchObject({ ok: false, error: { code: 'STORE_UNAVAILABLE' } });
      // From then on that node's commands fail at once, not sent, and say which node.
      const again = await service.runTurn(first.id, 'create a character card');
      expect(again.ok ? '' : again.error.technical_detail).toContain(`(stalled: 127.0.0.1:${firstHome.port})`);
      const served = await service.runTurn(other.id, 'create a character card');
      expect(served).toMatchObject({ ok: true });
      expect((await service.get(other.id))?.version).toBe(2);
      // The cluster promotes the silent primary's replica: the instance learns it (a silent node
      // never errors or redirects, so it reads the topology again from the others) and reads the
      // conversation there.
      await expect.poll(async () => (await service.get(first.id).catch(() => undefined))?.version, { timeout: 20_000, interval: 200 }).toBe(1);
      // Sent to the new primary (no longer refused as stalled). It has no replica yet: with the
      // default ack mode the append is acknowledged on it alone (issue 34; strict mode refuses it:
      // test/backend/redis-replica-loss.test.ts).
      const unreplicated = await service.runTurn(first.id, 'create a character card');
      expect(unreplicated).toMatchObject({ ok: true, outcome: 'applied' });
    } finally {
      firstHome.resume();
    }
    // The old primary comes back as a replica; the cluster is whole again for the tests after.
    // (Asked only now: the harness could put the question to the silent node.)
    await r.redis().waitHealthy();
    expect(await r.redis().primaryFor(keys.log(first.id))).not.toBe(firstHome);
  }, 60_000);
});
