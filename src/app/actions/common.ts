import {
  commitSurface, makeError, type ConversationIr, type DataMap, type Draw, type FieldBlock, type Surface, type TransitionResult,
} from '../../index.ts';
import { normaliseForCommit, type FieldProblem } from '../commit.ts';
import { sentValues } from '../context.ts';
import { viewFields } from '../fields.ts';

export type Failure = Extract<TransitionResult, { ok: false }>;

/** A user-facing refusal: the message names the fields; the pointer is the first one's context key. */
export function inputInvalid(problems: readonly FieldProblem[]): Failure {
  const message = problems.length === 1 ? problems[0]!.message : problems.map((p) => p.message).join(' ');
  return {
    ok: false,
    error: makeError('ACTION_INPUT_INVALID', problems.map((p) => `${p.name} (${p.rule}): ${p.message}`).join('; '), {
      pointer: `/${problems[0]?.name ?? ''}`, message,
    }),
  };
}

type Checked = { ok: true; fields: readonly FieldBlock[]; sent: DataMap; committed: DataMap } | Failure;

/**
 * The last check per context object: a card's submit is checked by its effect's `prepare`, then
 * by its handler, with the same surface and context (the IR and the checked context are never
 * mutated), so the second is a lookup. A retried decision on a newer surface checks again.
 */
const lastChecks = new WeakMap<object, { surface: Surface; checked: Checked }>();

/** Pure: a submit's domain check, the values as sent and their normalised (committed) form. */
export function checkSubmission(surface: Surface, context: Record<string, unknown>): Checked {
  const last = lastChecks.get(context);
  if (last?.surface === surface) return last.checked;
  const checked = checkFields(surface, context);
  lastChecks.set(context, { surface, checked });
  return checked;
}

function checkFields(surface: Surface, context: Record<string, unknown>): Checked {
  const fields = viewFields(surface.view);
  const sent = sentValues(fields, context);
  const result = normaliseForCommit(fields, { ...surface.data.draft, ...sent });
  return result.ok ? { ok: true, fields, sent, committed: result.committed } : inputInvalid(result.problems);
}

/**
 * What every submit shares: the draft becomes the values as sent, committed their normalised
 * form; a value the fields refuse leaves everything unchanged.
 */
export function commitSubmission(
  ir: ConversationIr, surface: Surface, context: Record<string, unknown>, draw: Draw,
): { ok: true; ir: ConversationIr; fields: readonly FieldBlock[]; committed: DataMap } | Failure {
  const checked = checkSubmission(surface, context);
  if (!checked.ok) return checked;
  const committed = commitSurface(ir, surface.id, { draft: checked.sent, committed: checked.committed }, draw);
  return committed.ok ? { ok: true, ir: committed.ir, fields: checked.fields, committed: checked.committed } : committed;
}
