import { makeError, type SurfacerError } from '../errors/index.ts';
import {
  appliedOutcome, applyIngress, checkIngress, storedOutcome, type ActionRegistry, type ActionRequest, type Ingress,
  type StoredOutcome,
} from '../ingress/index.ts';
import type { ActionEvent } from '../planner/action-event.ts';
import type { ConversationIr, Draw } from '../ui-ir/index.ts';

export type { ActionRequest, IngressRequest, IngressOutcome, KeptEntry, StoredOutcome } from '../ingress/index.ts';

/**
 * The seam to src/ingress for live requests: `createIngress(...)`. The service calls `apply`
 * inside its own per-conversation queue, with the conversation's log-backed idempotency store;
 * hosts parse client input through the same instance, so one set of limits and one surface-id
 * decoder apply everywhere. Tests may inject doubles.
 */
export type IngressPort = Pick<Ingress, 'apply' | 'parseHtml' | 'parseA2ui'>;

/**
 * fold(log): re-applies an accepted request with the draw that was recorded, through the same
 * pure checks and handler as the live pipeline, and rebuilds the outcome it answered, with the
 * fingerprint of the request as logged (the same as live: it is computed from JSON values).
 * An action with a side effect gets the result the log recorded; the effect never runs here.
 */
export function replayAction(ir: ConversationIr, request: ActionRequest, draw: Draw, actions: ActionRegistry, effect?: { result: unknown }):
  { ok: true; ir: ConversationIr; outcome: StoredOutcome; continuation?: ActionEvent } | { ok: false; error: SurfacerError } {
  const checked = checkIngress(request, ir, actions);
  if (!checked.ok) return { ok: false, error: checked.error };
  let recorded = effect;
  const schema = checked.action.effect?.result;
  if (recorded !== undefined && schema !== undefined) {
    const parsed = schema.safeParse(recorded.result);
    if (!parsed.success) return { ok: false, error: makeError('ACTION_EFFECT_FAILED', `the recorded effect result does not match its schema: ${parsed.error.issues[0]?.message ?? ''}`) };
    recorded = { result: parsed.data };
  }
  const applied = applyIngress(ir, checked, draw, recorded);
  if (!applied.ok) return { ok: false, error: applied.error };
  return {
    ok: true, ir: applied.ir, outcome: storedOutcome(request, appliedOutcome(request, applied.ir, applied.toast)),
    ...(applied.continuation ? { continuation: applied.continuation } : {}),
  };
}
