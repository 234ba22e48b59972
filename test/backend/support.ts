import type { Backend } from '../../src/backend/index.ts';
import type { AppDefinition } from '../../src/conversation/app-definition.ts';
import type { ConversationService, ServiceLimits } from '../../src/conversation/index.ts';
import { DEFAULT_IDEMPOTENCY_TTL_MS } from '../../src/ingress/index.ts';
import type { Planner } from '../../src/planner/types.ts';
import { createSeededSource } from '../../src/ui-ir/index.ts';
import { makeService } from '../conversation/fixtures/service.ts';
import { redisForTestFile, type TestRedis } from '../support/redis-server.ts';

/** One real redis-server for a test file, and "instances": services each with their own Redis backend (own connections). */
export function redisInstances(): {
  redis(): TestRedis;
  instance(options?: { prefix?: string; planner?: Planner; seed?: string; app?: AppDefinition; limits?: Partial<ServiceLimits> }): { service: ConversationService; backend: Backend };
} {
  const file = redisForTestFile();
  let instances = 0;
  return {
    redis: file.redis,
    instance(options = {}) {
      instances += 1;
      const backend = file.backend({ prefix: options.prefix ?? 'test:', turns: { pollMs: 20 } });
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
