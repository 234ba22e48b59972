import type { IdempotencyStore } from '../../ingress/idempotency.ts';
import type { RedisConnection } from './connection.ts';
import type { RedisKeys } from './keys.ts';

/**
 * First outcomes by key with a TTL, shared by every instance: SET NX keeps the first one when two
 * instances answer the same key at once. Values travel as JSON (outcomes are plain data).
 */
export function createRedisIdempotencyStore<V>(
  connection: RedisConnection, keys: RedisKeys, name: string, options: { ttlMs: number },
): IdempotencyStore<V> {
  return {
    async get(key) {
      const text = await connection.call((client) => client.get(keys.idempotency(name, key)), { span: { name: 'idempotency.get', command: 'GET' } });
      return text === null ? undefined : JSON.parse(text) as V;
    },
    async set(key, value) {
      await connection.call((client) => client.set(keys.idempotency(name, key), JSON.stringify(value), {
        condition: 'NX', expiration: { type: 'PX', value: options.ttlMs },
      }), { span: { name: 'idempotency.set', command: 'SET' } });
    },
  };
}
