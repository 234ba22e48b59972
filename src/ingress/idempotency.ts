/**
 * Where first outcomes are remembered, by idempotency key. Injected so several instances can
 * share one (e.g. Redis with a TTL); the in-memory one below suits a single process.
 */
export interface IdempotencyStore<V> {
  get(key: string): V | undefined | Promise<V | undefined>;
  set(key: string, value: V): void | Promise<void>;
}

export interface MemoryIdempotencyOptions {
  /** How long an outcome is replayed. Default 24 h. */
  readonly ttlMs?: number;
  /** Entries kept; the oldest is dropped first. Default 10,000. */
  readonly maxEntries?: number;
  /** Milliseconds; injected so tests control expiry. */
  readonly clock?: () => number;
}

export const DEFAULT_IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
export const DEFAULT_IDEMPOTENCY_MAX_ENTRIES = 10_000;

/**
 * Map in insertion order; with one TTL for all, insertion order is expiry order, so expired
 * entries are always at the front and eviction is amortised O(1).
 */
export function createMemoryIdempotencyStore<V>(options: MemoryIdempotencyOptions = {}): IdempotencyStore<V> & { readonly size: number } {
  const ttlMs = options.ttlMs ?? DEFAULT_IDEMPOTENCY_TTL_MS;
  const maxEntries = options.maxEntries ?? DEFAULT_IDEMPOTENCY_MAX_ENTRIES;
  const clock = options.clock ?? Date.now;
  if (!(ttlMs > 0) || !Number.isSafeInteger(maxEntries) || maxEntries < 1) throw new RangeError('invalid idempotency store bounds');
  const entries = new Map<string, { value: V; expiresAt: number }>();

  const sweep = (now: number): void => {
    for (const [key, entry] of entries) {
      if (entry.expiresAt > now) break;
      entries.delete(key);
    }
  };
  return {
    get size() { sweep(clock()); return entries.size; },
    get(key) {
      const now = clock();
      sweep(now);
      const entry = entries.get(key);
      return entry && entry.expiresAt > now ? entry.value : undefined;
    },
    set(key, value) {
      const now = clock();
      sweep(now);
      entries.delete(key);
      entries.set(key, { value, expiresAt: now + ttlMs });
      while (entries.size > maxEntries) {
        const oldest = entries.keys().next().value as string;
        entries.delete(oldest);
      }
    },
  };
}
