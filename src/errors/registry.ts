import { A2UI_S2C_CODES } from './codes-a2ui-s2c.ts';
import { CORE_CODES } from './codes-core.ts';
import { HTTP_CODES } from './codes-http.ts';
import { INGRESS_CODES } from './codes-ingress.ts';
import { LLM_CODES } from './codes-llm.ts';
import type { ErrorSpec, SurfacerError } from './types.ts';

/** The one registry: every stable code, with category, severity, recovery and HTTP status. */
export const ERROR_REGISTRY = {
  ...CORE_CODES,
  ...A2UI_S2C_CODES,
  ...INGRESS_CODES,
  ...HTTP_CODES,
  ...LLM_CODES,
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERROR_REGISTRY;

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_REGISTRY, code);
}

export function errorSpec(code: ErrorCode): ErrorSpec {
  return ERROR_REGISTRY[code];
}

/** Builds the canonical error object; the registry decides everything but the detail. */
export function makeError(
  code: ErrorCode,
  technicalDetail: string,
  options: { pointer?: string; message?: string } = {},
): SurfacerError {
  const spec: ErrorSpec = ERROR_REGISTRY[code];
  const error: SurfacerError = {
    code,
    category: spec.category,
    severity: spec.severity,
    message: options.message ?? spec.message,
    technical_detail: technicalDetail,
    recovery_path: spec.recovery,
    retryable: spec.retryable,
  };
  if (options.pointer !== undefined) error.pointer = options.pointer;
  return error;
}

/** The one place an error code becomes an HTTP status; a code outside the registry is a 500. */
export function httpStatusOf(code: string): number {
  return isErrorCode(code) ? (ERROR_REGISTRY[code] as ErrorSpec).httpStatus ?? 500 : 500;
}

const RETRY_AFTER_SECONDS = 2;

/**
 * Seconds a client should wait before retrying (the `Retry-After` header), for the errors that
 * say "briefly unavailable" (503, retryable: e.g. the shared store is away); otherwise undefined.
 * Every host that answers with such an error sends it, wherever the answer is built.
 */
export function retryAfterOf(code: string): number | undefined {
  if (!isErrorCode(code)) return undefined;
  const spec: ErrorSpec = ERROR_REGISTRY[code];
  return spec.retryable && spec.httpStatus === 503 ? RETRY_AFTER_SECONDS : undefined;
}
