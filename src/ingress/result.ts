import { httpStatusOf, makeError, type ErrorCode, type SurfacerError } from '../errors/index.ts';

/** One field-level problem, for hosts that show errors next to inputs (pointer into the context). */
export interface FieldIssue {
  readonly pointer: string;
  readonly message: string;
}

/** Every failure of the pipeline: the canonical error object and the HTTP status the registry gives it. */
export interface Rejection {
  readonly ok: false;
  readonly error: SurfacerError;
  readonly status: number;
  readonly issues?: readonly FieldIssue[];
}

export type IngressErrorCode = Extract<ErrorCode, `A2UI_C2S_${string}` | `ACTION_EFFECT_${string}`> | 'INTERNAL_ERROR' | 'IR_SCHEMA_INVALID';

export function reject(
  code: IngressErrorCode, detail: string, pointer?: string, issues?: readonly FieldIssue[],
): Rejection {
  const error = makeError(code, detail, pointer === undefined ? {} : { pointer });
  return issues === undefined
    ? { ok: false, error, status: httpStatusOf(code) }
    : { ok: false, error, status: httpStatusOf(code), issues };
}
