import jsonpointer from 'jsonpointer';

/**
 * RFC 6901 JSON Pointers, and the stricter rules for data keys.
 *
 * Escaping is RFC 6901 (`~0`, `~1`). Data keys additionally use a safe charset because A2UI
 * clients treat `.` and `[n]` as path separators and do no `~` unescaping
 * (a2ui-v0.8.md §4.4 F4), and because prototype keys must never be addressable.
 */

export const DATA_KEY_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
const FORBIDDEN_KEYS = new Set(['__proto__', 'prototype', 'constructor']);

export const NAMESPACES = ['draft', 'committed', 'ui'] as const;
export type Namespace = (typeof NAMESPACES)[number];

export function isSafeDataKey(key: string): boolean {
  return DATA_KEY_PATTERN.test(key) && !FORBIDDEN_KEYS.has(key);
}

export function escapeToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function unescapeToken(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

export type PointerResult =
  | { ok: true; tokens: string[] }
  | { ok: false; reason: string };

/** Parses an RFC 6901 pointer. Rejects what the `jsonpointer` package lets through (`~2`). */
export function parsePointer(pointer: string): PointerResult {
  if (pointer === '') return { ok: true, tokens: [] };
  if (!pointer.startsWith('/')) return { ok: false, reason: 'a JSON Pointer starts with "/"' };
  const raw = pointer.slice(1).split('/');
  for (const token of raw) {
    if (/~(?![01])/.test(token)) return { ok: false, reason: `invalid escape in "${token}"` };
  }
  return { ok: true, tokens: raw.map(unescapeToken) };
}

export function formatPointer(tokens: readonly string[]): string {
  return tokens.map((t) => `/${escapeToken(t)}`).join('');
}

export type DataPath = { namespace: Namespace; keys: string[] };

export type DataPathResult =
  | { ok: true; path: DataPath; pointer: string; canonicalised: boolean }
  | { ok: false; reason: string };

/**
 * Canonicalises a path given by a model or a client into a data pointer.
 * `/draft/name` is canonical; `draft/name`, `draft.name` and a bare `name` (meaning
 * `/draft/name`) are accepted and flagged `canonicalised` so callers can warn.
 */
export function canonicaliseDataPath(input: string): DataPathResult {
  let tokens: string[];
  let canonicalised = false;
  if (input.startsWith('/')) {
    const parsed = parsePointer(input);
    if (!parsed.ok) return parsed;
    tokens = parsed.tokens;
  } else {
    canonicalised = true;
    tokens = input.split(/[/.]/);
    if (tokens.length === 1 || !(NAMESPACES as readonly string[]).includes(tokens[0]!)) {
      tokens = ['draft', ...tokens];
    }
  }
  const [namespace, ...keys] = tokens;
  if (namespace === undefined || !(NAMESPACES as readonly string[]).includes(namespace)) {
    return { ok: false, reason: `a data path starts with /draft, /committed or /ui (got "${input}")` };
  }
  for (const key of keys) {
    if (!isSafeDataKey(key)) return { ok: false, reason: `unsafe data key "${key}" in "${input}"` };
  }
  const path: DataPath = { namespace: namespace as Namespace, keys };
  return { ok: true, path, pointer: formatPointer(tokens), canonicalised };
}

/** Reads a value through an already validated pointer (own properties only). */
export function getAt(root: unknown, tokens: readonly string[]): unknown {
  let node: unknown = root;
  for (const token of tokens) {
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, token)) return undefined;
    node = (node as Record<string, unknown>)[token];
  }
  return node;
}

/** Reads with the `jsonpointer` package after our own validation, for pointers from outside. */
export function getByPointer(root: object, pointer: string): unknown {
  const parsed = parsePointer(pointer);
  if (!parsed.ok || parsed.tokens.some((t) => FORBIDDEN_KEYS.has(t))) return undefined;
  if (parsed.tokens.length === 0) return root;
  return getAt(root, parsed.tokens) === undefined ? undefined : jsonpointer.get(root, pointer);
}

/** Structural-sharing write: returns a new tree, never mutates `root`. */
export function setAt(root: Record<string, unknown>, tokens: readonly string[], value: unknown): Record<string, unknown> {
  if (tokens.length === 0) throw new Error('setAt needs at least one token');
  const [head, ...rest] = tokens as [string, ...string[]];
  const current = Object.hasOwn(root, head) ? root[head] : undefined;
  const child = rest.length === 0
    ? value
    : setAt(isPlainObject(current) ? current : {}, rest, value);
  return { ...root, [head]: child };
}

/** Structural-sharing removal; a missing path returns the same object. */
export function removeAt(root: Record<string, unknown>, tokens: readonly string[]): Record<string, unknown> {
  if (tokens.length === 0) return root;
  const [head, ...rest] = tokens as [string, ...string[]];
  if (!Object.hasOwn(root, head)) return root;
  if (rest.length === 0) {
    const { [head]: _removed, ...others } = root;
    return others;
  }
  const current = root[head];
  if (!isPlainObject(current)) return root;
  const next = removeAt(current, rest);
  return next === current ? root : { ...root, [head]: next };
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Two JSON values alike (key order aside): what a client holds is the same either way. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i += 1) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) if (!Object.hasOwn(b, k) || !jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  return true;
}
