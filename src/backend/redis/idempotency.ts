import type { IdempotencyStore } from '../../ingress/idempotency.ts';
import type { RedisConnection } from './connection.ts';
import type { RedisKeys } from './keys.ts';
import { redisScript } from './script.ts';

/** SET NX with its expiry, as a script: a durable write (its WAIT follows it on one connection). */
const SET_FIRST = redisScript(`return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])`);

/**
 * First outcomes by key with a TTL, shared by every instance: SET NX keeps the first one when two
 * instances answer the same key at once. Values travel as JSON (outcomes are plain data). Kept
 * like a log entry (a durable write): a record that "this message was answered" lost in a
 * failover would let a resent message run its turn a second time.
 */
export function createRedisIdempotencyStore<V>(
  connection: RedisConnection, keys: RedisKeys, name: string, options: { ttlMs: number },
): IdempotencyStore<V> {
  return {
    async get(key) {
      const text = await connection.call((client) => client.get(keys.idempotency(name, key)), { key: keys.idempotency(name, key), span: { name: 'idempotency.get', command: 'GET' } });
      return text === null ? undefined : JSON.parse(text) as V;
    },
    async set(key, value) {
      const at = keys.idempotency(name, key);
      await connection.durable(at, (node) => SET_FIRST.run(node, [at], [JSON.stringify(value), String(options.ttlMs)]), { span: { name: 'idempotency.set', command: 'EVALSHA' } });
    },
  };
}
