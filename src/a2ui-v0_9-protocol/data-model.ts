/**
 * How a v0.9 client applies `updateDataModel` to a surface's data model: the official
 * DataModel.set and get (src/v0_9/state/data-model.js), rewritten copy-on-write so a state is
 * never mutated. A write through a primitive, or a non-index segment on an array, is refused;
 * missing containers on the way are created (an array when the next segment is an index);
 * `value` undefined deletes an object key and leaves a hole in an array; a path through a
 * prototype name (`__proto__`, `constructor`, `prototype`) is refused. Values are shared with
 * the messages and never written to; only the containers on a written path are copied.
 */
export type DataModel = unknown;

export type SetResult = { ok: true; data: DataModel } | { ok: false; reason: string };

const INDEX = /^(0|[1-9]\d*)$/;
export const FORBIDDEN_SEGMENTS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** Segments as the client reads a pointer: empty ones dropped, `~1` and `~0` unescaped. */
export function segmentsOf(path: string): string[] {
  return path.split('/').filter((p) => p.length > 0).map((p) => p.replace(/~([01])/g, (_, g: string) => (g === '1' ? '/' : '~')));
}

function isContainer(v: unknown): v is Record<string, unknown> | unknown[] {
  return typeof v === 'object' && v !== null;
}

function copy(v: Record<string, unknown> | unknown[]): Record<string, unknown> | unknown[] {
  return Array.isArray(v) ? v.slice() : { ...v };
}

export function setData(data: DataModel, path: string, value: unknown): SetResult {
  if (path === '/' || path === '') return { ok: true, data: value };
  const segments = segmentsOf(path);
  const forbidden = segments.find((s) => FORBIDDEN_SEGMENTS.has(s));
  if (forbidden !== undefined) return { ok: false, reason: `forbidden segment '${forbidden}'` };
  const last = segments.pop();
  if (last === undefined) return { ok: true, data: value };
  if (data !== undefined && data !== null && !isContainer(data)) return { ok: false, reason: 'the data model root is a primitive value' };
  const root = isContainer(data) ? copy(data) : {};
  let current: Record<string, unknown> | unknown[] = root;
  for (let i = 0; i < segments.length; i += 1) {
    const segment = segments[i]!;
    const next = i < segments.length - 1 ? segments[i + 1]! : last;
    const fresh = (): Record<string, unknown> | unknown[] => (INDEX.test(next) ? [] : {});
    if (Array.isArray(current)) {
      if (!INDEX.test(segment)) return { ok: false, reason: `segment '${segment}' is not an index of an array` };
      const index = Number(segment);
      const v: unknown = current[index];
      if (v !== undefined && v !== null && !isContainer(v)) return { ok: false, reason: `segment '${segment}' is a primitive value` };
      current[index] = isContainer(v) ? copy(v) : fresh();
      current = current[index] as Record<string, unknown> | unknown[];
    } else {
      const has = Object.hasOwn(current, segment);
      const v = has ? current[segment] : undefined;
      if (v !== undefined && v !== null && !isContainer(v)) return { ok: false, reason: `segment '${segment}' is a primitive value` };
      const child = isContainer(v) ? copy(v) : fresh();
      Object.defineProperty(current, segment, { value: child, enumerable: true, writable: true, configurable: true });
      current = child;
    }
  }
  if (Array.isArray(current)) {
    if (!INDEX.test(last)) return { ok: false, reason: `segment '${last}' is not an index of an array` };
    current[Number(last)] = value;
  } else if (value === undefined) delete current[last];
  else Object.defineProperty(current, last, { value, enumerable: true, writable: true, configurable: true });
  return { ok: true, data: root };
}

/** The value at `path`; the client refuses to read through a prototype name (check `FORBIDDEN_SEGMENTS` first). */
export function getData(data: DataModel, path: string): unknown {
  let current: unknown = data;
  for (const segment of segmentsOf(path)) {
    if (!isContainer(current)) return undefined;
    if (Array.isArray(current)) {
      if (!INDEX.test(segment)) return undefined;
      current = current[Number(segment)];
    } else current = Object.hasOwn(current, segment) ? current[segment] : undefined;
  }
  return current;
}
