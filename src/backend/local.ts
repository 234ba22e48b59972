import type { ConversationStore } from '../conversation/store.ts';
import { createLocalTurnGate } from '../conversation/turn-gate.ts';
import { createRateLimiter } from '../hosting/rate-limit.ts';
import { createMemoryIdempotencyStore } from '../ingress/idempotency.ts';
import type { Backend } from './types.ts';

/** One process: the given log store (JSONL by default, memory in tests) and in-process state. */
export function createLocalBackend(store: ConversationStore): Backend {
  return {
    engine: 'local',
    store,
    turns: createLocalTurnGate(),
    rateLimiter: (_name, options) => createRateLimiter(options),
    idempotency: (_name, options) => createMemoryIdempotencyStore({ ttlMs: options.ttlMs }),
    status: () => ({ ok: true, engine: 'local' }),
    health: async () => ({ ok: true, engine: 'local' }),
    close: () => store.close(),
  };
}
