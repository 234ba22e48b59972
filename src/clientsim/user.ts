import { issue, toViolation, type ClientSimCode } from './codes.ts';
import { getDataByPath, setDataByPath } from './data-model.ts';
import { nodeDataPath, resolvePath } from './data-path.ts';
import { cloneJson, isJsonValue, isPlainObject, own, setOwn } from './json-util.ts';
import { toPlain } from './serialize.ts';
import { buildTree, type TreeNode } from './tree.ts';
import type { Clock, Issue, SimState, SurfaceState, UserActionMessage, Violation } from './types.ts';

// Acting like a user of an official renderer: typing into inputs (LIT/Angular write the model
// synchronously through WC's setData) and clicking Buttons (userAction built as Angular's
// renderer does, a2ui-v0.8.md §5.2).

export const EPOCH_CLOCK: Clock = () => new Date(0);

export type UserStep = { readonly state: SimState; readonly violations: Violation[] };
export type ClickResult =
  | { readonly ok: true; readonly message: UserActionMessage }
  | { readonly ok: false; readonly violation: Violation };

type Located = { surface: SurfaceState; node: TreeNode } | { fail: Violation };

function fail(state: SimState, surfaceId: string, code: ClientSimCode, detail: string): { fail: Violation } {
  return { fail: toViolation(issue(code, detail), state.messageCount, surfaceId) };
}

function locate(state: SimState, surfaceId: string, componentId: string): Located {
  const surface = state.surfaces.get(surfaceId);
  if (surface === undefined) return fail(state, surfaceId, 'CLIENTSIM_SURFACE_NOT_FOUND', `no surface '${surfaceId}'`);
  if (!surface.rendering) return fail(state, surfaceId, 'CLIENTSIM_NOT_RENDERED', `surface '${surfaceId}' has had no beginRendering`);
  const tree = buildTree(surface);
  if (!tree.ok || tree.root === null) return fail(state, surfaceId, 'CLIENTSIM_NOT_RENDERED', `root '${surface.root ?? ''}' of '${surfaceId}' is missing`);
  // Duplicates (an id listed twice, map templates under two parents) resolve to the first in
  // document order, which is what a user would see first.
  const node = tree.nodes.find((n) => n.id === componentId);
  if (node === undefined) return fail(state, surfaceId, 'CLIENTSIM_COMPONENT_NOT_FOUND', `no rendered component '${componentId}'`);
  return { surface, node };
}

function withData(state: SimState, surfaceId: string, surface: SurfaceState, path: string, value: unknown): UserStep {
  const notes: Issue[] = [];
  const dataModel = setDataByPath(surface.dataModel, path, value, notes);
  const surfaces = new Map(state.surfaces).set(surfaceId, { ...surface, dataModel });
  return { state: { ...state, surfaces }, violations: notes.map((n) => toViolation(n, state.messageCount, surfaceId)) };
}

/**
 * WC `setData` from the root context. Divergence (deliberate): an unknown surface is reported,
 * where WC would silently create an empty one.
 */
export function setValue(state: SimState, surfaceId: string, path: string, value: unknown): UserStep {
  const surface = state.surfaces.get(surfaceId);
  if (surface === undefined) return { state, violations: [fail(state, surfaceId, 'CLIENTSIM_SURFACE_NOT_FOUND', `no surface '${surfaceId}'`).fail] };
  if (!isJsonValue(value)) return { state, violations: [fail(state, surfaceId, 'CLIENTSIM_INPUT_TYPE', 'value must be JSON data').fail] };
  return withData(state, surfaceId, surface, nodeDataPath(path, '/'), cloneJson(value));
}

/** Bound property and the value a real renderer writes for each input type. */
const INPUTS: ReadonlyMap<string, { prop: string; accepts: string; coerce: (v: unknown) => unknown }> = new Map([
  ['TextField', { prop: 'text', accepts: 'a string', coerce: (v: unknown) => (typeof v === 'string' ? v : undefined) }],
  ['CheckBox', { prop: 'value', accepts: 'a boolean', coerce: (v: unknown) => (typeof v === 'boolean' ? v : undefined) }],
  // <input type=range>.value is a string, and that string is what lands in the model.
  ['Slider', { prop: 'value', accepts: 'a number or numeric string', coerce: (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? String(v) : typeof v === 'string' ? v : undefined) }],
  ['DateTimeInput', { prop: 'value', accepts: 'a string', coerce: (v: unknown) => (typeof v === 'string' ? v : undefined) }],
  ['MultipleChoice', { prop: 'selections', accepts: 'an array of strings', coerce: (v: unknown) => (Array.isArray(v) && v.every((s) => typeof s === 'string') ? [...v] : undefined) }],
]);

/** The user edits an input component: its bound path receives the renderer-typed value. */
export function input(state: SimState, surfaceId: string, componentId: string, value: unknown): UserStep {
  const found = locate(state, surfaceId, componentId);
  if ('fail' in found) return { state, violations: [found.fail] };
  const { node, surface } = found;
  const spec = node.type === undefined ? undefined : INPUTS.get(node.type);
  if (spec === undefined) return { state, violations: [fail(state, surfaceId, 'CLIENTSIM_NOT_INTERACTIVE', `'${componentId}' (${node.type ?? 'no type'}) is not an input`).fail] };
  const bound = own(node.properties, spec.prop);
  const path = isPlainObject(bound) ? own(bound, 'path') : undefined;
  if (typeof path !== 'string') return { state, violations: [fail(state, surfaceId, 'CLIENTSIM_INPUT_NOT_BOUND', `'${componentId}'.${spec.prop} has no path`).fail] };
  const typed = spec.coerce(value);
  if (typed === undefined) return { state, violations: [fail(state, surfaceId, 'CLIENTSIM_INPUT_TYPE', `${node.type} takes ${spec.accepts}`).fail] };
  return withData(state, surfaceId, surface, nodeDataPath(path, node.dataContextPath), typed);
}

export interface ClickOptions {
  readonly clock: Clock;
  /** How Map values in the context are sent: their entries (default) or `{}` like a bare JSON.stringify. */
  readonly mapsAs?: 'object' | 'empty';
}

/** The exact `{userAction}` a renderer posts when the user clicks Button `componentId`. */
export function click(state: SimState, surfaceId: string, componentId: string, options: ClickOptions): ClickResult {
  const found = locate(state, surfaceId, componentId);
  if ('fail' in found) return { ok: false, violation: found.fail };
  const { node, surface } = found;
  const action = own(node.properties, 'action');
  if (node.type !== 'Button' || !isPlainObject(action) || typeof own(action, 'name') !== 'string') {
    return { ok: false, violation: fail(state, surfaceId, 'CLIENTSIM_NOT_INTERACTIVE', `'${componentId}' is not a Button with an action`).fail };
  }
  const context: Record<string, unknown> = {};
  const entries = own(action, 'context');
  for (const entry of Array.isArray(entries) ? entries : []) {
    const key = isPlainObject(entry) ? own(entry, 'key') : undefined;
    const bound = isPlainObject(entry) ? own(entry, 'value') : undefined;
    if (typeof key !== 'string' || !isPlainObject(bound)) continue;
    // Angular's order; literal false / 0 / "" are kept (the LIT samples' truthiness checks drop them).
    let value: unknown;
    if (own(bound, 'literalBoolean') !== undefined) value = own(bound, 'literalBoolean');
    else if (own(bound, 'literalNumber') !== undefined) value = own(bound, 'literalNumber');
    else if (own(bound, 'literalString') !== undefined) value = own(bound, 'literalString');
    else {
      const path = own(bound, 'path');
      // A template rewrite can leave an empty path; Angular's truthiness test then skips it.
      if (typeof path !== 'string' || path === '') continue;
      value = getDataByPath(surface.dataModel, nodeDataPath(resolvePath(path, node.dataContextPath), node.dataContextPath));
    }
    // `context[key] = undefined` vanishes from the JSON body, so the key is absent.
    if (value === undefined) Reflect.deleteProperty(context, key);
    else setOwn(context, key, toPlain(value, options.mapsAs ?? 'object'));
  }
  return {
    ok: true,
    message: {
      userAction: {
        name: own(action, 'name') as string,
        surfaceId,
        sourceComponentId: node.id,
        timestamp: options.clock().toISOString(),
        context,
      },
    },
  };
}
