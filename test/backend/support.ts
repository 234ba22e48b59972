import { createClient } from 'redis';
import { afterAll, beforeAll } from 'vitest';
import { createRedisBackend, type Backend, type RedisBackendOptions } from '../../src/backend/index.ts';
import type { AppDefinition } from '../../src/conversation/app-definition.ts';
import type { ConversationService, LogEntry, ServiceLimits } from '../../src/conversation/index.ts';
import { LOG_VERSION } from '../../src/conversation/log.ts';
import { DEFAULT_IDEMPOTENCY_TTL_MS } from '../../src/ingress/index.ts';
import type { Planner } from '../../src/planner/types.ts';
import { createSeededSource } from '../../src/ui-ir/index.ts';
import { makeService } from '../conversation/fixtures/service.ts';
import { redisForTestFile, startRedis, type RedisForTestFile, type TestRedis } from '../support/redis-server.ts';

export interface InstanceOptions {
  prefix?: string;
  planner?: Planner;
  seed?: string;
  app?: AppDefinition;
  limits?: Partial<ServiceLimits>;
  /** More of the Redis backend's options (an ack or command timeout). */
  backend?: Omit<RedisBackendOptions, 'url' | 'prefix'>;
}

/** A test file's Redis and its "instances": services each with their own Redis backend (own connections). */
export interface RedisInstances<R> {
  redis(): R;
  instance(options?: InstanceOptions): { service: ConversationService; backend: Backend };
}

/** Instances on one real redis-server for the test file, or on the Redis `file` gives (a cluster). */
export function redisInstances(): RedisInstances<TestRedis>;
export function redisInstances<R>(file: RedisForTestFile<R>): RedisInstances<R>;
export function redisInstances(file: RedisForTestFile<unknown> = redisForTestFile()): RedisInstances<unknown> {
  let instances = 0;
  return {
    redis: file.redis,
    instance(options = {}) {
      instances += 1;
      const backend = file.backend({ prefix: options.prefix ?? 'test:', turns: { pollMs: 20 }, ...options.backend });
      const { service } = makeService(backend.store, {
        demo: true, turns: backend.turns, entropy: createSeededSource(options.seed ?? `instance-${instances}`),
        idempotency: backend.idempotency('client-errors', { ttlMs: DEFAULT_IDEMPOTENCY_TTL_MS }),
        ...(options.planner ? { planner: options.planner } : {}),
        ...(options.app ? { app: options.app } : {}),
        ...(options.limits ? { limits: options.limits } : {}),
      });
      return { service, backend };
    },
  };
}

/** A conversation's first log entry, as the backends' tests append it. */
export const createdEntry = (cid: string): LogEntry => ({
  type: 'created', v: LOG_VERSION, cid, ownerSessionId: 'owner', a2uiToken: 'a-token-of-16-chars-or-more', at: new Date(0).toISOString(),
});

/** Polls `check` (a rejection counts as false) until it holds; fails naming `what` after `timeoutMs`. */
export async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The commands one after the other on one new connection to `node`; the last one's answer. */
export async function redisCommand(node: TestRedis, ...commands: string[][]): Promise<unknown> {
  const client = createClient({ url: node.url });
  client.on('error', () => {});
  await client.connect();
  try {
    let answer: unknown;
    for (const args of commands) answer = await client.sendCommand(args);
    return answer;
  } finally { client.destroy(); }
}

/** The small deployment for a test file: one primary and its replica (real redis-server processes). */
export interface RedisWithReplica {
  /** From the first test on. */
  readonly primary: TestRedis;
  readonly replica: TestRedis;
  /** A Redis backend on the primary, its own connections; closed after the file. */
  backend(options: Omit<RedisBackendOptions, 'url'>): Backend;
  /** The primary's INFO replication. */
  replication(): Promise<string>;
}

/** Starts the pair before the file's tests (the replica online) and stops it, and its backends, after them. */
export function redisWithReplica(): RedisWithReplica {
  let primary: TestRedis | undefined;
  let replica: TestRedis | undefined;
  const backends: Backend[] = [];
  const started = (node: TestRedis | undefined): TestRedis => {
    if (node === undefined) throw new Error('the Redis pair is not started (use it inside a test)');
    return node;
  };
  const pair: RedisWithReplica = {
    get primary() { return started(primary); },
    get replica() { return started(replica); },
    backend(options) {
      const backend = createRedisBackend({ ...options, url: pair.primary.url });
      backends.push(backend);
      return backend;
    },
    replication: async () => String(await redisCommand(pair.primary, ['INFO', 'replication'])),
  };
  beforeAll(async () => {
    primary = await startRedis();
    replica = await startRedis({ args: ['--replicaof', '127.0.0.1', String(primary.port)] });
    await waitFor(async () => /^slave0:.*state=online/m.test(await pair.replication()), 'replica online');
  });
  afterAll(async () => {
    await Promise.all(backends.map((b) => b.close()));
    await replica?.stop();
    await primary?.stop();
  });
  return pair;
}
