import { createHash } from 'node:crypto';
import { isPlainObject, setOwn, type JsonObject } from './json-util.ts';
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

/** Data encoding for hashing: Maps, parsed objects and holes stay distinguishable. */
function tagData(value: unknown): unknown {
  if (value === undefined) return { undefined: true };
  if (value instanceof Map) return { map: [...value].map(([k, v]) => [k, tagData(v)]) };
  if (Array.isArray(value)) return { array: Array.from(value, tagData) };
  if (isPlainObject(value)) return { object: Object.entries(value).map(([k, v]) => [k, tagData(v)]) };
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
 * children follow it), root, styles, rendering flag. `catalogId` is left out because WC ignores
 * it, so it cannot change what a user sees; bookkeeping indexes are left out too.
 */
export function canonicalSurface(surface: SurfaceState): string {
  const components = [...surface.components.keys()].sort().map((id) => [id, surface.components.get(id)]);
  return canonicalJson({
    components,
    dataModel: tagData(surface.dataModel),
    rendering: surface.rendering,
    root: surface.root,
    styles: surface.styles,
  });
}

export function hashSurface(surface: SurfaceState): string {
  return createHash('sha256').update(canonicalSurface(surface)).digest('hex');
}
