import { makeError } from '../../errors/index.ts';
import type { TransitionResult } from '../../ui-ir/index.ts';
import type { FieldProblem } from '../commit.ts';

export type Failure = Extract<TransitionResult, { ok: false }>;

/** A user-facing refusal: the message names the fields; the pointer is the first one's context key. */
export function inputInvalid(problems: readonly FieldProblem[]): Failure {
  const message = problems.length === 1 ? problems[0]!.message : problems.map((p) => p.message).join(' ');
  return {
    ok: false,
    error: makeError('ACTION_INPUT_INVALID', problems.map((p) => `${p.name}: ${p.message}`).join('; '), {
      pointer: `/${problems[0]?.name ?? ''}`, message,
    }),
  };
}
