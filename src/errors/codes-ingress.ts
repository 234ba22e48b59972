import type { ErrorSpec } from './types.ts';

// Client→server and HTTP codes. Owned by src/ingress and the hosts. Statuses follow design.md §6.
export const INGRESS_CODES = {
  A2UI_C2S_ENVELOPE_INVALID: { category: 'a2ui_c2s', severity: 'error', recovery: 'fix_request', retryable: false, httpStatus: 400,
    message: 'The request was not understood.' },
  A2UI_C2S_ACTION_FORBIDDEN: { category: 'a2ui_c2s', severity: 'error', recovery: 'regenerate', retryable: false, httpStatus: 403,
    message: 'That action is not available here.' },
  // A per-item action naming a list or an item key the surface does not show at the client's
  // (current) rev: no renderer could have sent it, so it is forged or broken, not stale. 400 like
  // any request that cannot be understood against the current UI; nothing is applied.
  A2UI_C2S_ITEM_UNKNOWN: { category: 'a2ui_c2s', severity: 'error', recovery: 'regenerate', retryable: false, httpStatus: 400,
    message: 'That item is not on this panel.' },
  // A table's sort or page request naming a table, column, direction or page the surface does
  // not offer at the client's (current) rev: no rendering carries such a button, so like an
  // unknown item it is forged or broken, not stale. Nothing is applied.
  A2UI_C2S_TABLE_CONTROL_INVALID: { category: 'a2ui_c2s', severity: 'error', recovery: 'regenerate', retryable: false, httpStatus: 400,
    message: 'That table cannot be sorted or paged that way.' },
  A2UI_C2S_SURFACE_STALE: { category: 'a2ui_c2s', severity: 'warning', recovery: 'regenerate', retryable: false, httpStatus: 409,
    message: 'UI is out of date. Please regenerate.' },
  A2UI_C2S_CONTEXT_TOO_LARGE: { category: 'a2ui_c2s', severity: 'error', recovery: 'fix_request', retryable: false, httpStatus: 413,
    message: 'What you sent is too large.' },
  // An idempotency key already answered a different request (its fingerprint differs): 422 as
  // the IETF Idempotency-Key draft says. Nothing is applied and the refusal is not remembered.
  // A warning like STALE: for a person it is an outdated form (another tab, the back button).
  A2UI_C2S_IDEMPOTENCY_KEY_REUSED: { category: 'a2ui_c2s', severity: 'warning', recovery: 'fix_request', retryable: false, httpStatus: 422,
    message: 'This was already submitted with different values, so nothing was changed. Please check the form and submit it again.' },
  // Not a rejection: a client reported that it could not render a surface. The report is
  // accepted (202) and the server runs this code's recovery (a fresh epoch, full re-init).
  A2UI_C2S_CLIENT_ERROR: { category: 'a2ui_c2s', severity: 'warning', recovery: 'epoch_reset', retryable: false, httpStatus: 202,
    message: 'A panel had a display problem and was reloaded.' },
} as const satisfies Record<string, ErrorSpec>;
