import type { ErrorSpec } from './types.ts';

// Planner / model boundary codes (design.md §9).
export const LLM_CODES = {
  LLM_STREAMING_WITH_TOOL_CALLING_FORBIDDEN: { category: 'llm', severity: 'error', recovery: 'none', retryable: false,
    message: 'The model request was misconfigured.' },
  LLM_STREAMING_WITH_RESPONSE_FORMAT_FORBIDDEN: { category: 'llm', severity: 'error', recovery: 'none', retryable: false,
    message: 'The model request was misconfigured.' },
  LLM_STRUCTURED_OUTPUTS_PARALLEL_TOOL_CALLS_FORBIDDEN: { category: 'llm', severity: 'error', recovery: 'none', retryable: false,
    message: 'The model request was misconfigured.' },
} as const satisfies Record<string, ErrorSpec>;
