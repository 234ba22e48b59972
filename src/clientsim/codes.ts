import type { Issue, Violation } from './types.ts';

/**
 * `error`: the official web client (WC) would throw on the message, so ClientSim does not apply
 * it. `warning`: WC accepts the message and ClientSim applies it exactly as WC does, but the
 * stream is not portable (spec/JSON schema/Python validator reject it) or hits a WC quirk.
 */
export type Severity = 'error' | 'warning';

export interface CodeSpec {
  readonly severity: Severity;
  readonly summary: string;
}

export const CLIENTSIM_CODES = {
  // Message shape (WC zod rejects).
  CLIENTSIM_NOT_AN_OBJECT: { severity: 'error', summary: 'message is not a JSON object' },
  CLIENTSIM_MESSAGE_KEY_COUNT: { severity: 'error', summary: 'message must have exactly one of surfaceUpdate, dataModelUpdate, beginRendering, deleteSurface' },
  CLIENTSIM_UNKNOWN_FIELD: { severity: 'error', summary: 'unknown key in an object WC validates strictly' },
  CLIENTSIM_FIELD_INVALID: { severity: 'error', summary: 'missing required field, wrong type or value not allowed' },
  CLIENTSIM_BOUND_VALUE_PATH_AND_LITERAL: { severity: 'error', summary: 'BoundValue has both path and a literal (spec shorthand WC rejects)' },
  CLIENTSIM_BOUND_VALUE_INVALID: { severity: 'error', summary: 'BoundValue must have exactly one of path / literal*' },
  CLIENTSIM_DATA_ENTRY_INVALID: { severity: 'error', summary: 'data entry needs a string key and exactly one valid value*, valueMap depth at most 5' },
  CLIENTSIM_DUPLICATE_ID: { severity: 'error', summary: 'the same component id twice in one surfaceUpdate' },
  CLIENTSIM_DANGLING_REFERENCE: { severity: 'error', summary: 'surfaceUpdate references a component it does not define (not referentially closed)' },
  CLIENTSIM_CYCLE: { severity: 'error', summary: 'component graph or rendered tree has a cycle' },
  // Portability / WC quirks (applied like WC).
  CLIENTSIM_UNKNOWN_PROPERTY: { severity: 'warning', summary: 'unknown property on a known component type; stripped as WC does' },
  CLIENTSIM_UNKNOWN_COMPONENT_TYPE: { severity: 'warning', summary: 'component type outside the v0.8 standard catalog' },
  CLIENTSIM_COMPONENT_TYPE_COUNT: { severity: 'warning', summary: 'component must have exactly one type key; WC uses the first' },
  CLIENTSIM_STRING_SHADOWED_BY_ID: { severity: 'warning', summary: 'a string property equals a component id; WC replaces it by that component' },
  CLIENTSIM_ID_AMBIGUOUS: { severity: 'warning', summary: "component id contains ':' which WC uses for template instance ids" },
  CLIENTSIM_VALUE_MAP_TOO_DEEP: { severity: 'warning', summary: 'valueMap nested deeper than the JSON schema allows (2)' },
  CLIENTSIM_DATA_KEY_AMBIGUOUS: { severity: 'warning', summary: "data key contains '.', '/', '[n]' or is empty; WC splits it into a path" },
  CLIENTSIM_JSON_STRING_PARSED: { severity: 'warning', summary: 'valueString looks like JSON; WC stores the parsed value' },
  CLIENTSIM_JSON_STRING_UNPARSED: { severity: 'warning', summary: 'valueString looks like JSON but does not parse; kept as a string' },
  CLIENTSIM_DATA_WRITE_IGNORED: { severity: 'warning', summary: 'WC silently ignores this data write' },
  CLIENTSIM_DATA_PRIMITIVE_REPLACED: { severity: 'warning', summary: 'a primitive on the update path was replaced by a map' },
  CLIENTSIM_CATALOG_UNKNOWN: { severity: 'warning', summary: 'catalogId is neither the standard nor the minimal v0.8 catalog' },
  // End of stream.
  CLIENTSIM_STUCK_BUFFERING: { severity: 'warning', summary: 'surface received updates but never beginRendering' },
  CLIENTSIM_ROOT_MISSING: { severity: 'warning', summary: 'beginRendering root component was never defined; nothing renders' },
  // Acting like a user.
  CLIENTSIM_SURFACE_NOT_FOUND: { severity: 'error', summary: 'no such surface' },
  CLIENTSIM_NOT_RENDERED: { severity: 'error', summary: 'surface is not rendered (no beginRendering, or root missing)' },
  CLIENTSIM_COMPONENT_NOT_FOUND: { severity: 'error', summary: 'no rendered component with this id' },
  CLIENTSIM_NOT_INTERACTIVE: { severity: 'error', summary: 'component does not accept this interaction' },
  CLIENTSIM_INPUT_NOT_BOUND: { severity: 'error', summary: 'input is not bound to a data path, so a renderer writes nothing' },
  CLIENTSIM_INPUT_TYPE: { severity: 'error', summary: 'value has the wrong type for this input' },
} as const satisfies Record<string, CodeSpec>;

export type ClientSimCode = keyof typeof CLIENTSIM_CODES;

export function severityOf(code: ClientSimCode): Severity {
  return CLIENTSIM_CODES[code].severity;
}

export function issue(code: ClientSimCode, detail: string, pointer?: string): Issue {
  return pointer === undefined ? { code, detail } : { code, detail, pointer };
}

export function toViolation(found: Issue, messageIndex: number, surfaceId?: string): Violation {
  return {
    code: found.code,
    severity: severityOf(found.code),
    messageIndex,
    ...(surfaceId === undefined ? {} : { surfaceId }),
    ...(found.pointer === undefined ? {} : { pointer: found.pointer }),
    detail: found.detail,
  };
}

export function hasError(issues: readonly Issue[]): boolean {
  return issues.some((i) => severityOf(i.code) === 'error');
}
