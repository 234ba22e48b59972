import { issue } from './codes.ts';
import { childPointer, isPlainObject, own, type JsonObject } from './json-util.ts';
import type { ComponentInstance, Issue } from './types.ts';

export interface Reference {
  readonly id: string;
  readonly pointer: string;
  /** Template edges repeat per data item and may legitimately recurse, so cycle checks skip them. */
  readonly template: boolean;
}

function soleType(component: ComponentInstance): [string, JsonObject] | undefined {
  const types = Object.keys(component.component);
  if (types.length !== 1) return undefined;
  const props = own(component.component, types[0]!);
  return isPlainObject(props) ? [types[0]!, props] : undefined;
}

/**
 * The references WC's zod closure check follows: only single-type components, only these
 * properties. Strings elsewhere that happen to equal an id are "shadowing", not references.
 */
export function referencesOf(component: ComponentInstance, pointer: string): Reference[] {
  const typed = soleType(component);
  if (typed === undefined) return [];
  const [type, props] = typed;
  const at = childPointer(childPointer(pointer, 'component'), type);
  const refs: Reference[] = [];
  const add = (value: unknown, where: string, template = false): void => {
    if (typeof value === 'string') refs.push({ id: value, pointer: where, template });
  };
  switch (type) {
    case 'Row': case 'Column': case 'List': {
      const children = own(props, 'children');
      if (!isPlainObject(children)) break;
      const list = own(children, 'explicitList');
      if (Array.isArray(list)) list.forEach((id, i) => add(id, childPointer(childPointer(childPointer(at, 'children'), 'explicitList'), i)));
      const template = own(children, 'template');
      if (isPlainObject(template)) add(own(template, 'componentId'), `${at}/children/template/componentId`, true);
      break;
    }
    case 'Card': case 'Button':
      add(own(props, 'child'), childPointer(at, 'child'));
      break;
    case 'Modal':
      add(own(props, 'entryPointChild'), childPointer(at, 'entryPointChild'));
      add(own(props, 'contentChild'), childPointer(at, 'contentChild'));
      break;
    case 'Tabs': {
      const items = own(props, 'tabItems');
      if (Array.isArray(items)) items.forEach((item, i) => {
        if (isPlainObject(item)) add(own(item, 'child'), `${childPointer(childPointer(at, 'tabItems'), i)}/child`);
      });
      break;
    }
  }
  return refs;
}

function findCycle(edges: ReadonlyMap<string, readonly string[]>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (id: string): string[] | undefined => {
    if (state.get(id) === 'done') return undefined;
    if (state.get(id) === 'open') return [...stack.slice(stack.indexOf(id)), id];
    state.set(id, 'open');
    stack.push(id);
    for (const next of edges.get(id) ?? []) {
      const cycle = visit(next);
      if (cycle !== undefined) return cycle;
    }
    stack.pop();
    state.set(id, 'done');
    return undefined;
  };
  for (const id of edges.keys()) {
    const cycle = visit(id);
    if (cycle !== undefined) return cycle;
  }
  return undefined;
}

/**
 * Per-surfaceUpdate checks: duplicate ids, referential closure (as WC), structural cycles.
 * Divergences (deliberate, both "fail fast"): an empty-string reference is reported (WC's
 * check skips falsy ids and later throws in its render guard), and a cycle is reported here
 * even before beginRendering or when unreachable from root (WC only throws once it builds the
 * tree from a root that reaches the cycle). Closure makes every edge of a message point into the
 * same message, so a structural cycle can only ever be formed inside one surfaceUpdate.
 */
export function checkClosure(components: readonly ComponentInstance[], pointer: string, issues: Issue[]): void {
  const ids = new Set<string>();
  components.forEach((c, i) => {
    if (ids.has(c.id)) issues.push(issue('CLIENTSIM_DUPLICATE_ID', `duplicate component id '${c.id}'`, childPointer(childPointer(pointer, i), 'id')));
    ids.add(c.id);
  });
  const edges = new Map<string, string[]>();
  components.forEach((c, i) => {
    const refs = referencesOf(c, childPointer(pointer, i));
    for (const ref of refs) {
      if (!ids.has(ref.id)) issues.push(issue('CLIENTSIM_DANGLING_REFERENCE', `component '${c.id}' references '${ref.id}', which this surfaceUpdate does not define`, ref.pointer));
    }
    edges.set(c.id, refs.filter((r) => !r.template).map((r) => r.id));
  });
  const cycle = findCycle(edges);
  if (cycle !== undefined) issues.push(issue('CLIENTSIM_CYCLE', `component cycle ${cycle.join(' -> ')}`, pointer));
}
