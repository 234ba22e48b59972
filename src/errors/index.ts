export { ERROR_REGISTRY, errorSpec, httpStatusOf, isErrorCode, makeError, retryAfterOf } from './registry.ts';
export type { ErrorCode } from './registry.ts';
export { ErrorCategory, ErrorSeverity, RecoveryPath, SurfacerErrorSchema } from './types.ts';
export type { ErrorSpec, SurfacerError } from './types.ts';
export { StoreUnavailableError } from './store-unavailable.ts';
