import { buildTreeV09, type ClientSim, type ClientSimV09, type TreeNodeV09 } from '../../src/clientsim/index.ts';
import { getDataByPath } from '../../src/clientsim/data-model.ts';
import { toPlain } from '../../src/clientsim/serialize.ts';
import { buildTree, type TreeNode } from '../../src/clientsim/tree.ts';
import { getData } from '../../src/a2ui-v0_9-protocol/index.ts';
import { unguardA2uiValue } from '../../src/compiler/index.ts';

/**
 * When a v0.8 client and a v0.9 client of one conversation hold equivalent states. The two wires
 * write one IR differently on purpose (docs/a2ui.md "A2UI v0.9 specifics"); equivalent means equal once
 * written the same way:
 *
 * 1. The same A2UI surfaces (ids `<surface>--e<epoch>`, so the same IR surfaces and epochs), each
 *    rendering in both.
 * 2. The same component tree shape: the rendered trees (ClientSim's, as each official renderer
 *    builds them) are equal as (id, type, children) once ids lose their type suffix
 *    (`main.f-name.TextField` → `main.f-name`; both roots are `root`), v0.8's MultipleChoice is
 *    called ChoicePicker, v0.8's date field (a TextField with the YYYY-MM-DD pattern) is called
 *    DateTimeInput as v0.9 writes it, and the label Text v0.8 puts above an input (v0.9's inputs
 *    carry their own label) is left out, together with a Column that held nothing but that label
 *    and the input.
 * 3. The same values at the same bound paths: the data paths the rendered components bind (Text
 *    and input values, Button context bindings) are the same set, and the value at each is the
 *    same once read as the IR holds it: v0.8's U+2060 guard removed, a map-encoded list
 *    (`{"0": …, "1": …}`) an array, and at a ChoicePicker's path v0.8's `""` (nothing selected) `[]`.
 * 4. The same /committed, read the same way (it is bound through /view, but it is the state that counts).
 */
export interface Shape {
  readonly id: string;
  readonly type: string;
  readonly children: readonly Shape[];
}

interface SurfaceView { rendering: boolean; shape: Shape | undefined; bound: ReadonlyMap<string, unknown>; committed: unknown }

export interface WireState {
  /** Per A2UI surface id. */
  readonly surfaces: ReadonlyMap<string, SurfaceView>;
}

const TYPE_SUFFIX = /\.[A-Z][A-Za-z]*$/;
const ROOT_08 = /^[a-z][a-z0-9_-]*\.root\.Card$/;
const idOf = (id: string): string => (id === 'root' || ROOT_08.test(id) ? 'root' : id.replace(TYPE_SUFFIX, ''));
const TYPES_08: Readonly<Record<string, string>> = { MultipleChoice: 'ChoicePicker' };
function type08(node: TreeNode): string {
  // v0.8 shows a date as a TextField of the date type (v0.9 as a DateTimeInput).
  if (node.type === 'TextField' && node.properties.textFieldType === 'date') return 'DateTimeInput';
  return TYPES_08[node.type ?? ''] ?? node.type ?? '?';
}

function isNode08(value: unknown): value is TreeNode {
  return typeof value === 'object' && value !== null && Object.hasOwn(value, 'baseId') && Object.hasOwn(value, 'dataContextPath');
}

/** Nodes among a v0.8 node's properties (`child`, `children` after the tree builder replaced ids with nodes). */
function childrenOf08(node: TreeNode): TreeNode[] {
  const out: TreeNode[] = [];
  for (const [key, value] of Object.entries(node.properties)) {
    if (key === 'action') continue;
    if (isNode08(value)) out.push(value);
    else if (Array.isArray(value)) for (const item of value) if (isNode08(item)) out.push(item);
  }
  return out;
}

const INPUTS = new Set(['TextField', 'DateTimeInput', 'ChoicePicker', 'CheckBox', 'Slider']);

function shape08(node: TreeNode): Shape {
  const id = idOf(node.id);
  let children = childrenOf08(node).map(shape08);
  // A label above an input (`<field>.label` Text beside the `<field>` input): v0.9's inputs carry their own.
  const inputs = new Set(children.filter((c) => INPUTS.has(c.type)).map((c) => c.id));
  children = children.filter((c) => !(c.type === 'Text' && c.id.endsWith('.label') && inputs.has(c.id.slice(0, -'.label'.length))));
  const only = children[0];
  // The Column that only held that label and its input: v0.9 writes the input alone.
  if (node.type === 'Column' && children.length === 1 && only !== undefined && only.id === id) return only;
  return { id, type: type08(node), children };
}

function shape09(node: TreeNodeV09): Shape {
  return { id: idOf(node.id), type: node.type, children: node.children.map(shape09) };
}

/** Every `{path}` object (a binding) under `value`, in v0.8 BoundValues, action contexts and v0.9 DynamicValues alike. */
function bindings(value: unknown, out: Set<string>): void {
  if (Array.isArray(value)) {
    for (const item of value) bindings(item, out);
    return;
  }
  if (typeof value !== 'object' || value === null || isNode08(value)) return;
  const path = (value as { path?: unknown }).path;
  if (typeof path === 'string') out.add(path);
  for (const [key, item] of Object.entries(value)) if (key !== 'path') bindings(item, out);
}

/** What the IR holds for a v0.8 value: guard removed, map-encoded lists as arrays. */
function asIr08(value: unknown): unknown {
  const plain = unguardA2uiValue(toPlain(value));
  return lists(plain);
}

function lists(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(lists);
  if (typeof value !== 'object' || value === null) return value;
  const keys = Object.keys(value);
  const entries = Object.entries(value).map(([k, v]) => [k, lists(v)] as const);
  if (keys.length > 0 && keys.every((k, i) => k === String(i))) return entries.map(([, v]) => v);
  return Object.fromEntries(entries);
}

export function wireState08(sim: ClientSim): WireState {
  const surfaces = new Map<string, SurfaceView>();
  for (const [surfaceId, surface] of sim.state().surfaces) {
    const tree = buildTree(surface);
    const paths = new Set<string>();
    if (tree.ok) for (const node of tree.nodes) bindings(Object.values(node.properties), paths);
    const bound = new Map([...paths].sort().map((p) => [p, asIr08(getDataByPath(surface.dataModel, p))]));
    surfaces.set(surfaceId, {
      rendering: surface.rendering,
      shape: tree.ok && tree.root ? shape08(tree.root) : undefined,
      bound,
      committed: asIr08(getDataByPath(surface.dataModel, '/committed')),
    });
  }
  return { surfaces };
}

export function wireState09(sim: ClientSimV09): WireState {
  const surfaces = new Map<string, SurfaceView>();
  for (const [surfaceId, surface] of sim.state().surfaces) {
    const tree = buildTreeV09(surface);
    const paths = new Set<string>();
    const selections = new Set<string>();
    for (const node of tree.nodes) {
      const properties = surface.components.get(node.id)?.properties ?? {};
      bindings(properties, paths);
      const value = (properties as { value?: { path?: unknown } }).value;
      if (node.type === 'ChoicePicker' && typeof value?.path === 'string') selections.add(value.path);
    }
    const bound = new Map([...paths].sort().map((p) => [p, getData(surface.dataModel, p)]));
    surfaces.set(surfaceId, {
      rendering: surface.components.has('root'),
      shape: tree.root === undefined ? undefined : shape09(tree.root),
      bound: new Map([...bound].map(([p, v]) => [p, selections.has(p) ? { selection: v } : v])),
      committed: getData(surface.dataModel, '/committed'),
    });
  }
  return { surfaces };
}

/**
 * The v0.8 state written as the v0.9 one is, for `expect(…).toEqual(wireState09(…))`: selections
 * at the paths the v0.9 state marks as such (`{selection}`), `""` there read as `[]`.
 */
export function comparable08(v08: WireState, v09: WireState): WireState {
  const surfaces = new Map([...v08.surfaces].map(([id, s]) => {
    const marks = v09.surfaces.get(id)?.bound;
    const bound = new Map([...s.bound].map(([p, v]) => {
      const mark = marks?.get(p);
      const isSelection = typeof mark === 'object' && mark !== null && Object.hasOwn(mark, 'selection');
      return [p, isSelection ? { selection: v === '' ? [] : v } : v];
    }));
    return [id, { ...s, bound }];
  }));
  return { surfaces };
}
