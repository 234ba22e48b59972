import type { A2uiMessage } from '../../../src/compiler/index.ts';

/** Contract checks over emitted messages, independent of the validator under test. */

/** Every object holding `path` together with a `literal*` key, anywhere in the messages. */
export function pathPlusLiteral(messages: readonly A2uiMessage[]): unknown[] {
  const found: unknown[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === 'object') {
      const keys = Object.keys(v);
      if (keys.includes('path') && keys.some((k) => k.startsWith('literal'))) found.push(v);
      for (const k of keys) walk((v as Record<string, unknown>)[k]);
    }
  };
  walk(messages);
  return found;
}

/** Strings equal to a component id of the same surface: component properties and data values. */
export function stringsEqualToIds(messages: readonly A2uiMessage[], priorIds: ReadonlySet<string> = new Set()): string[] {
  const ids = new Set(priorIds);
  for (const m of messages) if ('surfaceUpdate' in m) for (const c of m.surfaceUpdate.components) ids.add(c.id);
  const hits: string[] = [];
  const walk = (v: unknown, skipRefs: boolean): void => {
    if (typeof v === 'string') { if (ids.has(v)) hits.push(v); return; }
    if (Array.isArray(v)) { v.forEach((x) => walk(x, skipRefs)); return; }
    if (v === null || typeof v !== 'object') return;
    for (const [k, x] of Object.entries(v)) {
      // References are ids by design.
      if (skipRefs && (k === 'child' || k === 'entryPointChild' || k === 'contentChild' || k === 'explicitList' || k === 'componentId' || k === 'id' || k === 'surfaceId' || k === 'root')) continue;
      walk(x, skipRefs);
    }
  };
  walk(messages, true);
  return hits;
}

export function hasRootOrDraftReplace(messages: readonly A2uiMessage[]): boolean {
  return messages.some((m) => 'dataModelUpdate' in m
    && (m.dataModelUpdate.path === undefined || m.dataModelUpdate.path === '/' || m.dataModelUpdate.path === '' || m.dataModelUpdate.path === '/draft'));
}

/** Per surface: surfaceUpdate before dataModelUpdate before beginRendering (deleteSurface first if any). */
export function orderOk(messages: readonly A2uiMessage[]): boolean {
  const rank = (m: A2uiMessage): number => ('deleteSurface' in m ? 0 : 'surfaceUpdate' in m ? 1 : 'dataModelUpdate' in m ? 2 : 3);
  const last = new Map<string, number>();
  for (const m of messages) {
    const body = Object.values(m)[0] as { surfaceId: string };
    const r = rank(m);
    if (r < (last.get(body.surfaceId) ?? 0) && r !== 0) return false;
    last.set(body.surfaceId, r);
  }
  return true;
}
