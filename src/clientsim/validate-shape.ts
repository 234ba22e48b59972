import { issue } from './codes.ts';
import type { BoundSpec, ValueType } from './component-specs.ts';
import { childPointer, isPlainObject, own, setOwn, type JsonObject } from './json-util.ts';
import type { Issue } from './types.ts';

// Small building blocks that reproduce zod's verdicts (strict vs stripping objects,
// "exactly one key" refinements) with ClientSim's own codes and JSON Pointers.

/**
 * Copies the allowed own keys of `value`, in `allowed` order: zod outputs keys in its shape
 * order, and WC builds children in property order, so document order depends on it. Unknown
 * keys are an error for objects WC validates strictly and a stripping warning otherwise (zod's
 * default strips them silently).
 */
export function pickKeys(value: JsonObject, allowed: readonly string[], pointer: string, issues: Issue[], strict: boolean): JsonObject {
  for (const key of Object.keys(value)) {
    if (allowed.includes(key)) continue;
    if (strict) issues.push(issue('CLIENTSIM_UNKNOWN_FIELD', `unknown key '${key}'`, childPointer(pointer, key)));
    else issues.push(issue('CLIENTSIM_UNKNOWN_PROPERTY', `unknown property '${key}' stripped`, childPointer(pointer, key)));
  }
  const out: JsonObject = {};
  for (const key of allowed) {
    const item = own(value, key);
    if (item !== undefined) setOwn(out, key, item);
  }
  return out;
}

export function hasType(value: unknown, type: ValueType): boolean {
  switch (type) {
    case 'string': return typeof value === 'string';
    case 'number': return typeof value === 'number' && Number.isFinite(value);
    case 'boolean': return typeof value === 'boolean';
    case 'string[]': return Array.isArray(value) && value.every((item) => typeof item === 'string');
  }
}

export function requireObject(value: unknown, pointer: string, issues: Issue[], what: string): value is JsonObject {
  if (isPlainObject(value)) return true;
  issues.push(issue('CLIENTSIM_FIELD_INVALID', `${what} must be an object`, pointer));
  return false;
}

export function requireField(object: JsonObject, key: string, type: ValueType, pointer: string, issues: Issue[], required: boolean): void {
  const value = own(object, key);
  if (value === undefined) {
    if (required) issues.push(issue('CLIENTSIM_FIELD_INVALID', `missing required '${key}'`, pointer));
    return;
  }
  if (!hasType(value, type)) issues.push(issue('CLIENTSIM_FIELD_INVALID', `'${key}' must be a ${type}`, childPointer(pointer, key)));
}

/** A BoundValue: exactly one of `path` / `literal*`, as WC's `exactlyOneKey` refinement demands. */
export function validateBound(value: unknown, spec: BoundSpec, pointer: string, issues: Issue[]): JsonObject {
  if (!requireObject(value, pointer, issues, 'BoundValue')) return {};
  const picked = pickKeys(value, Object.keys(spec.keys), pointer, issues, spec.strict);
  const keys = Object.keys(picked);
  for (const key of keys) {
    const type = spec.keys[key]!;
    if (!hasType(own(picked, key), type)) issues.push(issue('CLIENTSIM_FIELD_INVALID', `'${key}' must be a ${type}`, childPointer(pointer, key)));
  }
  if (keys.includes('path') && keys.length > 1) {
    // Spec §4.2 "initialise then bind" shorthand; WC rejects it, so no web client honours it.
    issues.push(issue('CLIENTSIM_BOUND_VALUE_PATH_AND_LITERAL', `BoundValue has path and ${keys.filter((k) => k !== 'path').join(', ')}`, pointer));
  } else if (keys.length !== 1) {
    issues.push(issue('CLIENTSIM_BOUND_VALUE_INVALID', `BoundValue must define exactly one property, found ${keys.length}`, pointer));
  }
  return picked;
}
