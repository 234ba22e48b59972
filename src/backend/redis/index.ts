import type { Logger } from '../../conversation/index.ts';
import { DEFAULT_HEALTH_TIMEOUT_MS, type Backend, type BackendHealth } from '../types.ts';
import { createRedisConnection, type RedisClient } from './connection.ts';
import { createRedisIdempotencyStore } from './idempotency.ts';
import { redisKeys } from './keys.ts';
import { createRedisLogStore } from './log-store.ts';
import { createRedisRateLimiter } from './rate-limiter.ts';
import { createRedisRecords } from './records.ts';
import type { SurfacerMetrics } from '../../telemetry/metrics.ts';
import { createRedisTurnGate, type RedisTurnGateOptions } from './turn-gate.ts';

export interface RedisBackendOptions {
  /**
   * `redis://[user:password@]host:port[/db]` (or `rediss://` for TLS); for a cluster, one or more
   * of its nodes' URLs, comma-separated (several select cluster mode).
   */
  url: string;
  /** A Redis Cluster even when `url` names one node. */
  cluster?: boolean;
  /**
   * Replicas an append (and a saved record) must reach before it is acknowledged (WAIT). Default:
   * 1 in a cluster; on one server, 1 once it was seen to have a replica.
   */
  ackReplicas?: number;
  /**
   * `available` (default): an append waits for as many of `ackReplicas` as its shard's primary has
   * now, so a shard that lost its replica keeps taking writes (on its primary's AOF alone; logged,
   * counted in `surfacer.redis.writes.unreplicated`). `strict`: refused (503) without them.
   */
  ackMode?: 'available' | 'strict';
  /** How long an append waits for those replicas before answering 503. Default 1 000 ms. */
  ackTimeoutMs?: number;
  /** Prefix of every key and channel. Default `surfacer:`. */
  prefix?: string;
  logger?: Logger;
  turns?: RedisTurnGateOptions;
  /** A command without an answer after this long fails as unavailable (503). Default 2 000 ms. */
  commandTimeoutMs?: number;
  /** Commands waiting for an answer beyond which new ones fail at once (503). Default 1 000. */
  maxInFlight?: number;
  /** Redis command latency and errors (src/telemetry `surfacerMetrics`); absent: none recorded. */
  metrics?: SurfacerMetrics;
}

/** Several instances, one Redis: the logs as streams, and every shared concern beside them. */
export function createRedisBackend(options: RedisBackendOptions): Backend {
  const urls = options.url.split(',').map((u) => u.trim()).filter((u) => u !== '');
  const cluster = options.cluster === true || urls.length > 1;
  const connection = createRedisConnection({
    urls, cluster, ...(options.logger ? { logger: options.logger } : {}),
    // A cluster is run for its replicas: waiting for one is what makes a failover lose nothing.
    ...(options.ackReplicas !== undefined ? { ackReplicas: options.ackReplicas } : cluster ? { ackReplicas: 1 } : {}),
    ...(options.ackTimeoutMs !== undefined ? { ackTimeoutMs: options.ackTimeoutMs } : {}),
    ...(options.ackMode !== undefined ? { ackMode: options.ackMode } : {}),
    ...(options.commandTimeoutMs !== undefined ? { commandTimeoutMs: options.commandTimeoutMs } : {}),
    ...(options.maxInFlight !== undefined ? { maxInFlight: options.maxInFlight } : {}),
    ...(options.metrics ? { metrics: options.metrics } : {}),
  });
  const status = (): BackendHealth => {
    const now = connection.status();
    return { ok: now.state === 'ready', engine: 'redis', state: now.state, inFlight: now.inFlight, ...connection.stats };
  };
  const keys = redisKeys(options.prefix, { cluster });
  // Acknowledged appends survive a Redis crash only with AOF fsynced before each answer (on every
  // primary). Managed services may refuse CONFIG: then nothing is said. Said once per primary.
  const checked = new Set<RedisClient>();
  connection.onPrimaryReady((primary) => {
    if (checked.has(primary)) return;
    checked.add(primary);
    primary.configGet(['appendonly', 'appendfsync']).then((config) => {
      if (config['appendonly'] !== 'yes' || config['appendfsync'] !== 'always') {
        options.logger?.warn('redis does not fsync every write (appendonly yes, appendfsync always): an acknowledged change can be lost if Redis crashes', config);
      }
    }, () => {});
  });
  return {
    engine: 'redis',
    store: createRedisLogStore(connection, keys, options.logger),
    turns: createRedisTurnGate(connection, keys, options.turns),
    rateLimiter: (name, limits) => createRedisRateLimiter(connection, keys, name, limits),
    idempotency: (name, limits) => createRedisIdempotencyStore(connection, keys, name, limits),
    records: (name, parse) => createRedisRecords(connection, keys, name, parse),
    status,
    async health(timeoutMs = DEFAULT_HEALTH_TIMEOUT_MS) {
      const answer = await connection.ping(timeoutMs);
      const now = status();
      return answer.ok
        ? { ...now, ok: true, latencyMs: answer.latencyMs }
        : { ...now, ok: false, detail: answer.detail };
    },
    close: () => connection.close(),
  };
}
