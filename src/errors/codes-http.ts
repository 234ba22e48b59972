import type { ErrorSpec } from './types.ts';

// HTTP host, session and conversation-service codes. Owned by src/host-html and src/conversation.
// Merged into ERROR_REGISTRY by registry.ts.
export const HTTP_CODES = {
  HTTP_NOT_FOUND: { category: 'http', severity: 'error', recovery: 'none', retryable: false, httpStatus: 404,
    message: 'Not found.' },
  HTTP_UNAUTHORIZED: { category: 'session', severity: 'error', recovery: 'reauthenticate', retryable: false, httpStatus: 401,
    message: 'This endpoint needs a valid access token.' },
  HTTP_ORIGIN_FORBIDDEN: { category: 'session', severity: 'error', recovery: 'reauthenticate', retryable: false, httpStatus: 403,
    message: 'This request did not come from this site. Please reload the page and try again.' },
  HTTP_CSRF_INVALID: { category: 'session', severity: 'error', recovery: 'reauthenticate', retryable: false, httpStatus: 403,
    message: 'Your session has expired or the page is too old. Please reload the page and try again.' },
  HTTP_BAD_REQUEST: { category: 'http', severity: 'error', recovery: 'fix_request', retryable: false, httpStatus: 400,
    message: 'The request was not understood.' },
  HTTP_PAYLOAD_TOO_LARGE: { category: 'http', severity: 'error', recovery: 'fix_request', retryable: false, httpStatus: 413,
    message: 'What you sent is too large.' },
  HTTP_TOO_MANY_CONVERSATIONS: { category: 'session', severity: 'error', recovery: 'none', retryable: false, httpStatus: 429,
    message: 'You have too many conversations open. Please continue an existing one.' },
  CONVERSATION_BUSY: { category: 'http', severity: 'warning', recovery: 'retry', retryable: true, httpStatus: 429,
    message: 'The assistant is still working on this conversation. Please wait a moment.' },
  CONVERSATION_LOG_FAILED: { category: 'internal', severity: 'fatal', recovery: 'retry', retryable: true, httpStatus: 503,
    message: 'Your change could not be saved. Please try again.' },
  STORE_UNAVAILABLE: { category: 'internal', severity: 'error', recovery: 'retry', retryable: true, httpStatus: 503,
    message: 'The service is briefly unavailable, so this may not have been saved. Please check and try again in a moment.' },
  PLANNER_FAILED: { category: 'llm', severity: 'error', recovery: 'retry', retryable: true, httpStatus: 502,
    message: 'The assistant could not answer. Please try again.' },
  PLANNER_TIMEOUT: { category: 'llm', severity: 'error', recovery: 'retry', retryable: true, httpStatus: 504,
    message: 'The assistant took too long to answer. Please try again.' },
  PLANNER_CANCELLED: { category: 'llm', severity: 'info', recovery: 'none', retryable: true, httpStatus: 200,
    message: 'Stopped. Your message was not sent to the assistant.' },
  MESSAGE_ALREADY_ANSWERED: { category: 'http', severity: 'info', recovery: 'none', retryable: false, httpStatus: 200,
    message: 'This message was answered already.' },
} as const satisfies Record<string, ErrorSpec>;
