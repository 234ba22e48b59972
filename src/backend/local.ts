import type { ConversationStore } from '../conversation/store.ts';
import { createLocalTurnGate } from '../conversation/turn-gate.ts';
import { createRateLimiter } from '../hosting/rate-limit.ts';
import { createMemoryIdempotencyStore } from '../ingress/idempotency.ts';
import { createMemoryRecords } from './memory-records.ts';
import type { Backend } from './types.ts';

/** One process: the given log store (JSONL by default, memory in tests) and in-process state. */
export function createLocalBackend(store: ConversationStore): Backend {
  return {
    engine: 'local',
    store,
    turns: createLocalTurnGate(),
    rateLimiter: (_name, options) => createRateLimiter(options),
    idempotency: (_name, options) => createMemoryIdempotencyStore({ ttlMs: options.ttlMs }),
    // In this process only: an app that must keep its records over a restart on one instance keeps
    // them in a file of its own (the demo's card library: createFileCardLibrary).
    records: () => createMemoryRecords(),
    status: () => ({ ok: true, engine: 'local' }),
    health: async () => ({ ok: true, engine: 'local' }),
    close: () => store.close(),
  };
}
