import { z } from 'zod';

export const ErrorCategory = z.enum([
  'directive', 'ir', 'action', 'compiler', 'a2ui_s2c', 'a2ui_c2s', 'http', 'session', 'llm', 'internal', 'cli',
]);
export type ErrorCategory = z.infer<typeof ErrorCategory>;

export const ErrorSeverity = z.enum(['info', 'warning', 'error', 'fatal']);
export type ErrorSeverity = z.infer<typeof ErrorSeverity>;

/**
 * What the system does about an error. `soft_fail` keeps going without the bad part,
 * `surface_fail` deletes the surface and shows a plain-text fallback, `epoch_reset` rotates
 * the epoch and re-initialises; the rest tell the client what it can do.
 */
export const RecoveryPath = z.enum([
  'none', 'drop_directive', 'soft_fail', 'surface_fail', 'epoch_reset',
  'regenerate', 'retry', 'fix_request', 'reauthenticate',
]);
export type RecoveryPath = z.infer<typeof RecoveryPath>;

export interface ErrorSpec {
  readonly category: ErrorCategory;
  readonly severity: ErrorSeverity;
  readonly recovery: RecoveryPath;
  /** HTTP status when this error is the reason a request is rejected. */
  readonly httpStatus?: number;
  readonly retryable: boolean;
  /** Plain, user-facing sentence. Technical detail goes in `technical_detail`. */
  readonly message: string;
}

/** The canonical error object of design.md §6; every rejection and warning uses it. */
export const SurfacerErrorSchema = z.object({
  code: z.string(),
  category: ErrorCategory,
  severity: ErrorSeverity,
  message: z.string(),
  technical_detail: z.string(),
  recovery_path: RecoveryPath,
  retryable: z.boolean(),
  /** RFC 6901 pointer to the offending field of the input, when there is one. */
  pointer: z.string().optional(),
});
export type SurfacerError = z.infer<typeof SurfacerErrorSchema>;
