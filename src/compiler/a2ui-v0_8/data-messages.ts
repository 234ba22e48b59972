import { formatPointer } from '../../ui-ir/index.ts';
import { isA2Map, NAMESPACES, type A2Leaf, type A2Map, type A2Value } from './data.ts';
import type { A2uiDataEntry, A2uiMessage } from './types.ts';

/**
 * A2Map → dataModelUpdate messages.
 *
 * Never a root replace: every message has a path below a namespace. A message at P replaces P
 * (F2); its entries hold primitives or a `valueMap` of primitives (depth 2, §4.2), and deeper
 * maps follow in further messages at deeper paths, parents first. Maps are written primitives
 * first, then sub-maps, each in key order, so WC's insertion order is the same whichever path
 * a map was written from.
 */
function leafEntry(key: string, v: A2Leaf): A2uiDataEntry {
  if (typeof v === 'string') return { key, valueString: v };
  if (typeof v === 'number') return { key, valueNumber: v };
  return { key, valueBoolean: v };
}

function ownKeys(m: A2Map): { leaves: string[]; maps: string[] } {
  const leaves: string[] = [];
  const maps: string[] = [];
  for (const key of Object.keys(m)) (isA2Map(m[key]) ? maps : leaves).push(key);
  return { leaves, maps };
}

function replaceAt(surfaceId: string, tokens: string[], map: A2Map, out: A2uiMessage[]): void {
  const contents: A2uiDataEntry[] = [];
  const deferred: [string[], A2Map][] = [];
  // Leaves go straight into contents (key order); sub-maps follow them, also in key order.
  const maps: string[] = [];
  const keys = Object.keys(map);
  for (let i = 0; i < keys.length; i += 1) {
    const key = keys[i]!;
    const v = map[key]!;
    if (isA2Map(v)) maps.push(key);
    else contents.push(leafEntry(key, v));
  }
  for (const key of maps) {
    const child = map[key] as A2Map;
    const split = ownKeys(child);
    contents.push({ key, valueMap: split.leaves.map((k) => leafEntry(k, child[k] as A2Leaf)) });
    for (const k of split.maps) deferred.push([[...tokens, key, k], child[k] as A2Map]);
  }
  out.push({ dataModelUpdate: { surfaceId, path: formatPointer(tokens), contents } });
  for (const [path, child] of deferred) replaceAt(surfaceId, path, child, out);
}

/** Full initialisation: one replace per namespace (empty ones too, so the client equals the projection). */
export function initDataMessages(surfaceId: string, model: A2Map): A2uiMessage[] {
  const out: A2uiMessage[] = [];
  for (const ns of NAMESPACES) replaceAt(surfaceId, [ns], (model[ns] ?? {}) as A2Map, out);
  return out;
}

function get(m: A2Map, key: string): A2Value | undefined {
  return Object.hasOwn(m, key) ? m[key] : undefined;
}

function equal(a: A2Value | undefined, b: A2Value | undefined): boolean {
  if (a === b) return true;
  if (!isA2Map(a) || !isA2Map(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && equal(a[k], b[k]));
}

export type DataDiff = { ok: true; messages: A2uiMessage[] } | { ok: false; reason: string };

/**
 * The smallest update turning `prev` into `next` on a client that holds `prev`.
 *
 * - /draft is where the user types, so it is never replaced: each changed key directly under
 *   it is written alone, a leaf with WC's `.` convention (`{path:"/draft/k", contents:[{key:".",…}]}`,
 *   F3 — honoured by WC, hence every official web renderer) and a map by a replace at
 *   /draft/k. A key that disappears from /draft cannot be expressed at all → rebuild.
 * - elsewhere (/committed, /ui, /view and inside /draft/k maps) the smallest enclosing map
 *   holding all changes is replaced with its complete content: portable, and it also drops
 *   removed keys; except that new map-valued keys appended after all the others are written
 *   one by one (`appendsMaps`: a map-encoded list that grows sends its new items only).
 *
 * Map-encoded lists (docs/a2ui.md "Collections"): an item that changes is its own map, so only it is
 * written; items appended are written alone; a removal or a reorder replaces the list's map
 * whole (v0.8 cannot delete a key, and rewriting the tail would leave the last key behind).
 * Keys stay "0" … "n-1", in order, no gaps, on every client.
 */
export function diffDataMessages(surfaceId: string, prev: A2Map, next: A2Map): DataDiff {
  const out: A2uiMessage[] = [];
  for (const ns of NAMESPACES) {
    const a = (get(prev, ns) ?? {}) as A2Map;
    const b = (get(next, ns) ?? {}) as A2Map;
    if (ns !== 'draft') {
      narrow(surfaceId, [ns], a, b, out);
      continue;
    }
    for (const key of Object.keys(a)) {
      if (!Object.hasOwn(b, key)) return { ok: false, reason: `/draft/${key} was removed` };
    }
    for (const key of Object.keys(b)) {
      const av = get(a, key);
      const bv = b[key]!;
      if (equal(av, bv)) continue;
      if (!isA2Map(bv)) {
        out.push({ dataModelUpdate: { surfaceId, path: formatPointer(['draft', key]), contents: [leafEntry('.', bv)] } });
      } else if (isA2Map(av)) narrow(surfaceId, ['draft', key], av, bv, out);
      else replaceAt(surfaceId, ['draft', key], bv, out);
    }
  }
  return { ok: true, messages: out };
}

function narrow(surfaceId: string, tokens: string[], a: A2Map, b: A2Map, out: A2uiMessage[]): void {
  if (equal(a, b)) return;
  const changed: string[] = [];
  for (const key of Object.keys(b)) if (!equal(get(a, key), b[key])) changed.push(key);
  const removed = Object.keys(a).some((key) => !Object.hasOwn(b, key));
  if (!removed && changed.length === 1) {
    const key = changed[0]!;
    const av = get(a, key);
    const bv = b[key]!;
    if (isA2Map(av) && isA2Map(bv)) {
      narrow(surfaceId, [...tokens, key], av, bv, out);
      return;
    }
  }
  if (!removed && appendsMaps(a, b, changed)) {
    for (const key of changed) replaceAt(surfaceId, [...tokens, key], b[key] as A2Map, out);
    return;
  }
  replaceAt(surfaceId, tokens, b, out);
}

/**
 * True when `b` is `a` with new map-valued keys after all of `a`'s (`changed` = the new keys).
 * Each can then be written alone: WC adds a new key at the end of the map's insertion order, so
 * the client's order stays the order a full init writes. This is how a map-encoded list grows
 * (items "n", "n+1", … after "0" … "n-1"); a removal or a reorder rewrites the whole map.
 */
function appendsMaps(a: A2Map, b: A2Map, changed: readonly string[]): boolean {
  const before = Object.keys(a);
  const after = Object.keys(b);
  if (after.length !== before.length + changed.length) return false;
  for (let i = 0; i < before.length; i += 1) if (after[i] !== before[i]) return false;
  for (let i = 0; i < changed.length; i += 1) if (after[before.length + i] !== changed[i] || !isA2Map(b[changed[i]!])) return false;
  return true;
}

/** Counts entries (valueMap items included) for the trace. */
export function countDataEntries(messages: readonly A2uiMessage[]): number {
  let n = 0;
  for (const m of messages) if ('dataModelUpdate' in m) n += countEntries(m.dataModelUpdate.contents);
  return n;
}

function countEntries(entries: readonly A2uiDataEntry[]): number {
  let n = entries.length;
  for (let i = 0; i < entries.length; i += 1) {
    const e = entries[i]!;
    if ('valueMap' in e) n += countEntries(e.valueMap);
  }
  return n;
}
