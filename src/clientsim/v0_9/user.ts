import { ClientAction, FORBIDDEN_SEGMENTS, getData, segmentsOf, setData } from '../../a2ui-v0_9-protocol/index.ts';
import { cloneJson, isPlainObject, own } from '../json-util.ts';
import { CLIENTSIM_V09_CODES, type ClientSimV09Code } from './codes.ts';
import { buildTreeV09, resolveDataPath, type TreeNodeV09 } from './tree.ts';
import type { ActionMessageV09, SimStateV09, SurfaceStateV09, ViolationV09 } from './types.ts';

// Acting like a user of the official v0.9 renderer: an input writes through its bound `value`
// (GenericBinder's setter, what every basic-catalogue input calls), a Button click resolves its
// action the way GenericBinder does and the surface validates it with the client action schema.

export type Clock = () => Date;
export const EPOCH_CLOCK: Clock = () => new Date(0);

export type UserStepV09 = { readonly state: SimStateV09; readonly violations: ViolationV09[] };
export type ClickResultV09 =
  | {
    readonly ok: true;
    readonly message: ActionMessageV09;
    /**
     * The data model a renderer sends with the action (the official processor's
     * getClientDataModel): every surface created with `sendDataModel: true`, by id. Absent when
     * none was.
     */
    readonly dataModel?: ClientDataModelV09;
  }
  | { readonly ok: false; readonly violation: ViolationV09 };

/** What a v0.9 client attaches to its actions when surfaces ask for it (`sendDataModel`). */
export interface ClientDataModelV09 {
  readonly version: 'v0.9' | 'v0.9.1';
  readonly surfaces: Readonly<Record<string, unknown>>;
}

/** The data models of the surfaces created with `sendDataModel: true`, as the official processor aggregates them; undefined when none. */
export function clientDataModelV09(state: SimStateV09, version: 'v0.9' | 'v0.9.1' = 'v0.9'): ClientDataModelV09 | undefined {
  const surfaces: Record<string, unknown> = {};
  for (const [id, surface] of state.surfaces) if (surface.sendDataModel) surfaces[id] = cloneJson(surface.dataModel);
  return Object.keys(surfaces).length === 0 ? undefined : { version, surfaces };
}

function violation(state: SimStateV09, surfaceId: string, code: ClientSimV09Code, detail: string): ViolationV09 {
  return { code, severity: CLIENTSIM_V09_CODES[code].severity, messageIndex: state.messageCount, surfaceId, detail };
}

type Located = { surface: SurfaceStateV09; node: TreeNodeV09; properties: Readonly<Record<string, unknown>> } | { fail: ViolationV09 };

/**
 * The first rendered instance of `componentId` in document order (what a user would see first),
 * or the one at data path `dataPath`: a list template renders its components once per item, all
 * with the same id, each at its item's path (`/view/l-x/items/2`).
 */
function locate(state: SimStateV09, surfaceId: string, componentId: string, dataPath?: string): Located {
  const surface = state.surfaces.get(surfaceId);
  if (surface === undefined) return { fail: violation(state, surfaceId, 'CLIENTSIM_SURFACE_NOT_FOUND', `no surface '${surfaceId}'`) };
  const node = buildTreeV09(surface).nodes.find((n) => n.id === componentId && n.state === 'resolved' && (dataPath === undefined || n.dataPath === dataPath));
  if (node === undefined) {
    const where = dataPath === undefined ? '' : ` at '${dataPath}'`;
    return { fail: violation(state, surfaceId, 'CLIENTSIM_NOT_RENDERED', `no rendered component '${componentId}'${where}`) };
  }
  return { surface, node, properties: surface.components.get(componentId)!.properties };
}

function write(state: SimStateV09, surfaceId: string, surface: SurfaceStateV09, path: string, value: unknown): UserStepV09 {
  const result = setData(surface.dataModel, path, JSON.parse(JSON.stringify(value)) as unknown);
  if (!result.ok) return { state, violations: [violation(state, surfaceId, 'CLIENTSIM_INPUT_NOT_BOUND', `cannot write '${path}': ${result.reason}`)] };
  const surfaces = new Map(state.surfaces).set(surfaceId, { ...surface, dataModel: result.data });
  return { state: { ...state, surfaces }, violations: [] };
}

/** DataContext.set from the root context. */
export function setValueV09(state: SimStateV09, surfaceId: string, path: string, value: unknown): UserStepV09 {
  const surface = state.surfaces.get(surfaceId);
  if (surface === undefined) return { state, violations: [violation(state, surfaceId, 'CLIENTSIM_SURFACE_NOT_FOUND', `no surface '${surfaceId}'`)] };
  return write(state, surfaceId, surface, resolveDataPath(path, '/'), value);
}

/** What each basic-catalogue input writes (the Lit elements of @a2ui/web_core 0.11). */
const INPUTS: ReadonlyMap<string, { accepts: string; ok: (v: unknown) => boolean }> = new Map([
  ['TextField', { accepts: 'a string', ok: (v: unknown) => typeof v === 'string' }],
  ['CheckBox', { accepts: 'a boolean', ok: (v: unknown) => typeof v === 'boolean' }],
  // <input type=range> → Number(value): a number reaches the model (v0.8's renderer wrote the string).
  ['Slider', { accepts: 'a number', ok: (v: unknown) => typeof v === 'number' && Number.isFinite(v) }],
  ['DateTimeInput', { accepts: 'a string', ok: (v: unknown) => typeof v === 'string' }],
  ['ChoicePicker', { accepts: 'a list of option values', ok: (v: unknown) => Array.isArray(v) && v.every((x) => typeof x === 'string') }],
]);

/** The user edits input `componentId`: its bound `value` path receives what the renderer writes. */
export function inputV09(state: SimStateV09, surfaceId: string, componentId: string, value: unknown): UserStepV09 {
  const found = locate(state, surfaceId, componentId);
  if ('fail' in found) return { state, violations: [found.fail] };
  const { surface, node, properties } = found;
  const spec = INPUTS.get(node.type);
  if (spec === undefined) return { state, violations: [violation(state, surfaceId, 'CLIENTSIM_NOT_INTERACTIVE', `'${componentId}' (${node.type}) is not an input`)] };
  const bound = own(properties, 'value');
  const path = isPlainObject(bound) ? own(bound, 'path') : undefined;
  if (typeof path !== 'string') return { state, violations: [violation(state, surfaceId, 'CLIENTSIM_INPUT_NOT_BOUND', `'${componentId}'.value has no path`)] };
  if (!spec.ok(value)) return { state, violations: [violation(state, surfaceId, 'CLIENTSIM_INPUT_TYPE', `${node.type} takes ${spec.accepts}`)] };
  return write(state, surfaceId, surface, resolveDataPath(path, node.dataPath), value);
}

class NotSent extends Error {}

/**
 * GenericBinder's action closure: every object holding `path` or `call` is a binding, resolved
 * against the data model at the node's data path, at any depth of the action (so an event or a
 * context with a `path` key is taken for a binding as a whole). Function calls are not modelled.
 */
function resolveDeep(value: unknown, surface: SurfaceStateV09, dataPath: string): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if ('path' in value || 'call' in value) {
    const binding = value as { path?: unknown; call?: unknown };
    if ('path' in value) {
      if (typeof binding.path !== 'string') throw new NotSent('a binding whose path is not a string');
      const path = resolveDataPath(binding.path, dataPath);
      if (segmentsOf(path).some((s) => FORBIDDEN_SEGMENTS.has(s))) throw new NotSent(`'${path}' uses a prototype name`);
      return getData(surface.dataModel, path);
    }
    throw new NotSent('function calls are not modelled');
  }
  if (Array.isArray(value)) return value.map((v) => resolveDeep(v, surface, dataPath));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) Object.defineProperty(out, k, { value: resolveDeep(v, surface, dataPath), enumerable: true, writable: true, configurable: true });
  return out;
}

export interface ClickOptionsV09 {
  readonly clock: Clock;
  /** The `version` the client speaks (default v0.9). */
  readonly version?: 'v0.9' | 'v0.9.1';
  /** Which rendered instance: the one at this data path (a list item's button); default the first. */
  readonly dataPath?: string;
}

/** The exact `{version, action}` message a renderer sends when the user clicks Button `componentId`. */
export function clickV09(state: SimStateV09, surfaceId: string, componentId: string, options: ClickOptionsV09): ClickResultV09 {
  const found = locate(state, surfaceId, componentId, options.dataPath);
  if ('fail' in found) return { ok: false, violation: found.fail };
  const { surface, node, properties } = found;
  const action = own(properties, 'action');
  if (node.type !== 'Button' || !isPlainObject(action)) {
    return { ok: false, violation: violation(state, surfaceId, 'CLIENTSIM_NOT_INTERACTIVE', `'${componentId}' is not a Button with an action`) };
  }
  return send(state, surfaceId, componentId, surface, action, node.dataPath, options);
}

export interface ItemActionOptionsV09 {
  readonly clock: Clock;
  readonly version?: 'v0.9' | 'v0.9.1';
  /** Which item (its index in the component's bound `items`). */
  readonly item: number;
  /** Which of its `itemActions`. */
  readonly action: number;
}

/**
 * The user clicks item button `action` of item `item` of app component `componentId` (its
 * catalogue's collection contract, compiler/components/catalog-v09.ts): the element renders each
 * entry of its bound `items` in that entry's data context (`<items path>/<i>`, as a List template
 * would) and resolves the button's action there, as GenericBinder does for a Button.
 */
export function clickItemActionV09(state: SimStateV09, surfaceId: string, componentId: string, options: ItemActionOptionsV09): ClickResultV09 {
  const found = locate(state, surfaceId, componentId);
  if ('fail' in found) return { ok: false, violation: found.fail };
  const { surface, node, properties } = found;
  const notInteractive = (detail: string): ClickResultV09 => ({ ok: false, violation: violation(state, surfaceId, 'CLIENTSIM_NOT_INTERACTIVE', detail) });
  const component = surface.components.get(componentId);
  if (component?.app !== true) return notInteractive(`'${componentId}' is not an app component`);
  const buttons = own(properties, 'itemActions');
  const button = Array.isArray(buttons) ? buttons[options.action] as unknown : undefined;
  const action = isPlainObject(button) ? own(button, 'action') : undefined;
  const items = own(properties, 'items');
  const itemsPath = isPlainObject(items) ? own(items, 'path') : undefined;
  if (!isPlainObject(action) || typeof itemsPath !== 'string') return notInteractive(`'${componentId}' has no item action ${options.action} over bound items`);
  const listPath = resolveDataPath(itemsPath, node.dataPath);
  const list = getData(surface.dataModel, listPath);
  if (!Array.isArray(list) || !(options.item in list)) return { ok: false, violation: violation(state, surfaceId, 'CLIENTSIM_NOT_RENDERED', `'${componentId}' shows no item ${options.item}`) };
  return send(state, surfaceId, componentId, surface, action, resolveDataPath(String(options.item), listPath), options);
}

function send(
  state: SimStateV09, surfaceId: string, componentId: string, surface: SurfaceStateV09, action: Record<string, unknown>, dataPath: string,
  options: { clock: Clock; version?: 'v0.9' | 'v0.9.1' },
): ClickResultV09 {
  const notSent = (detail: string): ClickResultV09 => ({ ok: false, violation: violation(state, surfaceId, 'CLIENTSIM_ACTION_NOT_SENT', detail) });
  const node = { dataPath };
  let resolved: unknown;
  try {
    resolved = resolveDeep(action, surface, node.dataPath);
  } catch (error) {
    if (error instanceof NotSent) return notSent(error.message);
    throw error;
  }
  const event = isPlainObject(resolved) ? own(resolved, 'event') : undefined;
  if (!isPlainObject(event)) return notSent('only event actions reach the server');
  const candidate = {
    name: own(event, 'name'), surfaceId, sourceComponentId: componentId, timestamp: options.clock().toISOString(),
    context: own(event, 'context') || {},
  };
  const checked = ClientAction.safeParse(candidate);
  if (!checked.success) return notSent(`the client action schema refuses it: ${checked.error.issues[0]?.message ?? 'invalid'}`);
  // On the wire: a context value that resolved to nothing is absent, as JSON.stringify leaves it out.
  const context = JSON.parse(JSON.stringify(candidate.context)) as Record<string, unknown>;
  const version = options.version ?? 'v0.9';
  const dataModel = clientDataModelV09(state, version);
  return {
    ok: true,
    message: { version, action: { name: candidate.name as string, surfaceId, sourceComponentId: componentId, timestamp: candidate.timestamp, context } },
    ...(dataModel === undefined ? {} : { dataModel }),
  };
}
