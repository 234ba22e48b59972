import { ClientClosedError, ClientOfflineError, ErrorReply } from 'redis';
import { silentLogger, StoreUnavailableError, type Logger } from '../../conversation/index.ts';
import type { SurfacerMetrics } from '../../telemetry/metrics.ts';
import { failSpan, isTracing, outsideTraces, startLeafSpan, type Span } from '../../telemetry/tracing.ts';
import { createClusterDriver } from './cluster-driver.ts';
import { createSingleDriver, type RedisClient, type RedisCommands, type RedisDriver, type RedisSubscriber } from './driver.ts';
import { createPromotionWatch, parseReplication, PROBE_TIMEOUT_MS, type Replication } from './promotion-watch.ts';
import type { ScriptClient } from './script.ts';

export type { RedisClient, RedisCommands, RedisSubscriber } from './driver.ts';

export interface RedisConnectionOptions {
  /** One server's URL, or (cluster) the URLs of some of its nodes: the rest is discovered. */
  urls: string[];
  /** Redis Cluster: keys routed by slot, MOVED/ASK followed, sharded pub/sub for change notices. */
  cluster?: boolean;
  /**
   * Replicas that must hold a durable write (an append, a saved record) before it is
   * acknowledged (WAIT after the write). Absent: 1 once a replica of a primary was seen, 0 before.
   */
  ackReplicas?: number;
  /**
   * `available` (default): a durable write waits for as many of `ackReplicas` as its primary has
   * now (a shard that lost its replica keeps taking writes, acknowledged on its primary alone:
   * on its AOF with `appendfsync always`); logged once per primary and counted. `strict`: it
   * waits for `ackReplicas` whatever the primary has, and fails (503) without them.
   */
  ackMode?: 'available' | 'strict';
  /** How long a durable write waits for its replicas before failing as unavailable. Default 1 000 ms. */
  ackTimeoutMs?: number;
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
export const DEFAULT_ACK_TIMEOUT_MS = 1_000;
/** How long a primary's replica count (INFO replication) is trusted before it is asked again. */
const REPLICA_COUNT_TTL_MS = 1_000;
/** How often a cluster's topology is read again while one of its nodes is stalled. */
const STALLED_TOPOLOGY_REFRESH_MS = 500;

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

/**
 * A durable write that reached the primary but not, within the ack timeout, the replicas it must
 * reach before it is acknowledged. It is not undone: a retry finds it (or, if the primary died
 * and a replica without it took over, writes it again).
 */
export class NotReplicatedError extends StoreUnavailableError {
  override name = 'NotReplicatedError';
}

/** Error replies that say "not now" rather than "wrong command". */
const TRANSIENT_REPLY = /^(LOADING|BUSY|MASTERDOWN|READONLY|TRYAGAIN|CLUSTERDOWN|NOREPLICAS)\b/;
/** Cluster redirections: the slot is served elsewhere (MOVED) or is moving (ASK). */
const REDIRECT_REPLY = /^(MOVED|ASK) /;

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
  /** Cluster mode: change notices are sharded (SPUBLISH in scripts, SSUBSCRIBE). */
  readonly cluster: boolean;
  /**
   * `broadcast`: channels every instance hears wherever they publish (turn cancels); `sharded`:
   * a conversation's change notices, which in a cluster stay on the shard of its slot.
   */
  subscriber(kind: 'broadcast' | 'sharded'): Promise<RedisSubscriber>;
  /**
   * Runs `command`; a connection-level failure, a stall or a missed deadline becomes
   * StoreUnavailableError (a Redis error reply stays as it is). `timeoutMs` overrides the
   * command deadline; a `probe` that misses it does not mark the connection stalled.
   */
  call<T>(command: (client: RedisCommands) => Promise<T>, options?: CallOptions): Promise<T>;
  /**
   * A write that must survive the loss of its primary: `write` runs on the connection to the
   * primary that serves `key`'s slot, followed on that same connection by WAIT for the
   * configured replicas (WAIT counts this connection's own writes). Fewer replicas within the
   * ack timeout: NotReplicatedError, never a silent success.
   */
  durable<T>(key: string, write: (node: ScriptClient, waits: boolean) => Promise<T>, options?: Pick<CallOptions, 'span'>): Promise<T>;
  /** The replicas durable writes wait for now (see RedisConnectionOptions.ackReplicas). */
  ackReplicas(): number;
  /** Connections to every primary (one without a cluster); called after each (re)connection. */
  onPrimaryReady(listener: (primary: RedisClient) => void): void;
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
  /** The key the command is routed by: in a cluster, whose node's stall it waits on (none: any node's). */
  key?: string;
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
  const driverOptions = { reconnectDelay: (attempt: number) => Math.min(50 * 2 ** attempt, maxDelay) };
  const driver: RedisDriver = options.cluster
    ? createClusterDriver(options.urls, driverOptions)
    : createSingleDriver(options.urls[0]!, driverOptions);
  // Logged once per outage, not once per reconnect attempt.
  let down = false;
  driver.onError((error) => {
    if (down) return;
    down = true;
    logger.warn('redis connection lost; reconnecting', { error: error.message });
  });
  /**
   * performance.now() of the last answer, overall and per node, and of each stalled node's stall's
   * start. Per node: in a cluster one stalled primary must not fail the other shards' commands.
   * (One server: a single node, ''.)
   */
  let lastReplyAt: number | undefined;
  const replyAt = new Map<string, number>();
  const stalled = new Map<string, number>();
  /**
   * While nodes are stalled (a cluster), the topology is read again from the others now and then:
   * a replica promoted in place of a silent primary takes its slots, and that primary's stall no
   * longer applies to them.
   */
  let topologyTimer: NodeJS.Timeout | undefined;
  let refreshing = false;
  const watchStalls = (): void => {
    if (!driver.cluster || topologyTimer !== undefined) return;
    topologyTimer = setInterval(() => {
      if (stalled.size === 0 || closed) {
        clearInterval(topologyTimer);
        topologyTimer = undefined;
        return;
      }
      if (refreshing) return;
      refreshing = true;
      driver.refreshTopology(new Set(stalled.keys())).then((primaries) => {
        for (const node of [...stalled.keys()]) {
          if (primaries.has(node)) continue;
          stalled.delete(node);
          logger.info('a stalled redis node no longer serves any slot; its slots are served elsewhere', { node });
        }
      }, () => { /* no node answered: tried again at the next tick */ }).finally(() => { refreshing = false; });
    }, STALLED_TOPOLOGY_REFRESH_MS);
    topologyTimer.unref();
  };
  const answered = (node: string): void => {
    lastReplyAt = performance.now();
    replyAt.set(node, lastReplyAt);
    const since = stalled.get(node);
    if (since === undefined) return;
    stalled.delete(node);
    logger.info('redis answers again', { stalledMs: Math.round(lastReplyAt - since), ...(node === '' ? {} : { node }) });
  };
  const primaryListeners = new Set<(primary: RedisClient) => void>();
  /** Without a setting: 1 once any primary was seen with a replica (and from then on). */
  let learnedReplicas = 0;
  const ackTimeoutMs = options.ackTimeoutMs ?? DEFAULT_ACK_TIMEOUT_MS;
  const ackReplicas = (): number => options.ackReplicas ?? learnedReplicas;
  const lookAtPrimaries = (): void => {
    driver.primaries().then((primaries) => {
      for (const primary of primaries) {
        for (const l of primaryListeners) l(primary);
        if (options.ackReplicas !== undefined || learnedReplicas > 0) continue;
        primary.info('replication').then((info) => {
          if (learnedReplicas > 0 || !/^connected_slaves:[1-9]/m.test(info)) return;
          learnedReplicas = 1;
          logger.info('redis primary has a replica: appends are acknowledged once a replica holds them', { ackTimeoutMs });
        }, () => {});
      }
    }, () => {});
  };
  driver.onReady(() => {
    if (down) logger.info('redis connection restored');
    down = false;
    lastReplyAt = performance.now();
    // A connection made again answers again; a node still stalled is found again at its next deadline.
    for (const node of [...stalled.keys()]) answered(node);
    lookAtPrimaries();
  });
  // Start-up does not wait for Redis: requests answer 503 until it is reachable. The first
  // commands wait a moment for the first connection, which is being made as they arrive.
  let everReady = false;
  const firstReady = driver.connect().then(() => { everReady = true; });
  const startupWaitMs = options.startupWaitMs ?? 2_000;
  const commandTimeoutMs = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
  const maxInFlight = options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;

  const stats = { commands: 0, roundTrips: 0 };
  /** Sent and not settled, whether or not their caller still waits. */
  let inFlight = 0;
  let closed = false;
  let probing: Promise<{ ok: true; latencyMs: number } | { ok: false; detail: string }> | undefined;

  const state = (): RedisState => {
    if (!everReady) return 'connecting';
    if (!driver.isReady()) return 'down';
    return stalled.size === 0 ? 'ready' : 'stalled';
  };

  /**
   * `send`, inside the batch's span when the caller is traced, and measured as its caller waits
   * (readiness probes are not the service's work: left out of the metrics).
   */
  async function call<T>(command: (client: RedisCommands) => Promise<T>, callOptions: CallOptions = {}): Promise<T> {
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

  async function send<T>(command: (client: RedisCommands) => Promise<T>, callOptions: CallOptions): Promise<T> {
    if (!everReady) await Promise.race([firstReady, new Promise((resolve) => setTimeout(resolve, startupWaitMs).unref())]);
    const node = driver.nodeOf(callOptions.key);
    const stalledSince = stalled.get(node);
    if (stalledSince !== undefined && driver.isReady()) {
      throw new CommandNotSentError(`redis: no answer for ${Math.round(performance.now() - stalledSince)} ms (stalled${node === '' ? '' : `: ${node}`})`);
    }
    if (!everReady) throw new CommandNotSentError('redis: not connected yet');
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
      sent = command(driver.commands);
    } catch (error) {
      inFlight -= 1;
      throw error;
    }
    // Settled whether or not anyone still waits: the count and the stall end with Redis's answer.
    sent.then(() => { inFlight -= 1; answered(node); }, (error: unknown) => {
      inFlight -= 1;
      if (error instanceof ErrorReply) answered(node);
    });
    try {
      // A Redis that stopped answering without closing the connection (paused, partitioned)
      // must not hold requests and the conversation's queue until TCP gives up.
      const deadline = new Promise<never>((_resolve, reject) => {
        // Decided after the event loop's next look at the sockets (setImmediate runs after the
        // poll phase): when the loop itself was held past the deadline, an answer already
        // waiting in the socket wins, instead of a spurious timeout and stall.
        timer = setTimeout(() => setImmediate(() => {
          const last = replyAt.get(node);
          if (!callOptions.probe && (last === undefined || last < sentAt) && driver.isReady() && !stalled.has(node)) {
            stalled.set(node, sentAt);
            watchStalls();
            logger.warn('redis does not answer; failing commands at once until it does', { timeoutMs, ...(node === '' ? {} : { node }) });
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

  const strict = options.ackMode === 'strict';
  /** Replication each primary had when last asked (available mode), and the primaries already reported without enough. */
  const replications = new WeakMap<RedisClient, { replication: Replication; at: number }>();
  const shortPrimaries = new Set<string>();
  const promotions = createPromotionWatch(driver);
  const addressOf = (node: RedisClient): string =>
    node.options?.socket !== undefined && 'host' in node.options.socket ? `${node.options.socket.host}:${node.options.socket.port}` : 'the primary';

  /**
   * The replication of `node` (a primary) now: INFO replication, at most once a second unless `fresh`.
   * A count short of the configured one is never taken from that memory: a replica that attached
   * since would not be waited for, and a write it does not yet hold would be acknowledged, then
   * lost if the primary died before the stream reached it (the failover suite lost 14 this way).
   * So a degraded shard pays two INFOs per durable write (before it, and after it: see
   * acknowledgeShortfall); a whole one none.
   */
  async function replicationOf(node: RedisClient, fresh: boolean): Promise<Replication> {
    const known = replications.get(node);
    if (!fresh && known !== undefined && known.replication.count >= ackReplicas() && performance.now() - known.at < REPLICA_COUNT_TTL_MS) return known.replication;
    const replication = parseReplication(await node.info('replication'));
    replications.set(node, { replication, at: performance.now() });
    promotions.saw(addressOf(node), replication);
    if (replication.count >= ackReplicas()) shortPrimaries.delete(addressOf(node));
    return replication;
  }

  /**
   * A durable write that `node` holds with fewer replicas than asked, because it has no more:
   * acknowledged once its former replicas confirm none of them took its place (promotion-watch.ts),
   * then counted and logged once a primary; refused as not replicated otherwise.
   */
  async function acknowledgeShort(node: RedisClient, wanted: number, now: Replication): Promise<void> {
    const address = addressOf(node);
    const displaced = now.primary ? await promotions.displacedBy(address, now) : 'it is no longer a primary';
    if (displaced !== undefined) {
      throw new NotReplicatedError(`redis: ${address} has ${now.count} of ${wanted} replicas and may not acknowledge alone: ${displaced}`);
    }
    options.metrics?.redisUnreplicated();
    if (shortPrimaries.has(address)) return;
    shortPrimaries.add(address);
    logger.warn('redis primary has fewer replicas than SURFACER_REDIS_ACK_REPLICAS: its appends are acknowledged by the replicas it has (by itself alone: on its AOF when appendfsync is always) until one is back', {
      primary: address, replicas: now.count, wanted,
    });
  }

  /**
   * A write that `acked` of the `waitedFor` replicas counted before it confirmed, short of the
   * `wanted` (available mode): the primary's replicas are counted again now, and the write is
   * acknowledged short once every replica it has holds it; else refused. Two causes:
   * - a counted replica went away (`acked` < `waitedFor`): every one it still has confirmed, or it
   *   is refused (one that is there and did not confirm is not waited for a second time);
   * - a replica attached between the first count and the write. It may lack the write (it was
   *   forked its copy before it, and the write waits in the primary's buffer until the replica's
   *   first acknowledgement turns the stream on, up to a second later); a primary killed meanwhile
   *   lost an acknowledged write (the failover suite, twice under load). So it is waited for like
   *   any other. One that attaches after this count was forked its copy after the write.
   */
  async function acknowledgeShortfall(node: RedisClient, wanted: number, waitedFor: number, acked: number): Promise<void> {
    if (strict) throw new NotReplicatedError(`redis: the write reached ${acked} of ${waitedFor} replicas within ${ackTimeoutMs} ms`);
    const after = await replicationOf(node, true);
    const has = Math.min(wanted, after.count);
    if (has > acked) {
      if (acked < waitedFor) throw new NotReplicatedError(`redis: the write reached ${acked} of ${waitedFor} replicas within ${ackTimeoutMs} ms`);
      // WAIT counts this connection's writes: the write just made, and nothing after it.
      const confirmed = await waitForReplicas(node, has);
      if (confirmed < has) throw new NotReplicatedError(`redis: the write reached ${confirmed} of the ${has} replicas ${addressOf(node)} has within ${ackTimeoutMs} ms`);
    }
    if (has < wanted) await acknowledgeShort(node, wanted, after);
  }

  /** WAIT on `node`'s connection: how many replicas hold its writes, within the ack timeout. */
  const waitForReplicas = (node: RedisClient, replicas: number): Promise<number> =>
    node.sendCommand(['WAIT', String(replicas), String(ackTimeoutMs)]) as Promise<number>;

  /** The write and its WAIT, sent together on the primary's connection (one round trip): its result, and how many replicas confirmed it. */
  async function writeAndWait<T>(
    node: RedisClient, write: (node: ScriptClient, waits: boolean) => Promise<T>, replicas: number, abandoned: () => boolean,
  ): Promise<{ result: T; acked: number }> {
    const waitFor = (): Promise<number> => waitForReplicas(node, replicas);
    // A script this primary does not know (NOSCRIPT: a promoted replica's cache is empty, a
    // restarted server's too) is sent again as EVAL once that answer is back: never once the
    // caller stopped waiting (it was told 503); and after the WAIT sent with it, which counted
    // none of the write, so it is waited for again.
    let waitSent = false;
    let sentAfterWait = false;
    const tracked: ScriptClient = {
      evalSha: (...args) => { sentAfterWait ||= waitSent; return node.evalSha(...args); },
      eval: (...args) => {
        if (abandoned()) return Promise.reject(new CommandNotSentError('redis: not sent again after its deadline'));
        sentAfterWait ||= waitSent;
        return node.eval(...args);
      },
    };
    if (replicas === 0) return { result: await write(tracked, false), acked: 0 };
    const written = write(tracked, true);
    const waited = waitFor();
    waitSent = true;
    // The write's failure is the one reported; the WAIT's is then of no interest.
    waited.catch(() => {});
    const result = await written;
    return { result, acked: sentAfterWait ? await waitFor() : await waited };
  }

  async function durable<T>(key: string, write: (node: ScriptClient, waits: boolean) => Promise<T>, durableOptions: Pick<CallOptions, 'span'> = {}): Promise<T> {
    const replicas = ackReplicas();
    // A WAIT blocks the connection up to the ack timeout: the deadline covers both, and (available
    // mode) the question to a former replica before a short acknowledgement.
    const timeoutMs = commandTimeoutMs + (replicas > 0 ? ackTimeoutMs + (strict ? 0 : PROBE_TIMEOUT_MS) : 0);
    // Set once the caller stopped waiting (its deadline): a connection that becomes ready later
    // must not carry the write then, after a 503 told the client it may retry.
    let abandoned = false;
    return call(async () => {
      const attempt = async (): Promise<T> => {
        const node = await driver.durableFor(key);
        if (abandoned) {
          node.release();
          throw new CommandNotSentError('redis: no connection for the write before its deadline');
        }
        try {
          // Available mode: as many of the configured replicas as the primary has now.
          const before = replicas > 0 && !strict ? await replicationOf(node.client, false) : undefined;
          const waitFor = before !== undefined ? Math.min(replicas, before.count) : replicas;
          const { result, acked } = await writeAndWait(node.client, write, waitFor, () => abandoned);
          if (acked < replicas) await acknowledgeShortfall(node.client, replicas, waitFor, acked);
          return result;
        } finally {
          node.release();
        }
      };
      try {
        return await attempt();
      } catch (error) {
        if (!(error instanceof ErrorReply) || !REDIRECT_REPLY.test(error.message)) throw error;
        // The slot moved (resharding, failover): once the client knows where, the write goes
        // there. While it is moving (ASK), the write and its WAIT cannot be kept on one
        // connection by the cluster client: not sent, the caller answers 503 and is retried.
        if (error.message.startsWith('ASK ')) throw new CommandNotSentError(`redis: slot of ${key} is moving (${error.message})`);
        await driver.relocate(key);
        try {
          return await attempt();
        } catch (again) {
          if (again instanceof ErrorReply && REDIRECT_REPLY.test(again.message)) {
            throw new CommandNotSentError(`redis: slot of ${key} is moving (${again.message})`);
          }
          throw again;
        }
      }
    }, { ...durableOptions, timeoutMs, key }).catch((error: unknown) => {
      abandoned = true;
      throw error;
    });
  }

  return {
    cluster: driver.cluster,
    stats,
    call,
    durable,
    ackReplicas,
    onPrimaryReady(listener) {
      primaryListeners.add(listener);
    },
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
          // Every primary: in a cluster, a shard that is down fails the requests of its slots.
          await call(async () => Promise.all((await driver.primaries()).map((p) => p.ping())), { timeoutMs, probe: true });
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
    // Made outside the trace of the request that first needed it: notifications arrive on its
    // socket, and the catch-ups they start belong to no request (one trace per request).
    subscriber: (kind) => outsideTraces(() => driver.subscriber(kind)),
    onResubscribed(listener) {
      driver.onResubscribed(listener);
    },
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(topologyTimer);
      promotions.close();
      driver.destroy();
    },
  };
}

/** A client span for one command batch, only under a recorded parent (cheap: nothing at all when tracing is off). */
function batchSpan(named: { name: string; command: string }): Span | undefined {
  if (!isTracing()) return undefined;
  return startLeafSpan(`redis ${named.name}`, { 'db.system.name': 'redis', 'db.operation.name': named.command });
}
