import { ERROR_REGISTRY, makeError, type ErrorCode, type ErrorSpec, type SurfacerError } from '../errors/index.ts';
import { HTTP_CODES } from '../errors/codes-http.ts';

/**
 * Codes of the registry plus the HTTP/session codes of codes-http.ts. Once HTTP_CODES is merged
 * into ERROR_REGISTRY this stays correct (same specs), and can shrink to `makeError`.
 */
export type AnyErrorCode = ErrorCode | keyof typeof HTTP_CODES;

function specOf(code: AnyErrorCode): ErrorSpec {
  if (Object.hasOwn(HTTP_CODES, code)) return HTTP_CODES[code as keyof typeof HTTP_CODES];
  return ERROR_REGISTRY[code as ErrorCode];
}

export function makeAnyError(code: AnyErrorCode, technicalDetail: string, options: { message?: string } = {}): SurfacerError {
  if (!Object.hasOwn(HTTP_CODES, code)) return makeError(code as ErrorCode, technicalDetail, options);
  const spec = specOf(code);
  return {
    code, category: spec.category, severity: spec.severity, message: options.message ?? spec.message,
    technical_detail: technicalDetail, recovery_path: spec.recovery, retryable: spec.retryable,
  };
}

/** The one place a code becomes an HTTP status (registry first, then HTTP_CODES). */
export function statusOf(code: string): number {
  if (Object.hasOwn(HTTP_CODES, code) || Object.hasOwn(ERROR_REGISTRY, code)) {
    return specOf(code as AnyErrorCode).httpStatus ?? 500;
  }
  return 500;
}
