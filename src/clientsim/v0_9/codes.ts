import type { CodeSpec } from '../codes.ts';

/**
 * ClientSim v0.9 findings. `error`: the official v0.9 processor (behind the package's own
 * envelope schema) would refuse the message, so ClientSim does not apply it. `warning`: the
 * processor applies it and ClientSim applies it the same way, but the renderer shows something
 * other than what the stream seems to ask (a placeholder, nothing at all).
 */
export const CLIENTSIM_V09_CODES = {
  // Message shape and processor refusals.
  CLIENTSIM_NOT_AN_OBJECT: { severity: 'error', summary: 'message is not a JSON object' },
  CLIENTSIM_ENVELOPE_INVALID: { severity: 'error', summary: 'message fails the v0.9 envelope schema (version, one kind, strict keys)' },
  CLIENTSIM_CATALOG_UNKNOWN: { severity: 'error', summary: 'createSurface names a catalog the client does not have' },
  CLIENTSIM_SURFACE_EXISTS: { severity: 'error', summary: 'createSurface for a surface that already exists' },
  CLIENTSIM_SURFACE_NOT_FOUND: { severity: 'error', summary: 'no such surface (an update needs createSurface first)' },
  CLIENTSIM_ID_MISSING: { severity: 'error', summary: "a component without an 'id'" },
  CLIENTSIM_COMPONENT_INVALID: { severity: 'error', summary: "a component's properties fail its catalogue schema" },
  CLIENTSIM_DATA_WRITE_REFUSED: { severity: 'error', summary: 'updateDataModel path runs through a primitive, names an array item by a non-index, or uses a prototype name' },
  // Applied as the processor applies them, with a note.
  CLIENTSIM_UNKNOWN_COMPONENT_TYPE: { severity: 'warning', summary: 'component type outside the catalogue: stored unvalidated, rendered as a placeholder' },
  CLIENTSIM_TYPE_CHANGED: { severity: 'warning', summary: 'a component id got another type: the processor recreates it' },
  CLIENTSIM_DUPLICATE_ID: { severity: 'warning', summary: 'the same id twice in one updateComponents: applied in order, the last one wins' },
  // End of stream (what the renderer would show).
  CLIENTSIM_ROOT_MISSING: { severity: 'warning', summary: "surface has no component 'root': nothing renders" },
  CLIENTSIM_DANGLING_REFERENCE: { severity: 'warning', summary: 'the rendered tree refers to an id never defined: a placeholder stays' },
  CLIENTSIM_CYCLE: { severity: 'warning', summary: 'the rendered tree reaches a component inside itself: a placeholder is shown there' },
  // Acting like a user.
  CLIENTSIM_NOT_RENDERED: { severity: 'error', summary: 'no rendered component with this id' },
  CLIENTSIM_NOT_INTERACTIVE: { severity: 'error', summary: 'component does not accept this interaction' },
  CLIENTSIM_INPUT_NOT_BOUND: { severity: 'error', summary: 'input is not bound to a data path, so a renderer writes nothing' },
  CLIENTSIM_INPUT_TYPE: { severity: 'error', summary: 'value has the wrong type for this input' },
  CLIENTSIM_ACTION_NOT_SENT: { severity: 'error', summary: 'the click sends nothing: the action cannot be resolved or fails the client action schema' },
} as const satisfies Record<string, CodeSpec>;

export type ClientSimV09Code = keyof typeof CLIENTSIM_V09_CODES;
