import { issue } from './codes.ts';
import { childPointer, isPlainObject } from './json-util.ts';
import type { ComponentInstance, Issue } from './types.ts';

/** Keys whose string value is meant to be a component id (WC resolves them the same way). */
const REFERENCE_KEYS = new Set(['child', 'entryPointChild', 'contentChild']);

/**
 * Strings WC would swap for a component node when building the tree (F13): every string
 * property at any depth, except under `action` (exempt since 0.11), under a children
 * reference (`explicitList`/`template`, handled as children) and under reference keys.
 */
function candidateStrings(value: unknown, pointer: string, key: string, out: Array<[string, string]>): void {
  if (typeof value === 'string') {
    if (!REFERENCE_KEYS.has(key)) out.push([value, pointer]);
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => candidateStrings(item, childPointer(pointer, i), key, out));
  } else if (isPlainObject(value)) {
    if (Object.hasOwn(value, 'explicitList') || Object.hasOwn(value, 'template')) return;
    for (const [k, item] of Object.entries(value)) {
      if (k !== 'action') candidateStrings(item, childPointer(pointer, k), k, out);
    }
  }
}

function stringsOf(component: ComponentInstance, pointer: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const [type, props] of Object.entries(component.component)) {
    if (isPlainObject(props)) candidateStrings(props, childPointer(childPointer(pointer, 'component'), type), type, out);
  }
  return out;
}

/**
 * Warns about id/string collisions a surfaceUpdate creates: strings of the new components that
 * equal any id of the surface, and strings of older components that equal a newly added id.
 */
export function checkShadowing(
  before: ReadonlyMap<string, ComponentInstance>,
  after: ReadonlyMap<string, ComponentInstance>,
  added: readonly ComponentInstance[],
  pointer: string,
): Issue[] {
  const issues: Issue[] = [];
  const addedIds = new Set(added.map((c) => c.id));
  added.forEach((c, i) => {
    for (const [text, at] of stringsOf(c, childPointer(pointer, i))) {
      if (after.has(text)) issues.push(issue('CLIENTSIM_STRING_SHADOWED_BY_ID', `string '${text}' in '${c.id}' equals a component id`, at));
    }
  });
  const newIds = new Set([...addedIds].filter((id) => !before.has(id)));
  if (newIds.size === 0) return issues;
  for (const [id, c] of after) {
    if (addedIds.has(id)) continue;
    for (const [text] of stringsOf(c, '')) {
      if (newIds.has(text)) issues.push(issue('CLIENTSIM_STRING_SHADOWED_BY_ID', `string '${text}' in earlier component '${id}' equals new component id '${text}'`));
    }
  }
  return issues;
}
