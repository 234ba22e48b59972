import { createClient, ErrorReply } from 'redis';
import { silentLogger, StoreUnavailableError, type Logger } from '../../conversation/index.ts';

export type RedisClient = ReturnType<typeof createClient>;

export interface RedisConnectionOptions {
  url: string;
  logger?: Logger;
  /** Longest pause between reconnect attempts. Default 2 000 ms. */
  maxReconnectDelayMs?: number;
  /** How long commands wait for the very first connection before failing. Default 2 000 ms. */
  startupWaitMs?: number;
  /** A command without an answer after this long fails as unavailable. Default 5 000 ms. */
  commandTimeoutMs?: number;
}

/** Error replies that say "not now" rather than "wrong command". */
const TRANSIENT_REPLY = /^(LOADING|BUSY|MASTERDOWN|READONLY|TRYAGAIN|CLUSTERDOWN|NOREPLICAS)\b/;

/**
 * The commands connection and, on first use, a second one for pub/sub (a subscribed connection
 * can run nothing else). Both reconnect by themselves with capped backoff, and node-redis
 * re-subscribes on reconnect.
 *
 * Commands never wait for a reconnect (`disableOfflineQueue`): while Redis is away they fail at
 * once, and the service answers 503 and acknowledges nothing, instead of requests piling up in an
 * offline queue and being applied minutes later, long after their clients gave up.
 */
export interface RedisConnection {
  readonly client: RedisClient;
  subscriber(): Promise<RedisClient>;
  /** Runs `command`; a connection-level failure becomes StoreUnavailableError (a Redis error reply stays as it is). */
  call<T>(command: (client: RedisClient) => Promise<T>): Promise<T>;
  /** Called after every reconnect (of either connection): notifications sent meanwhile were missed. */
  onResubscribed(listener: () => void): void;
  /**
   * Commands sent, and round trips: commands sent while none was in flight (commands issued
   * together, or while others are on the wire, share one). For one client working sequentially
   * this is its number of waits on Redis.
   */
  readonly stats: { commands: number; roundTrips: number };
  close(): Promise<void>;
}

export function createRedisConnection(options: RedisConnectionOptions): RedisConnection {
  const logger = options.logger ?? silentLogger;
  const maxDelay = options.maxReconnectDelayMs ?? 2_000;
  const client: RedisClient = createClient({
    url: options.url,
    disableOfflineQueue: true,
    socket: { connectTimeout: 2_000, reconnectStrategy: (attempt: number) => Math.min(50 * 2 ** attempt, maxDelay) },
  });
  // Logged once per outage, not once per reconnect attempt.
  let down = false;
  const onError = (error: Error): void => {
    if (down) return;
    down = true;
    logger.warn('redis connection lost; reconnecting', { error: error.message });
  };
  client.on('error', onError);
  const resubscribed = new Set<() => void>();
  let commandsReadyBefore = false;
  client.on('ready', () => {
    if (down) logger.info('redis connection restored');
    down = false;
    // Catch-ups run on this connection: once it is back, look again for what was missed.
    if (commandsReadyBefore) for (const listener of resubscribed) listener();
    commandsReadyBefore = true;
  });
  // Start-up does not wait for Redis: requests answer 503 until it is reachable. The first
  // commands wait a moment for the first connection, which is being made as they arrive.
  const connected = client.connect().catch((error: unknown) => logger.error('redis connect failed', { error: String(error) }));
  let everReady = false;
  const firstReady = new Promise<void>((resolve) => client.once('ready', () => { everReady = true; resolve(); }));
  const startupWaitMs = options.startupWaitMs ?? 2_000;
  const commandTimeoutMs = options.commandTimeoutMs ?? 5_000;

  const stats = { commands: 0, roundTrips: 0 };
  let inFlight = 0;
  let sub: Promise<RedisClient> | undefined;
  let subClient: RedisClient | undefined;
  let closed = false;

  return {
    client,
    stats,
    subscriber() {
      sub ??= (async () => {
        const s = client.duplicate();
        subClient = s;
        s.on('error', () => {});
        let first = true;
        s.on('ready', () => {
          if (first) { first = false; return; }
          for (const listener of resubscribed) listener();
        });
        await s.connect();
        return s;
      })();
      return sub;
    },
    async call(command) {
      if (!everReady) await Promise.race([firstReady, new Promise((resolve) => setTimeout(resolve, startupWaitMs).unref())]);
      stats.commands += 1;
      if (inFlight === 0) stats.roundTrips += 1;
      inFlight += 1;
      let timer: NodeJS.Timeout | undefined;
      try {
        // A Redis that stopped answering without closing the connection (paused, partitioned)
        // must not hold requests and the conversation's queue until TCP gives up.
        const deadline = new Promise<never>((_resolve, reject) => {
          timer = setTimeout(() => reject(new StoreUnavailableError(`redis: no answer within ${commandTimeoutMs} ms`)), commandTimeoutMs);
        });
        return await Promise.race([command(client), deadline]);
      } catch (error) {
        if (error instanceof StoreUnavailableError) throw error;
        // A server that is loading its data, busy with a script, or a replica that cannot take
        // writes now will answer later: the same as unreachable for the caller.
        if (error instanceof ErrorReply && !TRANSIENT_REPLY.test(error.message)) throw error;
        throw new StoreUnavailableError(`redis: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      } finally {
        clearTimeout(timer);
        inFlight -= 1;
      }
    },
    onResubscribed(listener) {
      resubscribed.add(listener);
    },
    async close() {
      if (closed) return;
      closed = true;
      // Destroyed first: a connection still being made (Redis away) would otherwise keep
      // retrying, and close() waiting for it would never return.
      for (const c of [client, subClient]) {
        try { c?.destroy(); } catch { /* already closed */ }
      }
      await connected;
      await sub?.catch(() => undefined);
    },
  };
}
