import type { ConversationStore } from '../conversation/store.ts';
import type { TurnGate } from '../conversation/turn-gate.ts';
import type { RateLimiter } from '../hosting/rate-limit.ts';
import type { IdempotencyStore } from '../ingress/idempotency.ts';

/**
 * Everything several server instances must agree on, behind one interface per concern. The
 * local backend (JSONL or memory log, in-process state) serves one process; the Redis backend
 * serves any number of instances behind any load balancer. `surfacer serve` picks one; the
 * service and the hosts only ever see these interfaces.
 */
export interface Backend {
  readonly engine: 'local' | 'redis';
  /** The conversation logs (IR = fold(log)); with Redis also the fan-out between instances. */
  readonly store: ConversationStore;
  /** One running planner turn per conversation, and its cancellation. */
  readonly turns: TurnGate;
  /** A token bucket per key, shared by every instance (`name` keeps limiters apart). */
  rateLimiter(name: string, options: { perMinute: number; burst: number }): RateLimiter;
  /** First outcomes by key, kept for `ttlMs`, shared by every instance (client error reports). */
  idempotency<V>(name: string, options: { ttlMs: number }): IdempotencyStore<V>;
  /**
   * Records an app keeps outside the conversation logs (what an action's effect saves, such as
   * the demo's card library), shared by every instance: numbered without collisions, saved at
   * most once per (owner, key). `parse` checks what is read back.
   */
  records<T>(name: string, parse: (value: unknown) => T): KeyedRecords<T>;
  /**
   * What this process last saw of the shared state, without asking it (liveness: `/healthz`
   * must answer whatever the backend does).
   */
  status(): BackendHealth;
  /**
   * Whether the shared state answers now (readiness: `/readyz`): resolves within `timeoutMs`
   * (default 500), not ok when it did not answer in time or is known to be stalled or down.
   */
  health(timeoutMs?: number): Promise<BackendHealth>;
  close(): Promise<void>;
}

/**
 * Saved records, per owner, keyed by the idempotency key of the request that saved them. The
 * number a record is made with is unique across every instance of a backend (Redis: INCR), so
 * ids built from it never collide; a save under an (owner, key) already used returns the record
 * saved first and stores nothing, whichever instance either request reached.
 */
export interface KeyedRecords<T> {
  /** Stores `make(n)` (n: the next number) under (owner, key) unless that key is used; resolves with the stored record once durable. */
  save(owner: string, key: string | undefined, make: (n: number) => T): Promise<T>;
  /** The owner's records, newest first. */
  list(owner: string): Promise<T[]>;
}

export interface BackendHealth {
  ok: boolean;
  engine: Backend['engine'];
  detail?: string;
  latencyMs?: number;
  /** Redis: the connection's last known state (see RedisState) and commands waiting for an answer. */
  state?: 'connecting' | 'ready' | 'stalled' | 'down';
  inFlight?: number;
  /** Redis: commands and round trips since start (see RedisConnection.stats). */
  commands?: number;
  roundTrips?: number;
}

/** How long a readiness check waits for the backend by default. */
export const DEFAULT_HEALTH_TIMEOUT_MS = 500;
