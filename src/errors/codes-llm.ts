import type { ErrorSpec } from './types.ts';

// Planner / model boundary codes (design.md §9). Preflight codes reject a request before it is sent.
export const LLM_CODES = {
  LLM_STREAMING_WITH_TOOL_CALLING_FORBIDDEN: { category: 'llm', severity: 'error', recovery: 'none', retryable: false, httpStatus: 500,
    message: 'The model request was misconfigured.' },
  LLM_STREAMING_WITH_RESPONSE_FORMAT_FORBIDDEN: { category: 'llm', severity: 'error', recovery: 'none', retryable: false, httpStatus: 500,
    message: 'The model request was misconfigured.' },
  LLM_STRUCTURED_OUTPUTS_PARALLEL_TOOL_CALLS_FORBIDDEN: { category: 'llm', severity: 'error', recovery: 'none', retryable: false, httpStatus: 500,
    message: 'The model request was misconfigured.' },
  LLM_TOOLS_WITH_RESPONSE_FORMAT_FORBIDDEN: { category: 'llm', severity: 'error', recovery: 'none', retryable: false, httpStatus: 500,
    message: 'The model request was misconfigured.' },
  LLM_REQUEST_KEY_UNSUPPORTED: { category: 'llm', severity: 'warning', recovery: 'soft_fail', retryable: false,
    message: 'A model setting is not supported by this model and was left out.' },
  LLM_UNAVAILABLE: { category: 'llm', severity: 'error', recovery: 'soft_fail', retryable: true, httpStatus: 503,
    message: 'The language model is not reachable; the offline planner answered instead.' },
  LLM_TIMEOUT: { category: 'llm', severity: 'error', recovery: 'soft_fail', retryable: true, httpStatus: 504,
    message: 'The language model took too long to answer.' },
  LLM_HTTP_ERROR: { category: 'llm', severity: 'error', recovery: 'soft_fail', retryable: true, httpStatus: 502,
    message: 'The language model returned an error.' },
  LLM_RESPONSE_INVALID: { category: 'llm', severity: 'error', recovery: 'soft_fail', retryable: true, httpStatus: 502,
    message: 'The language model sent a reply that could not be read.' },
  LLM_CANCELLED: { category: 'llm', severity: 'info', recovery: 'none', retryable: true, httpStatus: 499,
    message: 'The request was cancelled.' },
} as const satisfies Record<string, ErrorSpec>;
