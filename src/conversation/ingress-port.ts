import type { SurfacerError } from '../errors/index.ts';
import {
  applyIngress, checkIngress, type ActionRegistry, type ActionRequest, type Ingress,
} from '../ingress/index.ts';
import type { ConversationIr, Draw } from '../ui-ir/index.ts';

export type { ActionRequest, IngressRequest, IngressOutcome } from '../ingress/index.ts';

/**
 * The seam to src/ingress. Live requests go through the shared pipeline's `handle` (its own
 * idempotency store and queue, with our log append as its `commit`); fold(log) re-applies an
 * accepted request through `replay` with the draw that was recorded. Tests may inject doubles.
 */
export interface IngressPort {
  handle: Ingress['handle'];
  replay(ir: ConversationIr, request: ActionRequest, draw: Draw, actions: ActionRegistry):
    { ok: true; ir: ConversationIr } | { ok: false; error: SurfacerError };
}

/** The real pipeline: `createIngress(...)` for live requests, checkIngress + applyIngress for replay. */
export function ingressPort(ingress: Pick<Ingress, 'handle'>): IngressPort {
  return {
    handle: (request, access) => ingress.handle(request, access),
    replay(ir, request, draw, actions) {
      const checked = checkIngress(request, ir, actions);
      if (!checked.ok) return { ok: false, error: checked.error };
      const applied = applyIngress(ir, checked, draw);
      return applied.ok ? { ok: true, ir: applied.ir } : { ok: false, error: applied.error };
    },
  };
}
