import { decodeA2uiSurfaceId } from '../compiler/index.ts';
import { htmlSurfaceStats } from '../compiler/html/index.ts';
import type { AppDefinition } from '../conversation/app-definition.ts';
import {
  createConversationService, type ConversationService, type ConversationStore, type DirectivesMode,
  type Logger, type RunDirectives, type ServiceLimits, type TurnGate,
} from '../conversation/index.ts';
import { createIngress, type IdempotencyStore, type IngressLimits, type StoredOutcome } from '../ingress/index.ts';
import type { Planner } from '../planner/types.ts';
import type { EntropySource } from '../ui-ir/index.ts';

export interface ConversationStackOptions {
  app: AppDefinition;
  /** Default: the app's offline planner. */
  planner?: Planner;
  store: ConversationStore;
  /** One running turn per conversation; default this process's (src/backend gives a shared one). */
  turns?: TurnGate;
  /** Where client error reports' first outcomes are kept; default in this process. */
  idempotency?: IdempotencyStore<StoredOutcome>;
  entropy: EntropySource;
  /** Default: the real runner (turn.ts runDirectivesAdapter). */
  runDirectives?: RunDirectives;
  mode?: DirectivesMode;
  limits?: Partial<ServiceLimits>;
  ingressLimits?: Partial<IngressLimits>;
  logger?: Logger;
  randomToken?: (bytes: number) => string;
}

/**
 * The composition of one conversation service with the shared ingress (A2UI surface ids
 * decoded as compiler/a2ui encodes them) and HTML compiler stats for traces. Both hosts take
 * the service this returns.
 */
export function createConversationStack(options: ConversationStackOptions): ConversationService {
  const ingress = createIngress({
    actions: options.app.actions, decodeSurfaceId: decodeA2uiSurfaceId, source: options.entropy,
    ...(options.ingressLimits ? { limits: options.ingressLimits } : {}),
    ...(options.idempotency ? { idempotency: options.idempotency } : {}),
  });
  return createConversationService({
    app: options.app, store: options.store, entropy: options.entropy, ingress,
    ...(options.turns ? { turns: options.turns } : {}),
    surfaceStats: (ir) => htmlSurfaceStats(ir),
    ...(options.planner ? { planner: options.planner } : {}),
    ...(options.runDirectives ? { runDirectives: options.runDirectives } : {}),
    ...(options.mode ? { mode: options.mode } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.randomToken ? { randomToken: options.randomToken } : {}),
  });
}
