import { getDataByPath, isObjectLike } from './data-model.ts';
import { resolvePath, rewriteTemplatePath } from './data-path.ts';
import { own, setOwn, type JsonObject } from './json-util.ts';
import type { SurfaceState } from './types.ts';

/** A rendered node, as WC's `buildNodeRecursive` makes it (ids of template instances carry `:<key>`). */
export interface TreeNode {
  readonly id: string;
  readonly baseId: string;
  readonly type: string | undefined;
  readonly dataContextPath: string;
  readonly weight: number | 'initial';
  /** Child ids replaced by nodes, templates expanded, template paths rewritten; BoundValues unresolved. */
  readonly properties: JsonObject;
}

export type TreeResult =
  | { readonly ok: true; readonly root: TreeNode | null; readonly nodes: readonly TreeNode[] }
  | { readonly ok: false; readonly cycleAt: string };

interface Builder {
  readonly surface: SurfaceState;
  readonly visited: Set<string>;
  readonly nodes: Array<TreeNode | undefined>;
  cycleAt: string | undefined;
}

function buildNode(b: Builder, baseId: string, dataContextPath: string, idSuffix: string): TreeNode | null {
  const instance = b.surface.components.get(baseId);
  if (instance === undefined || b.cycleAt !== undefined) return null;
  const id = `${baseId}${idSuffix}`;
  if (b.visited.has(id)) {
    b.cycleAt = id;
    return null;
  }
  b.visited.add(id);
  const slot = b.nodes.length;
  b.nodes.push(undefined);
  const type = Object.keys(instance.component)[0];
  const raw = type === undefined ? undefined : own(instance.component, type);
  const properties: JsonObject = {};
  if (isObjectLike(raw)) {
    for (const [key, value] of Object.entries(raw)) {
      setOwn(properties, key, resolveValue(b, value, dataContextPath, idSuffix, key === 'action'));
    }
  }
  b.visited.delete(id);
  const node: TreeNode = { id, baseId, type, dataContextPath, weight: instance.weight ?? 'initial', properties };
  b.nodes[slot] = node;
  return node;
}

function expandTemplate(b: Builder, template: unknown, dataContextPath: string): unknown[] {
  const componentId = isObjectLike(template) ? own(template, 'componentId') : undefined;
  const binding = isObjectLike(template) ? own(template, 'dataBinding') : undefined;
  // WC would crash with a TypeError on a non-string binding (only possible in custom types).
  if (typeof componentId !== 'string' || typeof binding !== 'string') return [];
  const fullDataPath = resolvePath(binding, dataContextPath);
  const data = getDataByPath(b.surface.dataModel, fullDataPath);
  if (Array.isArray(data)) {
    const parentIndices = dataContextPath.split('/').filter((s) => /^\d+$/.test(s));
    // Array.prototype.map, like WC, so holes in sparse arrays stay holes.
    return (data as unknown[]).map((_, index) =>
      buildNode(b, componentId, `${fullDataPath}/${index}`, `:${[...parentIndices, index].join(':')}`));
  }
  if (data instanceof Map) {
    return Array.from(data.keys(), (key) => buildNode(b, componentId, `${fullDataPath}/${key}`, `:${key}`));
  }
  return [];
}

function resolveValue(b: Builder, value: unknown, dataContextPath: string, idSuffix: string, insideAction: boolean): unknown {
  if (!insideAction && typeof value === 'string' && b.surface.components.has(value)) {
    return buildNode(b, value, dataContextPath, idSuffix);
  }
  if (!insideAction && isObjectLike(value) && (Object.hasOwn(value, 'explicitList') || Object.hasOwn(value, 'template'))) {
    const list = own(value, 'explicitList');
    if (list) return Array.isArray(list) ? list.map((id: unknown) => (typeof id === 'string' ? buildNode(b, id, dataContextPath, idSuffix) : null)) : [];
    const template = own(value, 'template');
    if (template) return expandTemplate(b, template, dataContextPath);
  }
  if (Array.isArray(value)) return value.map((item) => resolveValue(b, item, dataContextPath, idSuffix, insideAction));
  if (isObjectLike(value)) {
    const out: JsonObject = {};
    for (const [key, item] of Object.entries(value)) {
      if (key === 'path' && typeof item === 'string' && dataContextPath !== '/') {
        setOwn(out, key, rewriteTemplatePath(item));
        continue;
      }
      setOwn(out, key, resolveValue(b, item, dataContextPath, idSuffix, insideAction || key === 'action'));
    }
    return out;
  }
  return value;
}

/**
 * WC `rebuildComponentTree`: from root, with its string-to-node replacement (F13), template
 * expansion and path rewriting (§4.5). A repeated node id on the current branch is a cycle
 * (WC throws `Circular dependency`). WC's per-type guards are not reproduced: message
 * validation already rejects every input that could fail them.
 */
export function buildTree(surface: SurfaceState): TreeResult {
  if (surface.root === null || surface.root === '') return { ok: true, root: null, nodes: [] };
  const b: Builder = { surface, visited: new Set(), nodes: [], cycleAt: undefined };
  const root = buildNode(b, surface.root, '/', '');
  if (b.cycleAt !== undefined) return { ok: false, cycleAt: b.cycleAt };
  return { ok: true, root, nodes: b.nodes.filter((n): n is TreeNode => n !== undefined) };
}
