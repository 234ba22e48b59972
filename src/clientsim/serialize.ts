import { createHash } from 'node:crypto';
import { isPlainObject, setOwn, type JsonObject } from './json-util.ts';
import { buildTree } from './tree.ts';
import type { SurfaceState } from './types.ts';

/**
 * Plain JSON copy of a data value: Maps become objects. Caveat of plain objects: integer-like
 * keys iterate first, so use `orderedJson` when insertion order must survive (CLI output).
 * `mapsAs: 'empty'` reproduces what `JSON.stringify` makes of a Map (`{}`).
 */
export function toPlain(value: unknown, mapsAs: 'object' | 'empty' = 'object'): unknown {
  if (value instanceof Map) {
    const out: JsonObject = {};
    if (mapsAs === 'object') for (const [k, v] of value) setOwn(out, String(k), toPlain(v, mapsAs));
    return out;
  }
  if (Array.isArray(value)) return Array.from(value, (v: unknown) => (v === undefined ? null : toPlain(v, mapsAs)));
  if (isPlainObject(value)) {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) if (v !== undefined) setOwn(out, k, toPlain(v, mapsAs));
    return out;
  }
  return value;
}

/** JSON text that writes Maps in insertion order (objects in their own key order). */
export function orderedJson(value: unknown, indent = 0, depth = 0): string {
  const pad = indent > 0 ? `\n${' '.repeat(indent * (depth + 1))}` : '';
  const end = indent > 0 ? `\n${' '.repeat(indent * depth)}` : '';
  const colon = indent > 0 ? ': ' : ':';
  const entries = (pairs: Array<[string, unknown]>): string => {
    const kept = pairs.filter(([, v]) => v !== undefined);
    if (kept.length === 0) return '{}';
    return `{${kept.map(([k, v]) => `${pad}${JSON.stringify(k)}${colon}${orderedJson(v, indent, depth + 1)}`).join(',')}${end}}`;
  };
  if (value instanceof Map) return entries([...value].map(([k, v]) => [String(k), v]));
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const items = Array.from(value, (v: unknown) => `${pad}${v === undefined ? 'null' : orderedJson(v, indent, depth + 1)}`);
    return `[${items.join(',')}${end}]`;
  }
  if (isPlainObject(value)) return entries(Object.entries(value));
  return JSON.stringify(value) ?? 'null';
}

/**
 * How a surface is hashed. `sortDataKeys`: compare data maps (and parsed JSON objects) as
 * unordered key sets. The default hash keeps insertion order because WC iterates Maps in that
 * order (template children, a2ui-v0.8.md §8.22), so two streams that differ only in order can
 * render differently. A stream that uses no templates cannot show the difference, and a server
 * that reaches one state along different paths (incremental updates vs a fresh init) legitimately
 * inserts keys in different orders: e.g. a `.` leaf update appends a new /draft key where an
 * init writes leaves before sub-maps. Use this to compare such paths; arrays keep their order,
 * and Maps stay distinct from parsed objects.
 */
export interface HashOptions {
  readonly sortDataKeys?: boolean;
  /**
   * Hash only the components the rendered tree reaches from the root (when the surface is
   * rendering and its root exists). v0.8 cannot remove a component, so after incremental
   * updates the client keeps unreferenced ones that a fresh init of the same state never
   * sends; nothing renders them (a2ui-v0.8.md §7.2). Buffering surfaces keep every component.
   */
  readonly reachableOnly?: boolean;
}

function hashedComponentIds(surface: SurfaceState, reachableOnly: boolean): string[] {
  if (reachableOnly && surface.rendering) {
    const tree = buildTree(surface);
    if (tree.ok && tree.root !== null) return [...new Set(tree.nodes.map((n) => n.baseId))].sort();
  }
  return [...surface.components.keys()].sort();
}

const byKey = (a: [string, unknown], b: [string, unknown]): number => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

/** Data encoding for hashing: Maps, parsed objects and holes stay distinguishable. */
function tagData(value: unknown, sort: boolean): unknown {
  if (value === undefined) return { undefined: true };
  const pairs = (entries: Array<[string, unknown]>): Array<[string, unknown]> => {
    const tagged = entries.map(([k, v]): [string, unknown] => [k, tagData(v, sort)]);
    return sort ? tagged.sort(byKey) : tagged;
  };
  if (value instanceof Map) return { map: pairs([...(value as Map<string, unknown>)]) };
  if (Array.isArray(value)) return { array: Array.from(value, (v: unknown) => tagData(v, sort)) };
  if (isPlainObject(value)) return { object: pairs(Object.entries(value)) };
  return value;
}

/** JSON with object keys sorted (code-unit order): the same state always gives the same text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${Array.from(value, (v: unknown) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  if (isPlainObject(value)) {
    const keys = Object.keys(value).filter((k) => value[k] !== undefined).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Canonical surface text: components sorted by id, data model in insertion order (template
 * children follow it) unless `options` relax either, root, styles, rendering flag. `catalogId` is left out because WC ignores
 * it, so it cannot change what a user sees; bookkeeping indexes are left out too.
 */
export function canonicalSurface(surface: SurfaceState, options: HashOptions = {}): string {
  const components = hashedComponentIds(surface, options.reachableOnly === true).map((id) => [id, surface.components.get(id)]);
  return canonicalJson({
    components,
    dataModel: tagData(surface.dataModel, options.sortDataKeys === true),
    rendering: surface.rendering,
    root: surface.root,
    styles: surface.styles,
  });
}

export function hashSurface(surface: SurfaceState, options: HashOptions = {}): string {
  return createHash('sha256').update(canonicalSurface(surface, options)).digest('hex');
}
