import { CHILD_REFS, getData, isBasicComponentType } from '../../a2ui-v0_9-protocol/index.ts';
import type { SurfaceStateV09 } from './types.ts';

/**
 * The rendered tree of a v0.9 surface, as the official NodeResolver builds it
 * (src/v0_9/nodes/node-resolver.js): from the component `root` at data path `/`, following only
 * the catalogue's reference properties in the order the component's properties come; a list
 * template adds one child per item of the array at its path, each with its own data path. An id
 * not defined (yet) is a `pending` placeholder; a component already on the branch with the same
 * data path is a `cyclic` placeholder; a type outside the catalogue an `unknown-type` node.
 */
export interface TreeNodeV09 {
  readonly id: string;
  readonly type: string;
  readonly dataPath: string;
  readonly state: 'resolved' | 'pending' | 'cyclic' | 'unknown-type';
  readonly children: readonly TreeNodeV09[];
}

export interface TreeV09 {
  readonly root: TreeNodeV09 | undefined;
  /** Every node in document order (depth-first, parents first). */
  readonly nodes: readonly TreeNodeV09[];
}

export const PLACEHOLDER = 'Placeholder';

/** DataContext.resolvePath: absolute paths win; `` and `.` mean the context itself. */
export function resolveDataPath(path: string, base: string): string {
  if (path.startsWith('/')) return path;
  if (path === '' || path === '.') return base;
  let b = base;
  if (b.endsWith('/') && b.length > 1) b = b.slice(0, -1);
  if (b === '/') b = '';
  return `${b}/${path}`;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function buildTreeV09(surface: SurfaceStateV09): TreeV09 {
  const nodes: TreeNodeV09[] = [];
  const chain: { id: string; dataPath: string }[] = [];
  // The tree is as deep as the component graph is long; a guard keeps adversarial input finite.
  const build = (id: string, dataPath: string): TreeNodeV09 => {
    if (chain.some((c) => c.id === id && c.dataPath === dataPath)) return push({ id, type: PLACEHOLDER, dataPath, state: 'cyclic', children: [] });
    const component = surface.components.get(id);
    if (component === undefined) return push({ id, type: PLACEHOLDER, dataPath, state: 'pending', children: [] });
    // An app component (validated by the app catalogue) renders itself: a leaf; any other unknown type a placeholder.
    if (!isBasicComponentType(component.type)) return push({ id, type: component.type, dataPath, state: component.app === true ? 'resolved' : 'unknown-type', children: [] });
    const children: TreeNodeV09[] = [];
    const node = push({ id, type: component.type, dataPath, state: 'resolved', children });
    chain.push({ id, dataPath });
    const refs = new Map(CHILD_REFS[component.type].map((r) => [r.prop, r]));
    for (const [prop, value] of Object.entries(component.properties)) {
      const ref = refs.get(prop);
      if (ref === undefined) continue;
      if (ref.kind === 'single') {
        if (typeof value === 'string' && value !== '') children.push(build(value, dataPath));
      } else if (ref.kind === 'list') {
        if (Array.isArray(value)) {
          for (const item of value) if (typeof item === 'string' && item !== '') children.push(build(item, dataPath));
        } else if (isRecord(value) && typeof value.componentId === 'string' && typeof value.path === 'string' && value.componentId !== '' && value.path !== '') {
          const listPath = resolveDataPath(value.path, dataPath);
          const items = getData(surface.dataModel, listPath);
          // Array.prototype.map, as the binder uses it: holes of a sparse array get no child.
          if (Array.isArray(items)) for (let i = 0; i < items.length; i += 1) if (i in items) children.push(build(value.componentId, resolveDataPath(String(i), listPath)));
        }
      } else if (Array.isArray(value)) {
        for (const entry of value) {
          const child = isRecord(entry) ? entry[ref.key] : undefined;
          if (typeof child === 'string' && child !== '') children.push(build(child, dataPath));
        }
      }
    }
    chain.pop();
    return node;
  };
  const push = (node: TreeNodeV09): TreeNodeV09 => { nodes.push(node); return node; };
  const root = surface.components.has('root') ? build('root', '/') : undefined;
  return { root, nodes };
}
