// Helpers for reading untrusted JSON: own properties only, never `obj[name]` through the
// prototype chain, and keys written with defineProperty so `__proto__` stays a plain key.

export type JsonObject = Record<string, unknown>;

export function isPlainObject(value: unknown): value is JsonObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

export function own(object: object, key: string): unknown {
  return Object.hasOwn(object, key) ? (object as JsonObject)[key] : undefined;
}

export function setOwn(target: JsonObject, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Escaped JSON Pointer child (RFC 6901) of `pointer`. */
export function childPointer(pointer: string, key: string | number): string {
  return `${pointer}/${String(key).replaceAll('~', '~0').replaceAll('/', '~1')}`;
}

/** Deep copy of JSON-shaped data so later mutation by the caller cannot reach the state. */
export function cloneJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(cloneJson);
  if (isPlainObject(value)) {
    const copy: JsonObject = {};
    for (const [key, item] of Object.entries(value)) setOwn(copy, key, cloneJson(item));
    return copy;
  }
  return value;
}

/** True for JSON data: what a user or a stream can legitimately hand over. */
export function isJsonValue(value: unknown, depth = 0): boolean {
  if (depth > 256) return false;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every((item) => isJsonValue(item, depth + 1));
  if (isPlainObject(value)) return Object.values(value).every((item) => isJsonValue(item, depth + 1));
  return false;
}
