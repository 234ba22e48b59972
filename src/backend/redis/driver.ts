import { ClientOfflineError, createClient } from 'redis';

export type RedisClient = ReturnType<typeof createClient>;

/**
 * The commands the backend sends through `RedisConnection.call`: the same methods on one
 * server's client and on a cluster client (which routes each by its first key's slot and follows
 * MOVED/ASK).
 */
export type RedisCommands = Pick<RedisClient,
  'get' | 'set' | 'xRange' | 'sCard' | 'sAdd' | 'hGet' | 'hmGet' | 'hSet' | 'lRange' | 'incr' | 'exists' | 'evalSha' | 'eval' | 'publish' | 'sPublish'>;

export type MessageListener = (message: string) => void;

export interface RedisSubscriber {
  subscribe(channel: string, listener: MessageListener): Promise<void>;
  unsubscribe(channel: string, listener: MessageListener): Promise<void>;
}

/**
 * How one deployment shape (one server, or a cluster) connects: the connection (connection.ts)
 * adds deadlines, stall detection, counts and durable writes on top, the same for both.
 */
export interface RedisDriver {
  readonly cluster: boolean;
  readonly commands: RedisCommands;
  /** Commands can be sent now (cluster: the topology is known; a node may still be down). */
  isReady(): boolean;
  /** Resolves once first ready; keeps trying by itself (start-up does not wait for Redis). */
  connect(): Promise<void>;
  /** Any connection lost or failing (called once per error; the connection logs one per outage). */
  onError(listener: (error: Error) => void): void;
  /** A connection carrying commands is (again) ready: `first` for the very first time. */
  onReady(listener: (first: boolean) => void): void;
  /** Subscriptions were re-established (after a reconnect or a failover): notices meanwhile were missed. */
  onResubscribed(listener: () => void): void;
  /**
   * A connection to the primary serving `key` (one server: the only one) for a durable write and
   * its WAIT (see DurablePool); `release` once both are answered.
   */
  durableFor(key: string): Promise<{ client: RedisClient; release(): void }>;
  /**
   * The node a command routed by `key` goes to now, as this client knows the topology (one
   * server: ''; a cluster: the primary's address, '' when unknown or without a key).
   */
  nodeOf(key: string | undefined): string;
  /**
   * Some nodes stopped answering (stalled, not disconnected: nothing makes the client look again):
   * read the topology again from the others, so slots a replica took over go there. Resolves to
   * the primaries' addresses now (one server: nothing to learn, its one node).
   */
  refreshTopology(unanswering: ReadonlySet<string>): Promise<ReadonlySet<string>>;
  /** After a MOVED from `nodeFor(key)`'s node: learn where the slot is now. */
  relocate(key: string): Promise<void>;
  primaries(): Promise<RedisClient[]>;
  /**
   * A client (not connected) to the node at `host`:`port`, with the deployment's
   * credentials and TLS, that never reconnects and gives up connecting after `connectTimeoutMs`:
   * for a question to a node the topology may no longer name (a primary's former replica).
   */
  probeClient(host: string, port: number, connectTimeoutMs: number): RedisClient;
  subscriber(kind: 'broadcast' | 'sharded'): Promise<RedisSubscriber>;
  destroy(): void;
}

export interface DriverOptions {
  reconnectDelay: (attempt: number) => number;
}

/**
 * Connections of one primary for durable writes. A write's WAIT must follow it on the same
 * connection (WAIT counts that connection's writes) and blocks that connection until the
 * replicas answer (a replica round trip and its fsync): on the commands connection it would hold
 * every other command of the instance behind it. So durable writes take their own connections,
 * several, the least busy first.
 */
export const DURABLE_CONNECTIONS = 4;

export interface DurablePool {
  /** The least busy connection (made on first use); `release` when its write and WAIT are answered. */
  take(): Promise<{ client: RedisClient; release(): void }>;
  destroy(): void;
}

/**
 * How long a durable write waits for its pooled connection while that one (re)connects, e.g. just
 * after Redis came back, when the commands connection (and so readiness) may be back first.
 * Longer: refused as not sent (503, retried by the client), never written after its caller gave up.
 */
export const DURABLE_READY_WAIT_MS = 1_000;

export function createDurablePool(make: () => RedisClient, onError: (error: Error) => void): DurablePool {
  /** `waiting`: the one wait for its connection to be ready that the writes taking it meanwhile share. */
  const slots: Array<{ client: RedisClient; busy: number; waiting?: Promise<boolean> }> = [];
  let destroyed = false;
  const leastBusy = (among: typeof slots): (typeof slots)[number] | undefined =>
    among.reduce<(typeof slots)[number] | undefined>((best, s) => (best === undefined || s.busy < best.busy ? s : best), undefined);
  return {
    async take() {
      if (destroyed) throw new Error('closed');
      let slot = leastBusy(slots.filter((s) => s.client.isReady));
      if ((slot === undefined || slot.busy > 0) && slots.length < DURABLE_CONNECTIONS) {
        const client = make();
        client.on('error', onError);
        // Failures are reported through 'error'; it keeps reconnecting by itself.
        client.connect().catch(() => {});
        slot = { client, busy: 0 };
        slots.push(slot);
      }
      const taken = slot ?? leastBusy(slots)!;
      taken.busy += 1;
      let released = false;
      const release = (): void => { if (!released) { released = true; taken.busy -= 1; } };
      // Commands on a connection that is not ready fail at once (no offline queue): wait a little.
      if (!taken.client.isReady && !(await (taken.waiting ??= readyWithin(taken.client, DURABLE_READY_WAIT_MS).finally(() => { taken.waiting = undefined; })))) {
        release();
        throw new ClientOfflineError();
      }
      return { client: taken.client, release };
    },
    destroy() {
      destroyed = true;
      for (const s of slots.splice(0)) {
        try { s.client.destroy(); } catch { /* already closed */ }
      }
    },
  };
}

function readyWithin(client: RedisClient, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (ready: boolean): void => {
      clearTimeout(timer);
      client.off('ready', onReady);
      resolve(ready);
    };
    const onReady = (): void => done(true);
    const timer = setTimeout(() => done(client.isReady), ms);
    timer.unref();
    client.on('ready', onReady);
  });
}

/** One server: one commands connection, and on first use a second one for pub/sub. */
export function createSingleDriver(url: string, options: DriverOptions): RedisDriver {
  const client: RedisClient = createClient({
    url,
    disableOfflineQueue: true,
    socket: { connectTimeout: 2_000, reconnectStrategy: options.reconnectDelay },
  });
  const errors = new Set<(error: Error) => void>();
  const readies = new Set<(first: boolean) => void>();
  const resubscribed = new Set<() => void>();
  client.on('error', (error: Error) => { for (const l of errors) l(error); });
  let readyBefore = false;
  client.on('ready', () => {
    const first = !readyBefore;
    readyBefore = true;
    for (const l of readies) l(first);
    // Catch-ups run on this connection: once it is back, look again for what was missed.
    if (!first) for (const l of resubscribed) l();
  });
  let firstReady: Promise<void> | undefined;
  const durable = createDurablePool(() => client.duplicate(), (error) => { for (const l of errors) l(error); });
  let sub: Promise<RedisClient> | undefined;
  let subClient: RedisClient | undefined;
  const subscriberClient = (): Promise<RedisClient> => {
    sub ??= (async () => {
      const s = client.duplicate();
      subClient = s;
      s.on('error', () => {});
      let first = true;
      s.on('ready', () => {
        if (first) { first = false; return; }
        for (const l of resubscribed) l();
      });
      await s.connect();
      return s;
    })();
    return sub;
  };
  return {
    cluster: false,
    commands: client,
    isReady: () => client.isReady,
    connect() {
      firstReady ??= new Promise<void>((resolve) => {
        client.once('ready', () => resolve());
        // Failures are reported through 'error'; the client keeps reconnecting by itself.
        client.connect().catch(() => {});
      });
      return firstReady;
    },
    onError: (l) => { errors.add(l); },
    onReady: (l) => { readies.add(l); },
    onResubscribed: (l) => { resubscribed.add(l); },
    durableFor: () => durable.take(),
    nodeOf: () => '',
    refreshTopology: async () => new Set(['']),
    relocate: async () => {},
    primaries: async () => [client],
    probeClient(host, port, connectTimeoutMs) {
      const at = new URL(url);
      at.hostname = host.includes(':') ? `[${host}]` : host;
      at.port = String(port);
      return createClient({ url: at.href, disableOfflineQueue: true, socket: { connectTimeout: connectTimeoutMs, reconnectStrategy: false } });
    },
    async subscriber() {
      const s = await subscriberClient();
      return {
        subscribe: (channel, listener) => s.subscribe(channel, listener),
        unsubscribe: (channel, listener) => s.unsubscribe(channel, listener),
      };
    },
    destroy() {
      // Destroyed first: a connection still being made (Redis away) would otherwise keep retrying.
      for (const c of [client, subClient]) {
        try { c?.destroy(); } catch { /* already closed */ }
      }
      durable.destroy();
    },
  };
}
