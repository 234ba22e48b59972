/**
 * Where first outcomes are remembered, by idempotency key. Injected so several instances can
 * share one (e.g. Redis with a TTL); the in-memory one below suits a single process.
 */
export interface IdempotencyStore<V> {
  get(key: string): V | undefined | Promise<V | undefined>;
  set(key: string, value: V): void | Promise<void>;
}

/** The in-memory store also takes when an outcome was first stored (rebuilding one from a log). */
export interface MemoryIdempotencyStore<V> extends IdempotencyStore<V> {
  /** `storedAt` (ms, default now) starts the entry's TTL; an already expired entry is not kept. */
  set(key: string, value: V, storedAt?: number): void;
  readonly size: number;
  /**
   * The live entries, oldest first, each with when it was stored (to keep them across a restart).
   * Each entry is one frozen object for as long as it is kept: a checkpoint finds the entries it
   * encoded before by identity.
   */
  entries(): Array<KeptEntry<V>>;
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

export type KeptEntry<V> = Readonly<{ key: string; value: V; storedAt: number }>;

/** `superseded`: its key was set again (a later entry answers for it); the Map holds an entry only while it is not. */
interface Entry<V> { readonly kept: KeptEntry<V>; readonly expiresAt: number; superseded: boolean }

/**
 * A Map for lookups plus a FIFO of entries in insertion order. With one TTL for all, insertion
 * order is expiry order (entries rebuilt from a log are set oldest first), so expired and surplus
 * entries are at the front and eviction is amortised O(1). (Evicting through `map.keys().next()`
 * instead walks over the slots of deleted entries, which V8 keeps until the next rehash: a cost
 * growing with the store's size.) A key set again gets a new entry at the back; its old one is
 * skipped when it reaches the front.
 */
export function createMemoryIdempotencyStore<V>(options: MemoryIdempotencyOptions = {}): MemoryIdempotencyStore<V> {
  const ttlMs = options.ttlMs ?? DEFAULT_IDEMPOTENCY_TTL_MS;
  const maxEntries = options.maxEntries ?? DEFAULT_IDEMPOTENCY_MAX_ENTRIES;
  const clock = options.clock ?? Date.now;
  if (!(ttlMs > 0) || !Number.isSafeInteger(maxEntries) || maxEntries < 1) throw new RangeError('invalid idempotency store bounds');
  const entries = new Map<string, Entry<V>>();
  let queue: Array<Entry<V> | undefined> = [];
  let head = 0;

  const dropFront = (): void => {
    const entry = queue[head]!;
    queue[head++] = undefined;
    if (entries.get(entry.kept.key) === entry) entries.delete(entry.kept.key);
    if (head >= 1024 && head * 2 >= queue.length) {
      queue = queue.slice(head);
      head = 0;
    }
  };
  const sweep = (now: number): void => {
    while (head < queue.length && queue[head]!.expiresAt <= now) dropFront();
  };
  return {
    get size() { sweep(clock()); return entries.size; },
    get(key) {
      const now = clock();
      sweep(now);
      const entry = entries.get(key);
      return entry && entry.expiresAt > now ? entry.kept.value : undefined;
    },
    entries() {
      sweep(clock());
      const live: Array<KeptEntry<V>> = [];
      for (let i = head; i < queue.length; i += 1) {
        const entry = queue[i]!;
        // The flag, not a Map lookup per entry: a checkpoint lists up to the store's bound of them.
        if (!entry.superseded) live.push(entry.kept);
      }
      return live;
    },
    set(key, value, storedAt) {
      const now = clock();
      sweep(now);
      const expiresAt = (storedAt ?? now) + ttlMs;
      if (!(expiresAt > now)) return;
      const entry: Entry<V> = { kept: Object.freeze({ key, value, storedAt: expiresAt - ttlMs }), expiresAt, superseded: false };
      const previous = entries.get(key);
      if (previous !== undefined) previous.superseded = true;
      entries.set(key, entry);
      queue.push(entry);
      while (entries.size > maxEntries) dropFront();
    },
  };
}
