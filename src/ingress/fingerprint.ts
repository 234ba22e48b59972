import { hash } from 'node:crypto';
import type { IngressRequest } from './request.ts';

/**
 * What makes a request the request it is, as a digest stored with its idempotency key: a key
 * reused for another request is refused (422) instead of replaying an answer to something
 * else (IETF draft "The Idempotency-Key HTTP Header Field", Stripe).
 *
 * In: the surface id and epoch, the nonce and rev (a resend from another rendering is another
 * request), the action, and the context values as the parsers normalised them (`nonce`/`rev`
 * removed, rev/epoch as numbers, HTML repeated names as arrays). A client error report: its
 * surface, epoch, code, path and message (they make the answer it gets).
 * Out: the transport (the same request through either host is the same request) and the A2UI
 * wire version: a v0.8 `userAction` and a v0.9 `action` from the same rendering (surface id and
 * epoch, nonce, rev) with the same values are the same request, and a key sent with both gets
 * one outcome. Where the two wires write the same input differently (an empty selection is `""`
 * in v0.8 and `[]` in v0.9), the values differ and so does the digest: a 422, never a second
 * application (the rev makes any resend under a new key stale). Also out: the A2UI
 * `timestamp`, a client clock a retry may refresh; `sourceComponentId`, which no action sees;
 * the key itself; and everything the hosts strip before parsing (CSRF token, page id).
 *
 * Canonical: object keys sorted at every depth, arrays in order, JSON number text, so the same
 * values give the same digest whatever the key order, and a request read back from the log
 * (JSON) gives the digest it had live. That is why the log needs no field for it.
 */
export function requestFingerprint(request: IngressRequest): string {
  if (request.kind === 'action') {
    const head = JSON.stringify(['surfacer-request:1', 'action', request.surfaceId, request.epoch, request.nonce, request.rev, request.action]);
    return hash('sha256', `${head.slice(0, -1)},${canonicalJson(request.context)}]`, 'base64url');
  }
  const parts = ['surfacer-request:1', 'client_error', request.surfaceId, request.epoch, request.clientCode, request.path ?? null, request.message ?? null];
  return hash('sha256', JSON.stringify(parts), 'base64url');
}

/**
 * `JSON.stringify(value, sortedKeys)` as an element of an array (undefined is `null`). A
 * replacer takes V8 off its fast serialiser, and Object.fromEntries builds a copy of every
 * object: ~3 µs of each action. So a flat context (a form's: strings, numbers, booleans, null,
 * arrays of those; a plain or null-prototype object) is written here, keys sorted the same way, and anything else goes through
 * the replacer. Same text, same digest: digests stored with idempotency keys before stay valid.
 */
export function canonicalJson(value: unknown): string {
  const proto: unknown = value === null || typeof value !== 'object' ? undefined : Object.getPrototypeOf(value);
  // A `toJSON` of its own (even one not enumerable) would make JSON write something else.
  if (value === null || typeof value !== 'object' || Array.isArray(value) || (proto !== Object.prototype && proto !== null) || 'toJSON' in value) {
    return JSON.stringify(value, sortedKeys) ?? 'null';
  }
  const keys = Object.keys(value).sort(byCodeUnits);
  let text = '{';
  for (const key of keys) {
    const v = (value as Record<string, unknown>)[key];
    // An array index key is written first by JSON (in numeric order), and an undefined or
    // nested value needs the replacer's rules: left to it.
    if (ARRAY_INDEX.test(key) || !isFlat(v)) return JSON.stringify(value, sortedKeys);
    text += `${text.length > 1 ? ',' : ''}${JSON.stringify(key)}:${JSON.stringify(v)}`;
  }
  return `${text}}`;
}

const ARRAY_INDEX = /^(?:0|[1-9]\d{0,9})$/;

function isScalar(v: unknown): boolean {
  return v === null || typeof v === 'string' || typeof v === 'boolean' || typeof v === 'number';
}

function isFlat(v: unknown): boolean {
  return isScalar(v) || (Array.isArray(v) && v.every(isScalar));
}

function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

// Object.fromEntries defines own properties, so a `__proto__` key stays a key. Integer-like keys
// come out first in numeric order, as in any object: still one order per set of keys.
function sortedKeys(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => byCodeUnits(a, b)));
}
