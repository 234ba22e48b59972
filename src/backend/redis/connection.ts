import { ClientClosedError, ClientOfflineError, createClient, ErrorReply } from 'redis';
import { silentLogger, StoreUnavailableError, type Logger } from '../../conversation/index.ts';
import type { SurfacerMetrics } from '../../telemetry/metrics.ts';
import { failSpan, isTracing, outsideTraces, startLeafSpan, type Span } from '../../telemetry/tracing.ts';

export type RedisClient = ReturnType<typeof createClient>;

export interface RedisConnectionOptions {
  url: string;
  logger?: Logger;
  /** Longest pause between reconnect attempts. Default 2 000 ms. */
  maxReconnectDelayMs?: number;
  /** How long commands wait for the very first connection before failing. Default 2 000 ms. */
  startupWaitMs?: number;
  /** A command without an answer after this long fails as unavailable. Default 2 000 ms. */
  commandTimeoutMs?: number;
  /**
   * Commands sent and not yet answered, counting those whose caller already gave up (they stay
   * queued in the client until Redis answers or the connection drops). Beyond it a command
   * fails at once. Default 1 000.
   */
  maxInFlight?: number;
  /** Command latency and errors (src/telemetry); absent: none recorded. */
  metrics?: SurfacerMetrics;
}

export const DEFAULT_COMMAND_TIMEOUT_MS = 2_000;
export const DEFAULT_MAX_IN_FLIGHT = 1_000;

/**
 * What this process last saw of Redis, without asking it: `connecting` before the first
 * connection, `ready`, `stalled` (connected, but a command went unanswered past its deadline and
 * nothing was answered since: paused, partitioned, swapped out), `down` (disconnected, reconnecting).
 */
export type RedisState = 'connecting' | 'ready' | 'stalled' | 'down';

export interface RedisConnectionStatus {
  state: RedisState;
  /** Commands sent and not yet answered (see maxInFlight). */
  inFlight: number;
  /** Milliseconds since Redis last answered anything on the commands connection (absent: never). */
  sinceLastReplyMs?: number;
}

/**
 * Unavailable, and the command never reached Redis (stalled, too many waiting, not connected):
 * nothing it would have written can show up later.
 */
export class CommandNotSentError extends StoreUnavailableError {
  override name = 'CommandNotSentError';
}

/** Sent, and no answer within the deadline (it may still be applied later). */
export class CommandTimeoutError extends StoreUnavailableError {
  override name = 'CommandTimeoutError';
}

/** `error.type` of a failed command: never sent, timed out, otherwise unavailable, or Redis's error reply. */
function redisErrorType(error: unknown): string {
  if (error instanceof CommandNotSentError) return 'not_sent';
  if (error instanceof CommandTimeoutError) return 'timeout';
  if (error instanceof StoreUnavailableError) return 'unavailable';
  return error instanceof ErrorReply ? 'reply' : 'other';
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
 *
 * A Redis that is connected but does not answer (SIGSTOP, a partition without resets, a swapped
 * out host) is worse: nothing fails by itself. Every command has a deadline; once one passed it
 * with nothing answered since it was sent, the connection counts as stalled and further commands
 * fail at once, until Redis answers anything again (the late answer to a stalled command, or a
 * new connection). Commands nobody waits for any more still occupy the client's queue: past
 * `maxInFlight` of them new commands fail at once too, so a long stall cannot pile them up.
 */
export interface RedisConnection {
  readonly client: RedisClient;
  subscriber(): Promise<RedisClient>;
  /**
   * Runs `command`; a connection-level failure, a stall or a missed deadline becomes
   * StoreUnavailableError (a Redis error reply stays as it is). `timeoutMs` overrides the
   * command deadline; a `probe` that misses it does not mark the connection stalled.
   */
  call<T>(command: (client: RedisClient) => Promise<T>, options?: CallOptions): Promise<T>;
  /** The last known state, from this process alone (never waits on Redis). */
  status(): RedisConnectionStatus;
  /**
   * A PING answered within `timeoutMs`; one at a time (a probe arriving while one is out waits
   * for that one instead of adding to a stalled queue). Never rejects.
   */
  ping(timeoutMs: number): Promise<{ ok: true; latencyMs: number } | { ok: false; detail: string }>;
  /** Called after every reconnect (of either connection): notifications sent meanwhile were missed. */
  onResubscribed(listener: () => void): void;
  /**
   * Commands sent (readiness probes aside), and round trips: commands sent while none was in flight (commands issued
   * together, or while others are on the wire, share one). For one client working sequentially
   * this is its number of waits on Redis.
   */
  readonly stats: { commands: number; roundTrips: number };
  close(): Promise<void>;
}

export interface CallOptions {
  timeoutMs?: number;
  probe?: boolean;
  /**
   * Names the batch for its span (`redis {name}`, e.g. `log.append`) and the command it sends
   * (`db.operation.name`, e.g. EVALSHA). Spans are made only inside a recorded trace (a request,
   * a turn): background work (catch-ups after a notification) adds none of its own.
   */
  span?: { name: string; command: string };
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
  /** performance.now() of the last answer on the commands connection, and of the stall's start. */
  let lastReplyAt: number | undefined;
  let stalledSince: number | undefined;
  const answered = (): void => {
    lastReplyAt = performance.now();
    if (stalledSince !== undefined) logger.info('redis answers again', { stalledMs: Math.round(lastReplyAt - stalledSince) });
    stalledSince = undefined;
  };
  client.on('ready', () => {
    if (down) logger.info('redis connection restored');
    down = false;
    answered();
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
  const commandTimeoutMs = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
  const maxInFlight = options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;

  const stats = { commands: 0, roundTrips: 0 };
  /** Sent and not settled, whether or not their caller still waits. */
  let inFlight = 0;
  let sub: Promise<RedisClient> | undefined;
  let subClient: RedisClient | undefined;
  let closed = false;
  let probing: Promise<{ ok: true; latencyMs: number } | { ok: false; detail: string }> | undefined;

  const state = (): RedisState => {
    if (!everReady) return 'connecting';
    if (!client.isReady) return 'down';
    return stalledSince === undefined ? 'ready' : 'stalled';
  };

  /**
   * `send`, inside the batch's span when the caller is traced, and measured as its caller waits
   * (readiness probes are not the service's work: left out of the metrics).
   */
  async function call<T>(command: (client: RedisClient) => Promise<T>, callOptions: CallOptions = {}): Promise<T> {
    const span = callOptions.span === undefined ? undefined : batchSpan(callOptions.span);
    const { metrics } = options;
    const measured = metrics !== undefined && !callOptions.probe;
    if (span === undefined && !measured) return send(command, callOptions);
    const startedAt = performance.now();
    try {
      const answer = await send(command, callOptions);
      if (measured) metrics.redisCommand((performance.now() - startedAt) / 1000);
      return answer;
    } catch (error) {
      if (span !== undefined) failSpan(span, error);
      if (measured) metrics.redisCommand((performance.now() - startedAt) / 1000, redisErrorType(error));
      throw error;
    } finally {
      span?.end();
    }
  }

  async function send<T>(command: (client: RedisClient) => Promise<T>, callOptions: CallOptions): Promise<T> {
    if (!everReady) await Promise.race([firstReady, new Promise((resolve) => setTimeout(resolve, startupWaitMs).unref())]);
    if (stalledSince !== undefined && client.isReady) {
      throw new CommandNotSentError(`redis: no answer for ${Math.round(performance.now() - stalledSince)} ms (stalled)`);
    }
    if (inFlight >= maxInFlight) throw new CommandNotSentError(`redis: ${inFlight} commands waiting for an answer`);
    // Probes (readiness pings) are not the service's work: left out of the counts.
    if (!callOptions.probe) {
      stats.commands += 1;
      if (inFlight === 0) stats.roundTrips += 1;
    }
    inFlight += 1;
    const sentAt = performance.now();
    const timeoutMs = callOptions.timeoutMs ?? commandTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    let sent: Promise<T>;
    try {
      sent = command(client);
    } catch (error) {
      inFlight -= 1;
      throw error;
    }
    // Settled whether or not anyone still waits: the count and the stall end with Redis's answer.
    sent.then(() => { inFlight -= 1; answered(); }, (error: unknown) => {
      inFlight -= 1;
      if (error instanceof ErrorReply) answered();
    });
    try {
      // A Redis that stopped answering without closing the connection (paused, partitioned)
      // must not hold requests and the conversation's queue until TCP gives up.
      const deadline = new Promise<never>((_resolve, reject) => {
        // Decided after the event loop's next look at the sockets (setImmediate runs after the
        // poll phase): when the loop itself was held past the deadline, an answer already
        // waiting in the socket wins, instead of a spurious timeout and stall.
        timer = setTimeout(() => setImmediate(() => {
          if (!callOptions.probe && (lastReplyAt === undefined || lastReplyAt < sentAt) && client.isReady && stalledSince === undefined) {
            stalledSince = sentAt;
            logger.warn('redis does not answer; failing commands at once until it does', { timeoutMs });
          }
          reject(new CommandTimeoutError(`redis: no answer within ${timeoutMs} ms`));
        }), timeoutMs);
      });
      return await Promise.race([sent, deadline]);
    } catch (error) {
      if (error instanceof StoreUnavailableError) throw error;
      // A server that is loading its data, busy with a script, or a replica that cannot take
      // writes now will answer later: the same as unreachable for the caller.
      if (error instanceof ErrorReply && !TRANSIENT_REPLY.test(error.message)) throw error;
      if (error instanceof ClientOfflineError || error instanceof ClientClosedError) {
        throw new CommandNotSentError(`redis: ${error.message}`, { cause: error });
      }
      throw new StoreUnavailableError(`redis: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    client,
    stats,
    call,
    status() {
      return {
        state: state(), inFlight,
        ...(lastReplyAt !== undefined ? { sinceLastReplyMs: Math.round(performance.now() - lastReplyAt) } : {}),
      };
    },
    ping(timeoutMs) {
      const current = state();
      if (current !== 'ready') return Promise.resolve({ ok: false, detail: `redis ${current}` });
      probing ??= (async () => {
        const started = performance.now();
        try {
          await call((c) => c.ping(), { timeoutMs, probe: true });
          return { ok: true as const, latencyMs: Math.round((performance.now() - started) * 10) / 10 };
        } catch (error) {
          return { ok: false as const, detail: error instanceof Error ? error.message : String(error) };
        } finally {
          probing = undefined;
        }
      })();
      // A probe already out may have started earlier: wait for it no longer than this caller may.
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<{ ok: false; detail: string }>((resolve) => {
        timer = setTimeout(() => resolve({ ok: false, detail: `redis: no answer to PING within ${timeoutMs} ms` }), timeoutMs);
      });
      return Promise.race([probing, late]).finally(() => clearTimeout(timer));
    },
    subscriber() {
      // Made outside the trace of the request that first needed it: notifications arrive on its
      // socket, and the catch-ups they start belong to no request (one trace per request).
      sub ??= outsideTraces(async () => {
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
      });
      return sub;
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

/** A client span for one command batch, only under a recorded parent (cheap: nothing at all when tracing is off). */
function batchSpan(named: { name: string; command: string }): Span | undefined {
  if (!isTracing()) return undefined;
  return startLeafSpan(`redis ${named.name}`, { 'db.system.name': 'redis', 'db.operation.name': named.command });
}
