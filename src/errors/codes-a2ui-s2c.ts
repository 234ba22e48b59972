import type { ErrorSpec } from './types.ts';

// Server→client A2UI codes. Owned by src/compiler (semantic validator, guardrails, recovery).
// `recovery` is the recovery policy of design.md §5.1, chosen per code.
export const A2UI_S2C_CODES = {
  A2UI_S2C_SCHEMA_INVALID: { category: 'a2ui_s2c', severity: 'error', recovery: 'surface_fail', retryable: false,
    message: 'A panel could not be displayed and was replaced by plain text.' },
} as const satisfies Record<string, ErrorSpec>;
