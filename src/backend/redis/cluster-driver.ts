import { createRequire } from 'node:module';
import { createCluster } from 'redis';
import { createClient } from 'redis';
import { createDurablePool, type DriverOptions, type DurablePool, type RedisClient, type RedisDriver } from './driver.ts';

type RedisCluster = ReturnType<typeof createCluster>;

/** node-redis's own key → slot (hash tags included): our stall bookkeeping routes as its commands do. */
const calculateSlot = (createRequire(import.meta.url)('@redis/client/dist/lib/utils/calculate-slot.js') as { default: (key: string) => number }).default;

/** Pause before trying the seeds again when none answered at start-up. */
const CONNECT_RETRY_MS = 500;
/**
 * After a node's connection is lost, how soon the topology is read again (default 5 s): a
 * failover promotes a replica after cluster-node-timeout, and until the client learns it every
 * request for that shard answers 503.
 */
const TOPOLOGY_REFRESH_MS = 200;
/**
 * Longest pause between reconnects to a node. The topology is read again only on a reconnect
 * attempt: a short pause makes the client learn of a promotion soon after it happens, before
 * the failed primary can be back (then briefly still believing it serves its old slots, with
 * its old data, until the cluster tells it otherwise).
 */
const MAX_NODE_RECONNECT_MS = 500;
/**
 * A sharded subscription moved to a new primary is re-sent after that primary's connection is
 * ready, so a catch-up run at 'ready' may read before it takes effect: look once more after this.
 */
const LATE_CATCH_UP_MS = 1_000;
/** A sharded re-subscription node-redis sent while the channel's slot had no primary: tried again this often, this many times (a failover's span). */
const RESUBSCRIBE_RETRY_MS = 250;
const RESUBSCRIBE_ATTEMPTS = 120;

/**
 * Redis Cluster through node-redis's cluster client: every command goes to the primary of its
 * first key's slot, MOVED (slot moved, failover) and ASK (slot moving) are followed by the
 * client, and change notices use sharded pub/sub (SSUBSCRIBE on the shard of the channel's slot,
 * moved with the slot). Turn cancels use classic pub/sub, which a cluster broadcasts.
 */
export function createClusterDriver(seeds: string[], options: DriverOptions): RedisDriver {
  const seed = new URL(seeds[0]!);
  const nodeSocket = { connectTimeout: 2_000, reconnectStrategy: (attempt: number) => Math.min(options.reconnectDelay(attempt), MAX_NODE_RECONNECT_MS) };
  const cluster: RedisCluster = createCluster({
    rootNodes: seeds.map((url) => ({ url })),
    defaults: {
      disableOfflineQueue: true,
      // Every node the cluster names (not only the seeds) is reached the way the seeds are.
      socket: { ...nodeSocket, ...(seed.protocol === 'rediss:' ? { tls: true as const } : {}) },
      // Credentials of the seeds hold for every node (ACL users are per node in a cluster, set alike).
      ...(seed.username ? { username: decodeURIComponent(seed.username) } : {}),
      ...(seed.password ? { password: decodeURIComponent(seed.password) } : {}),
    },
    topologyRefreshOnReconnectionAttemptStrategy: TOPOLOGY_REFRESH_MS,
  });
  /** A client of its own to one node, reached the way the seeds are. */
  const clientAt = (host: string, port: number, socket: { connectTimeout: number; reconnectStrategy: false | ((attempt: number) => number) }): RedisClient => createClient({
    disableOfflineQueue: true,
    socket: { ...socket, host, port, ...(seed.protocol === 'rediss:' ? { tls: true as const } : {}) },
    ...(seed.username ? { username: decodeURIComponent(seed.username) } : {}),
    ...(seed.password ? { password: decodeURIComponent(seed.password) } : {}),
  }) as RedisClient;
  const errors = new Set<(error: Error) => void>();
  const readies = new Set<(first: boolean) => void>();
  const resubscribed = new Set<() => void>();
  const error = (e: unknown): void => { for (const l of errors) l(e instanceof Error ? e : new Error(String(e))); };
  cluster.on('error', error);
  cluster.on('node-error', error);
  cluster.on('sharded-channel-moved-error', error);
  let connected = false;
  let destroyed = false;
  cluster.on('node-ready', () => {
    if (!connected) return;
    for (const l of readies) l(false);
    for (const l of resubscribed) l();
    setTimeout(() => { if (!destroyed) for (const l of resubscribed) l(); }, LATE_CATCH_UP_MS).unref();
  });
  let firstReady: Promise<void> | undefined;
  /** Durable-write connections per primary address; those of former primaries are dropped as the topology changes. */
  const pools = new Map<string, DurablePool>();
  const dropFormerPrimaries = (): void => {
    const current = new Set(cluster.masters.map((m) => `${m.host}:${m.port}`));
    for (const [address, pool] of pools) {
      if (!current.has(address)) { pool.destroy(); pools.delete(address); }
    }
  };
  cluster.on('node-ready', () => { if (connected) dropFormerPrimaries(); });

  // node-redis (6.3.1) re-sends the sharded subscriptions of a node that left the topology by
  // calling `this.sSubscribe(...)` and dropping the promise. During a failover the channel's slot
  // may have no primary yet: that call rejects, nobody handles it, and Node's default for an
  // unhandled rejection ends the process. The instance's sSubscribe, the one it calls, is
  // guarded: a failure is reported as an error and tried again until the slot has a primary
  // (then the catch-up listeners run, as after any re-subscription). Our own subscribe calls the
  // unguarded one, so its caller still hears a failure.
  const sSubscribe = cluster.sSubscribe.bind(cluster) as (channel: string, listener: unknown, bufferMode?: boolean) => Promise<void>;
  const resubscribe = (channel: string, listener: unknown, bufferMode: boolean | undefined, attempt: number): Promise<void> => {
    const sent = sSubscribe(channel, listener, bufferMode);
    sent.then(() => { if (attempt > 0) for (const l of resubscribed) l(); }, (e: unknown) => {
      error(e);
      if (destroyed || attempt >= RESUBSCRIBE_ATTEMPTS) return;
      setTimeout(() => { if (!destroyed) void resubscribe(channel, listener, bufferMode, attempt + 1); }, RESUBSCRIBE_RETRY_MS).unref();
    });
    return sent;
  };
  type Subscribing = { sSubscribe: (channel: string, listener: unknown, bufferMode?: boolean) => Promise<void> };
  const guarded: Subscribing['sSubscribe'] = (channel, listener, bufferMode) => resubscribe(channel, listener, bufferMode, 0);
  // createCluster returns an object whose prototype is the cluster instance (`_self`), and the
  // re-subscription runs bound to that instance: the guard goes on both.
  for (const target of new Set([cluster, (cluster as unknown as { _self?: object })._self ?? cluster])) (target as Subscribing).sSubscribe = guarded;

  return {
    cluster: true,
    commands: cluster,
    isReady: () => connected && cluster.isReady,
    connect() {
      firstReady ??= (async () => {
        while (!destroyed) {
          try {
            await cluster.connect();
            connected = true;
            for (const l of readies) l(true);
            return;
          } catch (e) {
            error(e);
            await new Promise((resolve) => setTimeout(resolve, CONNECT_RETRY_MS).unref());
          }
        }
      })();
      return firstReady;
    },
    onError: (l) => { errors.add(l); },
    onReady: (l) => { readies.add(l); },
    onResubscribed: (l) => { resubscribed.add(l); },
    async durableFor(key) {
      const primary = await cluster.getNodeClientForKey(key);
      const { host, port } = primary.options?.socket as { host: string; port: number };
      const address = `${host}:${port}`;
      let pool = pools.get(address);
      if (pool === undefined) {
        pool = createDurablePool(() => clientAt(host, port, nodeSocket), (error) => { for (const l of errors) l(error); });
        pools.set(address, pool);
      }
      return pool.take();
    },
    async refreshTopology(unanswering) {
      // node-redis rereads the topology by itself only when a node errors or redirects; a silent
      // one does neither. Its slots' own rediscovery, from the nodes that answer.
      await (cluster as unknown as { _slots: { rediscover(startWith: undefined, excluded: ReadonlySet<string>): Promise<void> } })
        ._slots.rediscover(undefined, unanswering);
      dropFormerPrimaries();
      return new Set(cluster.masters.map((m) => m.address));
    },
    nodeOf(key) {
      if (key === undefined || !connected) return '';
      return cluster.slots[calculateSlot(key)]?.master.address ?? '';
    },
    async relocate(key) {
      // Any command for the key through the cluster client: on MOVED it re-reads the slots.
      await cluster.exists(key);
    },
    primaries: () => Promise.all(cluster.masters.map((m) => cluster.nodeClient(m) as Promise<RedisClient>)),
    probeClient(host, port, connectTimeoutMs) {
      return clientAt(host, port, { connectTimeout: connectTimeoutMs, reconnectStrategy: false });
    },
    async subscriber(kind) {
      await firstReady;
      return kind === 'sharded'
        ? { subscribe: (c, l) => sSubscribe(c, l), unsubscribe: (c, l) => cluster.sUnsubscribe<false>(c, l) }
        : { subscribe: (c, l) => cluster.subscribe<false>(c, l), unsubscribe: (c, l) => cluster.unsubscribe<false>(c, l as Parameters<RedisCluster['unsubscribe']>[1]) };
    },
    destroy() {
      destroyed = true;
      for (const pool of pools.values()) pool.destroy();
      pools.clear();
      try { cluster.destroy(); } catch { /* not connected */ }
    },
  };
}
