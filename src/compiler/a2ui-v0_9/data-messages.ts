import { formatPointer, jsonEqual } from '../../ui-ir/index.ts';
import { NAMESPACES } from './data.ts';
import type { A2uiV09Message, A2uiV09Version, JsonObject, JsonValue } from './types.ts';

/**
 * JSON data model → updateDataModel messages.
 *
 * Init: one update of the whole model (no `path`: the root). Updates, from a model a client holds
 * to the next one, never replace the root or /draft (what the user is typing):
 * - under /draft every changed key is written alone (`path: /draft/k`), a removed key is deleted
 *   (`path` without `value`), and a map that changed in one place is narrowed into;
 * - elsewhere the smallest enclosing map holding every change is written whole, unless it is a
 *   single change (one key written, or one removed: deleted).
 * Arrays outside /draft (lists): one element that changed is written alone at its index, and
 * elements appended after the others are written alone at theirs (the client's array grows by
 * them); anything else — a removal (deleting an element would leave a hole), a reorder, several
 * elements changed — writes the array whole. Under /draft an array is a value, written whole.
 */
type Write = (path: readonly string[], value: JsonValue | undefined) => void;

export function initDataMessages(version: A2uiV09Version, surfaceId: string, model: JsonObject): A2uiV09Message[] {
  return [{ version, updateDataModel: { surfaceId, value: model } }];
}

function isMap(v: JsonValue | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function get(m: JsonObject, key: string): JsonValue | undefined {
  return Object.hasOwn(m, key) ? m[key] : undefined;
}


/** Each changed or removed key of `b` against `a`, written alone; maps that changed are narrowed into. */
function eachKey(path: readonly string[], a: JsonObject, b: JsonObject, write: Write): void {
  for (const key of Object.keys(a)) if (!Object.hasOwn(b, key)) write([...path, key], undefined);
  for (const key of Object.keys(b)) {
    const av = get(a, key);
    const bv = b[key]!;
    if (jsonEqual(av, bv)) continue;
    if (isMap(av) && isMap(bv)) narrow([...path, key], av, bv, write);
    else if (Array.isArray(av) && Array.isArray(bv) && path[0] !== 'draft') narrowArray([...path, key], av, bv, write);
    else write([...path, key], bv);
  }
}

/** One changed element, or elements appended: written at their indexes; anything else: the array whole. */
function narrowArray(path: readonly string[], a: readonly JsonValue[], b: readonly JsonValue[], write: Write): void {
  if (b.length < a.length) return write(path, b as JsonValue[]);
  const changed: number[] = [];
  for (let i = 0; i < a.length; i += 1) if (!jsonEqual(a[i], b[i])) changed.push(i);
  if (changed.length > 1 || (changed.length === 1 && b.length > a.length)) return write(path, b as JsonValue[]);
  for (const i of changed) write([...path, String(i)], b[i]!);
  for (let i = a.length; i < b.length; i += 1) write([...path, String(i)], b[i]!);
}

function narrow(path: readonly string[], a: JsonObject, b: JsonObject, write: Write): void {
  if (jsonEqual(a, b)) return;
  const removed = Object.keys(a).filter((key) => !Object.hasOwn(b, key));
  const changed = Object.keys(b).filter((key) => !jsonEqual(get(a, key), b[key]));
  if (removed.length + changed.length === 1) eachKey(path, a, b, write);
  else write(path, b);
}

export function diffDataMessages(version: A2uiV09Version, surfaceId: string, prev: JsonObject, next: JsonObject): A2uiV09Message[] {
  const out: A2uiV09Message[] = [];
  const write: Write = (path, value) => {
    const body: { surfaceId: string; path: string; value?: JsonValue } = { surfaceId, path: formatPointer(path) };
    if (value !== undefined) body.value = value;
    out.push({ version, updateDataModel: body });
  };
  for (const ns of NAMESPACES) {
    const a = get(prev, ns);
    const b = get(next, ns);
    if (!isMap(a) || !isMap(b)) {
      if (!jsonEqual(a, b)) write([ns], b);
      continue;
    }
    if (ns === 'draft') eachKey([ns], a, b, write);
    else narrow([ns], a, b, write);
  }
  return out;
}

/**
 * Data entries written (the trace's count): every key and array item inside a map or list sent,
 * at any depth; a single leaf written or deleted counts one.
 */
export function countDataEntries(messages: readonly A2uiV09Message[]): number {
  let n = 0;
  for (const m of messages) {
    if (!('updateDataModel' in m)) continue;
    const v = m.updateDataModel.value;
    n += typeof v === 'object' && v !== null ? entries(v) : 1;
  }
  return n;
}

function entries(v: JsonValue): number {
  if (typeof v !== 'object' || v === null) return 0;
  const values = Array.isArray(v) ? v : Object.values(v);
  let n = values.length;
  for (const x of values) n += entries(x);
  return n;
}
