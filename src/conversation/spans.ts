import { httpStatusOf } from '../errors/index.ts';
import type { IngressRequest } from '../ingress/index.ts';
import { failSpanWithCode, setDefined, type Span } from '../telemetry/tracing.ts';
import type { ActionResult, TurnResult } from './types.ts';

/** Action names come from the client: long junk is cut before it becomes an attribute. */
const MAX_NAME = 64;

/** Start attributes of `surfacer.action`: which conversation, surface and action, by which transport. */
export function actionSpanAttributes(cid: string, request: IngressRequest): Record<string, string> {
  return {
    'surfacer.conversation.id': cid,
    'surfacer.surface.id': request.surfaceId.slice(0, MAX_NAME),
    'surfacer.action.kind': request.kind,
    ...(request.kind === 'action' ? { 'surfacer.action.name': request.action.slice(0, MAX_NAME), 'surfacer.action.transport': request.transport } : {}),
  };
}

/**
 * The action's outcome on its span: applied, replayed (its idempotency key answered before),
 * recover (a client error report), or rejected with the canonical code the client got (a stale
 * action: A2UI_C2S_SURFACE_STALE). Only failures of the server (5xx) make the span an error.
 */
export function endActionSpan(span: Span, result: ActionResult): void {
  if (!span.isRecording()) return;
  if (!result.ok) {
    const status = result.status ?? httpStatusOf(result.error.code);
    span.setAttributes({ 'surfacer.action.outcome': 'rejected', 'surfacer.error.code': result.error.code, 'surfacer.action.status': status });
    if (status >= 500) failSpanWithCode(span, result.error.code, result.error.message);
    return;
  }
  const outcome = result.replayed ? 'replayed' : result.kind;
  setDefined(span, {
    'surfacer.action.outcome': outcome, 'surfacer.action.status': result.status,
    'surfacer.error.code': result.kind === 'recover' ? result.error.code : undefined,
  });
}

/** The turn's outcome on its span (`applied`, `planner_failed`, `cancelled`, or refused before planning). */
export function endTurnSpan(span: Span, result: TurnResult | undefined): void {
  if (!span.isRecording()) return;
  if (result === undefined) {
    span.setAttribute('surfacer.turn.outcome', 'not_run');
    return;
  }
  if (!result.ok) {
    span.setAttribute('surfacer.turn.outcome', 'refused');
    failSpanWithCode(span, result.error.code, result.error.message);
    return;
  }
  const { trace } = result;
  setDefined(span, {
    'surfacer.turn.outcome': result.outcome, 'surfacer.turn.index': trace.turn_index,
    'surfacer.turn.applied': trace.validation.applied, 'surfacer.turn.repairs': trace.repair?.used,
    'surfacer.turn.repair_exhausted': trace.repair?.exhausted, 'surfacer.planner.provider': trace.llm.provider,
    'surfacer.error.code': result.error?.code,
  });
  if (result.outcome === 'planner_failed' && result.error !== undefined) failSpanWithCode(span, result.error.code, result.error.message);
}
