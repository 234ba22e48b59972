import { createLocalBackend } from '../../src/backend/local.ts';
import type { Backend } from '../../src/backend/types.ts';
import { createMemoryStore, StoreUnavailableError } from '../../src/conversation/index.ts';
import { createMemoryIdempotencyStore, type IdempotencyStore } from '../../src/ingress/idempotency.ts';

/**
 * A local backend whose shared idempotency store `name` cannot keep a record while `refusing()`
 * (as a Redis one whose replica does not acknowledge it in time); reads, and the other stores,
 * work as usual.
 */
export function backendRefusingRecords(name: string, refusing: () => boolean): Backend {
  return {
    ...createLocalBackend(createMemoryStore()),
    idempotency<V>(which: string, options: { ttlMs: number }): IdempotencyStore<V> {
      const inner = createMemoryIdempotencyStore<V>({ ttlMs: options.ttlMs });
      if (which !== name) return inner;
      return {
        get: (key) => inner.get(key),
        set: async (key, value) => {
          if (refusing()) throw new StoreUnavailableError('redis: the write reached 0 of 1 replicas within 1000 ms');
          await inner.set(key, value);
        },
      };
    },
  };
}
