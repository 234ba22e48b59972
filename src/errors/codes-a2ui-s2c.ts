import type { ErrorSpec } from './types.ts';

// Server→client A2UI codes. Owned by src/compiler (semantic validator, guardrails, recovery).
// `recovery` is the recovery policy of design.md §5.1, chosen per code:
//   soft_fail    — drop the offending part when that is safe (else escalate to surface_fail);
//   surface_fail — deleteSurface, then a plain-text fallback surface;
//   epoch_reset  — the caller rotates the surface epoch and re-initialises it.
const PANEL_FAILED = 'A panel could not be displayed and was replaced by plain text.';
const PART_DROPPED = 'Part of a panel could not be displayed and was left out.';

export const A2UI_S2C_CODES = {
  // Stream and message shape.
  A2UI_S2C_STREAM_INVALID: { category: 'a2ui_s2c', severity: 'error', recovery: 'surface_fail', retryable: false,
    message: 'The A2UI stream could not be read.' },
  A2UI_S2C_MESSAGE_SHAPE: { category: 'a2ui_s2c', severity: 'error', recovery: 'surface_fail', retryable: false,
    message: PANEL_FAILED },
  A2UI_S2C_SCHEMA_INVALID: { category: 'a2ui_s2c', severity: 'error', recovery: 'surface_fail', retryable: false,
    message: PANEL_FAILED },
  // Components.
  A2UI_S2C_COMPONENT_TYPE_INVALID: { category: 'a2ui_s2c', severity: 'error', recovery: 'surface_fail', retryable: false,
    message: PANEL_FAILED },
  A2UI_S2C_COMPONENT_NOT_ALLOWED: { category: 'a2ui_s2c', severity: 'error', recovery: 'surface_fail', retryable: false,
    message: PANEL_FAILED },
  A2UI_S2C_ID_INVALID: { category: 'a2ui_s2c', severity: 'error', recovery: 'surface_fail', retryable: false,
    message: PANEL_FAILED },
  A2UI_S2C_DUPLICATE_ID: { category: 'a2ui_s2c', severity: 'error', recovery: 'surface_fail', retryable: false,
    message: PANEL_FAILED },
  A2UI_S2C_DANGLING_CHILD: { category: 'a2ui_s2c', severity: 'error', recovery: 'surface_fail', retryable: false,
    message: PANEL_FAILED },
  A2UI_S2C_SELF_REFERENCE: { category: 'a2ui_s2c', severity: 'error', recovery: 'surface_fail', retryable: false,
    message: PANEL_FAILED },
  A2UI_S2C_CYCLE: { category: 'a2ui_s2c', severity: 'error', recovery: 'surface_fail', retryable: false,
    message: PANEL_FAILED },
  A2UI_S2C_ROOT_MISSING: { category: 'a2ui_s2c', severity: 'error', recovery: 'surface_fail', retryable: false,
    message: PANEL_FAILED },
  A2UI_S2C_NOT_RENDERED: { category: 'a2ui_s2c', severity: 'error', recovery: 'surface_fail', retryable: false,
    message: PANEL_FAILED },
  /** Orphans are harmless to WC, so they are simply left out of the message. */
  A2UI_S2C_UNREACHABLE_COMPONENT: { category: 'a2ui_s2c', severity: 'error', recovery: 'soft_fail', retryable: false,
    message: PART_DROPPED },
  A2UI_S2C_TEMPLATE_DANGLING: { category: 'a2ui_s2c', severity: 'error', recovery: 'surface_fail', retryable: false,
    message: PANEL_FAILED },
  A2UI_S2C_TEMPLATE_UNBOUND: { category: 'a2ui_s2c', severity: 'warning', recovery: 'soft_fail', retryable: false,
    message: 'A list in a panel has no data yet.' },
  A2UI_S2C_NESTING_TOO_DEEP: { category: 'a2ui_s2c', severity: 'error', recovery: 'surface_fail', retryable: false,
    message: PANEL_FAILED },
  /** WC would accept the change, but our contract says an id never changes type: start over cleanly. */
  A2UI_S2C_TYPE_CHANGED: { category: 'a2ui_s2c', severity: 'error', recovery: 'epoch_reset', retryable: true,
    message: 'A panel had to be rebuilt.' },
  A2UI_S2C_BOUND_VALUE_INVALID: { category: 'a2ui_s2c', severity: 'error', recovery: 'surface_fail', retryable: false,
    message: PANEL_FAILED },
  A2UI_S2C_ID_EQUALS_VALUE: { category: 'a2ui_s2c', severity: 'error', recovery: 'surface_fail', retryable: false,
    message: PANEL_FAILED },
  A2UI_S2C_PATH_INVALID: { category: 'a2ui_s2c', severity: 'error', recovery: 'surface_fail', retryable: false,
    message: PANEL_FAILED },
  // Data model.
  A2UI_S2C_DATA_ENTRY_INVALID: { category: 'a2ui_s2c', severity: 'error', recovery: 'surface_fail', retryable: false,
    message: PANEL_FAILED },
  A2UI_S2C_DATA_KEY_INVALID: { category: 'a2ui_s2c', severity: 'error', recovery: 'surface_fail', retryable: false,
    message: PANEL_FAILED },
  A2UI_S2C_VALUE_MAP_TOO_DEEP: { category: 'a2ui_s2c', severity: 'error', recovery: 'surface_fail', retryable: false,
    message: PANEL_FAILED },
  /** beginRendering works without styles, so bad styles are dropped. */
  A2UI_S2C_STYLES_INVALID: { category: 'a2ui_s2c', severity: 'error', recovery: 'soft_fail', retryable: false,
    message: 'A panel is shown with default styling.' },
  // Policy guardrails.
  A2UI_S2C_ACTION_NOT_ALLOWED: { category: 'a2ui_s2c', severity: 'error', recovery: 'soft_fail', retryable: false,
    message: 'A button that is not available here was left out.' },
  A2UI_S2C_URL_NOT_ALLOWED: { category: 'a2ui_s2c', severity: 'error', recovery: 'soft_fail', retryable: false,
    message: 'Media with an unsafe address was left out.' },
  // Classes of error only v0.9 has (its processor throws, or its renderer cannot send).
  /** An update for a surface the client does not hold: v0.9 needs createSurface first. */
  A2UI_S2C_SURFACE_NOT_CREATED: { category: 'a2ui_s2c', severity: 'error', recovery: 'surface_fail', retryable: false,
    message: PANEL_FAILED },
  /** createSurface for a surface that is live: v0.9 needs deleteSurface first. */
  A2UI_S2C_SURFACE_EXISTS: { category: 'a2ui_s2c', severity: 'error', recovery: 'surface_fail', retryable: false,
    message: PANEL_FAILED },
  /** createSurface names a catalogue the client does not have. */
  A2UI_S2C_CATALOG_UNKNOWN: { category: 'a2ui_s2c', severity: 'error', recovery: 'surface_fail', retryable: false,
    message: PANEL_FAILED },
  /** updateDataModel writes through a primitive, or names an array item by a non-index. */
  A2UI_S2C_DATA_PATH_CONFLICT: { category: 'a2ui_s2c', severity: 'error', recovery: 'surface_fail', retryable: false,
    message: PANEL_FAILED },
  /** An action whose event or context has a `path` or `call` key: the renderer's click fails. */
  A2UI_S2C_ACTION_KEY_RESERVED: { category: 'a2ui_s2c', severity: 'error', recovery: 'surface_fail', retryable: false,
    message: PANEL_FAILED },
  // Size guardrails.
  A2UI_S2C_TOO_MANY_MESSAGES: { category: 'a2ui_s2c', severity: 'error', recovery: 'surface_fail', retryable: false,
    message: PANEL_FAILED },
  A2UI_S2C_MESSAGE_TOO_LARGE: { category: 'a2ui_s2c', severity: 'error', recovery: 'surface_fail', retryable: false,
    message: PANEL_FAILED },
  A2UI_S2C_SURFACE_TOO_LARGE: { category: 'a2ui_s2c', severity: 'error', recovery: 'surface_fail', retryable: false,
    message: PANEL_FAILED },
  A2UI_S2C_RESPONSE_TOO_LARGE: { category: 'a2ui_s2c', severity: 'error', recovery: 'surface_fail', retryable: false,
    message: PANEL_FAILED },
  A2UI_S2C_TOO_MANY_COMPONENTS: { category: 'a2ui_s2c', severity: 'error', recovery: 'surface_fail', retryable: false,
    message: PANEL_FAILED },
  A2UI_S2C_DATA_TOO_LARGE: { category: 'a2ui_s2c', severity: 'error', recovery: 'surface_fail', retryable: false,
    message: PANEL_FAILED },
  A2UI_S2C_DATA_TOO_DEEP: { category: 'a2ui_s2c', severity: 'error', recovery: 'surface_fail', retryable: false,
    message: PANEL_FAILED },

  // IR → A2UI compiler (src/compiler/a2ui-v0_8, src/compiler/a2ui-v0_9), not about the wire format itself.
  COMPILER_A2UI_INTERNAL: { category: 'compiler', severity: 'error', recovery: 'surface_fail', retryable: false,
    message: PANEL_FAILED },
  /** An update would have replaced the root or /draft and lost what the user typed. */
  COMPILER_A2UI_DRAFT_CLOBBER: { category: 'compiler', severity: 'error', recovery: 'surface_fail', retryable: false,
    message: PANEL_FAILED },
  COMPILER_A2UI_VALUE_COERCED: { category: 'compiler', severity: 'warning', recovery: 'soft_fail', retryable: false,
    message: 'A form value was shown in the form its field expects.' },
  COMPILER_A2UI_CONTEXT_KEY_RESERVED: { category: 'compiler', severity: 'warning', recovery: 'soft_fail', retryable: false,
    message: 'A field name clashes with a reserved action key and is not sent with actions.' },
  COMPILER_A2UI_DUPLICATE_FIELD: { category: 'compiler', severity: 'warning', recovery: 'soft_fail', retryable: false,
    message: 'Two inputs edit the same value.' },
  COMPILER_A2UI_UPLOAD_FALLBACK: { category: 'compiler', severity: 'info', recovery: 'soft_fail', retryable: false,
    message: 'File upload is not available in this client; a note is shown instead.' },
  COMPILER_A2UI_LIST_ITEM_SKIPPED: { category: 'compiler', severity: 'warning', recovery: 'soft_fail', retryable: false,
    message: 'Some list entries had no valid key and are not shown.' },
  // App-defined components (src/compiler/components): checked where the app is known.
  /** A `component` block names no component of the app (or the compiler was given none). */
  COMPILER_COMPONENT_UNKNOWN: { category: 'compiler', severity: 'error', recovery: 'surface_fail', retryable: false,
    message: PANEL_FAILED },
  /** A `component` block's properties or bindings do not match the component's schema. */
  COMPILER_COMPONENT_PROPS_INVALID: { category: 'compiler', severity: 'error', recovery: 'surface_fail', retryable: false,
    message: PANEL_FAILED },
  /** A component's fallback threw or is not basic-catalogue blocks of the same collection. */
  COMPILER_COMPONENT_FALLBACK_INVALID: { category: 'compiler', severity: 'error', recovery: 'surface_fail', retryable: false,
    message: PANEL_FAILED },
} as const satisfies Record<string, ErrorSpec>;
