import { issue } from './codes.ts';
import { pathSegments } from './data-path.ts';
import { own as ownField } from './json-util.ts';
import type { DataMap, DataValue, Issue } from './types.ts';

// The data-model algorithm of WC's A2uiMessageProcessor (setDataByPath,
// convertKeyValueArrayToMap, parseIfJsonString, getDataByPath), rewritten copy-on-write so
// that a SimState is never mutated. Quirks are kept on purpose (a2ui-v0.8.md §4.4 F1–F10);
// each one is a behaviour of every official web client that the compiler has to live with.

/**
 * `own`: every container reachable from the root was created while handling the current
 * message, so it may be mutated in place (keeps building a large `contents` linear);
 * `cow`: containers may be shared with an earlier state and are copied before writing.
 */
type Mode = 'own' | 'cow';
const IGNORED: unique symbol = Symbol('ignored');
type Mutable = Map<string, unknown> | unknown[];

export function isObjectLike(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function findValueKey(item: object): string | undefined {
  return Object.keys(item).find((k) => k.startsWith('value'));
}

function parseIfJsonString(value: string, notes: Issue[]): unknown {
  const trimmed = value.trim();
  const looksLikeJson = (trimmed.startsWith('{') && trimmed.endsWith('}')) || (trimmed.startsWith('[') && trimmed.endsWith(']'));
  if (!looksLikeJson) return value;
  try {
    const parsed: unknown = JSON.parse(value);
    notes.push(issue('CLIENTSIM_JSON_STRING_PARSED', `valueString ${JSON.stringify(value.slice(0, 50))} stored as parsed JSON`));
    return parsed;
  } catch {
    notes.push(issue('CLIENTSIM_JSON_STRING_UNPARSED', `valueString ${JSON.stringify(value.slice(0, 50))} kept as a string`));
    return value;
  }
}

/** WC treats an empty array, or one whose first item has a `key`, as a typed adjacency list. */
function isAdjacencyList(value: unknown): value is unknown[] {
  if (!Array.isArray(value)) return false;
  const first: unknown = value[0];
  return value.length === 0 || (isObjectLike(first) && Object.hasOwn(first, 'key'));
}

function entryValue(item: object, valueKey: string, notes: Issue[]): unknown {
  const value = ownField(item, valueKey);
  if (valueKey === 'valueMap' && Array.isArray(value)) return convertKeyValueArrayToMap(value, notes);
  if (typeof value === 'string') return parseIfJsonString(value, notes);
  return value;
}

function convertKeyValueArrayToMap(items: readonly unknown[], notes: Issue[]): Map<string, unknown> {
  let map = new Map<string, unknown>();
  for (const item of items) {
    if (!isObjectLike(item) || !Object.hasOwn(item, 'key')) continue;
    const valueKey = findValueKey(item);
    if (valueKey === undefined) continue;
    const value = entryValue(item, valueKey, notes);
    const key = ownField(item, 'key');
    // Only reachable through JSON-looking strings: WC throws a TypeError here, so the message
    // is rejected (the state machine drops it on this error note).
    if (typeof key !== 'string') {
      notes.push(issue('CLIENTSIM_DATA_ENTRY_INVALID', 'adjacency list inside a JSON string has a non-string key'));
      continue;
    }
    map = writePath(map, key, value, notes, 'own') as Map<string, unknown>;
  }
  return map;
}

function writeAt(current: unknown, segments: readonly string[], i: number, value: unknown, notes: Issue[], mode: Mode): unknown {
  const segment = segments[i]!;
  const isIndex = /^\d+$/.test(segment);
  const writable = current instanceof Map || (Array.isArray(current) && isIndex);
  // WC looks nothing up in plain objects: the write lands in a detached map and is lost (F7).
  // Through an array with a non-index segment WC hangs the new map on the array's `NaN`
  // property, which no read can reach; dropping the write leaves the same observable state.
  if (!writable) return IGNORED;
  const container = current as Mutable;
  let next = value;
  if (i < segments.length - 1) {
    const target = container instanceof Map ? container.get(segment) : container[Number.parseInt(segment, 10)];
    let child: unknown = target;
    let childMode = mode;
    if (target === undefined || typeof target !== 'object' || target === null) {
      if (target !== undefined) notes.push(issue('CLIENTSIM_DATA_PRIMITIVE_REPLACED', `value at '${segments.slice(0, i + 1).join('/')}' replaced by a map`));
      child = new Map<string, unknown>();
      childMode = 'own';
    }
    next = writeAt(child, segments, i + 1, value, notes, childMode);
    if (next === IGNORED) return IGNORED;
  }
  if (container instanceof Map) {
    const map = mode === 'own' ? container : new Map(container);
    map.set(segment, next);
    return map;
  }
  // slice() keeps holes, as WC's in-place write into a sparse array would.
  const array = mode === 'own' ? container : container.slice();
  array[Number.parseInt(segment, 10)] = next;
  return array;
}

function writePath(root: Map<string, unknown>, path: string, input: unknown, notes: Issue[], mode: Mode): Map<string, unknown> {
  let value = input;
  if (isAdjacencyList(value)) {
    const first: unknown = value[0];
    // The `.` key convention (F3): a single `.` entry sets the value at `path` itself.
    if (value.length === 1 && isObjectLike(first) && ownField(first, 'key') === '.') {
      const valueKey = findValueKey(first);
      value = valueKey === undefined ? convertKeyValueArrayToMap(value, notes) : entryValue(first, valueKey, notes);
    } else {
      value = convertKeyValueArrayToMap(value, notes);
    }
  }
  const segments = pathSegments(path);
  if (segments.length === 0) {
    if (value instanceof Map) return new Map(value as Map<string, unknown>);
    if (isObjectLike(value)) return new Map(Object.entries(value));
    notes.push(issue('CLIENTSIM_DATA_WRITE_IGNORED', 'cannot set the root of the data model to a non-map value'));
    return root;
  }
  const written = writeAt(root, segments, 0, value, notes, mode);
  if (written === IGNORED) {
    notes.push(issue('CLIENTSIM_DATA_WRITE_IGNORED', `write at '${path}' goes through a parsed JSON value or a non-index array segment`));
    return root;
  }
  return written as Map<string, unknown>;
}

/**
 * WC `setDataByPath`, used for `dataModelUpdate` (value = its `contents`) and for user input.
 * Returns the new root; `root` itself is never modified. Problems are appended to `notes`.
 */
export function setDataByPath(root: DataMap, path: string, value: unknown, notes: Issue[]): DataMap {
  return writePath(root as Map<string, unknown>, path, value, notes, 'cow') as DataMap;
}

/**
 * WC `getDataByPath`: missing final key → undefined, missing intermediate or a primitive in
 * the way → null (F10). Divergence (deliberate): parsed JSON objects are read by own
 * property only, where WC's `current[segment]` would also return `constructor`, `toString`…
 */
export function getDataByPath(root: DataMap, path: string): DataValue {
  let current: unknown = root;
  for (const segment of pathSegments(path)) {
    if (current === undefined || current === null) return null;
    if (current instanceof Map) current = current.get(segment);
    else if (Array.isArray(current) && /^\d+$/.test(segment)) current = current[Number.parseInt(segment, 10)];
    else if (isObjectLike(current)) current = ownField(current, segment);
    else return null;
  }
  return current as DataValue;
}

export const EMPTY_DATA: DataMap = new Map();
