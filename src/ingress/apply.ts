import { httpStatusOf, makeError } from '../errors/index.ts';
import { ActionEventSchema, type ActionEvent } from '../planner/action-event.ts';
import { addToast, ConversationIr, isValidConversationIr, type Draw, type ToastLevel } from '../ui-ir/index.ts';
import type { CheckedAction } from './check.ts';
import { reject, type Rejection } from './result.ts';

export interface Applied {
  readonly ok: true;
  readonly ir: ConversationIr;
  readonly toast?: { level: ToastLevel; text: string };
  /** The planner turn's input the action continues with (continueWith), if any. */
  readonly continuation?: ActionEvent;
}

/**
 * Pure: runs the checked action's handler with the effect's result (live: what the effect step
 * returned; fold: what the log recorded). A toast it returns is also recorded in the IR
 * (conversation toasts + the surface's `/ui/toast`), so both hosts show it from state. The
 * result is validated whole: a handler that returns an invalid IR changes nothing. The check is
 * `ConversationIr.safeParse` memoised by object identity (ui-ir isValidConversationIr), so only
 * what the handler changed is parsed again; the full parse runs only to report a failure.
 */
export function applyIngress(ir: ConversationIr, checked: CheckedAction, draw: Draw, effect?: { result: unknown }): Applied | Rejection {
  let result: ReturnType<CheckedAction['action']['handle']>;
  try {
    result = checked.action.handle(ir, checked.surface, checked.context, draw, effect?.result);
  } catch (e) {
    return reject('INTERNAL_ERROR', `action "${checked.action.name}" threw: ${(e as Error)?.message ?? String(e)}`);
  }
  if (!result.ok) {
    const { error } = result;
    return { ok: false, error, status: httpStatusOf(error.code) };
  }
  const next = result.toast
    ? addToast(result.ir, { ...result.toast, surfaceId: checked.surface.id }, draw)
    : result.ir;
  const valid = isValidConversationIr(next, ir) ? undefined : ConversationIr.safeParse(next);
  if (valid !== undefined && !valid.success) {
    const issue = valid.error.issues[0];
    return {
      ok: false,
      error: makeError('IR_SCHEMA_INVALID', `action "${checked.action.name}" produced an invalid IR: ${issue?.message ?? ''}`),
      status: httpStatusOf('IR_SCHEMA_INVALID'),
    };
  }
  // continueWith is app code like handle: a throw or a malformed event refuses the action (500).
  let continuation: ActionEvent | undefined;
  try {
    const event = checked.action.continueWith?.({ before: ir, after: next, surface: checked.surface, context: checked.context, effect: effect?.result });
    continuation = event === undefined ? undefined : ActionEventSchema.parse(event);
  } catch (e) {
    return reject('INTERNAL_ERROR', `continuation of action "${checked.action.name}" failed: ${(e as Error)?.message ?? String(e)}`);
  }
  return { ok: true, ir: next, ...(result.toast ? { toast: result.toast } : {}), ...(continuation ? { continuation } : {}) };
}
