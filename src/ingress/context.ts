import { escapeToken, isSafeDataKey } from '../ui-ir/index.ts';
import { RESERVED_CONTEXT_KEYS } from './request.ts';
import { reject, type Rejection } from './result.ts';
import { findUnsafeKey, isSafeId, parseCounter } from './wire-values.ts';

export type SplitContext =
  | { ok: true; nonce: string; rev: number; values: Record<string, unknown> }
  | Rejection;

/** A context key's pointer (a module function, not a closure per call: see settledOf in queue.ts). */
const keyPointer = (basePointer: string, key: string): string => `${basePointer}/${escapeToken(key)}`;

/**
 * Separates the ingress-owned `nonce`/`rev` from the field values. Their shape is an envelope
 * matter (400); whether they are current is decided later against the IR (409).
 */
export function splitContext(
  raw: Readonly<Record<string, unknown>>, names: { nonce: string; rev: string }, basePointer: string,
  maxIdLength: number,
): SplitContext {
  const nonce = Object.hasOwn(raw, names.nonce) ? raw[names.nonce] : undefined;
  if (!isSafeId(nonce, maxIdLength)) {
    return reject('A2UI_C2S_ENVELOPE_INVALID', `${names.nonce} must be a non-empty id of at most ${maxIdLength} safe characters`, keyPointer(basePointer, names.nonce));
  }
  const rev = parseCounter(Object.hasOwn(raw, names.rev) ? raw[names.rev] : undefined);
  if (rev === undefined) {
    return reject('A2UI_C2S_ENVELOPE_INVALID', `${names.rev} must be a non-negative integer`, keyPointer(basePointer, names.rev));
  }
  const values: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (key === names.nonce || key === names.rev) continue;
    if ((RESERVED_CONTEXT_KEYS as readonly string[]).includes(key)) {
      return reject('A2UI_C2S_ENVELOPE_INVALID', `context key "${key}" is reserved for ingress`, keyPointer(basePointer, key));
    }
    // Checked before the assignment below: `values["__proto__"] = v` would set the prototype.
    // (A string, what HTML forms send, has no keys to check.)
    const unsafe = !isSafeDataKey(key) ? keyPointer(basePointer, key) : typeof value === 'string' ? undefined : findUnsafeKey(value, keyPointer(basePointer, key));
    if (unsafe !== undefined) {
      return reject('A2UI_C2S_ENVELOPE_INVALID', 'context keys must be data keys ([A-Za-z0-9_-], at most 64)', unsafe);
    }
    values[key] = value;
  }
  return { ok: true, nonce, rev, values };
}
