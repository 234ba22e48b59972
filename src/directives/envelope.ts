import type { SurfacerError } from '../errors/index.ts';
import { childPointer, isPlainObject, issue, type Diagnostics } from './diagnostics.ts';
import { toSnakeCase } from './key-case.ts';

/**
 * The canonical envelope is `{ "directives": [ { "type": "...", "payload": { ... } } ],
 * "assistant_text"?: "..." }`. Anything else a model sends that can be read without guessing
 * (a bare array, a lone directive, payload fields at the top of a directive, camelCase keys)
 * is reshaped here with a warning; every pointer afterwards addresses the reshaped envelope.
 */
export interface RawEnvelope {
  directives: unknown[];
  assistant_text?: unknown;
}

export type EnvelopeResult = { ok: true; envelope: RawEnvelope } | { ok: false; error: SurfacerError };

const ENVELOPE_KEYS = new Set(['directives', 'assistant_text']);

export function toEnvelope(value: unknown, diagnostics: Diagnostics): EnvelopeResult {
  if (Array.isArray(value)) {
    diagnostics.warnings.push(issue('DIRECTIVE_WARN_SHAPE_REPAIRED', '', 'a bare array of directives was wrapped in an envelope'));
    return { ok: true, envelope: { directives: value } };
  }
  if (!isPlainObject(value)) {
    return { ok: false, error: issue('DIRECTIVE_ENVELOPE_INVALID', '', 'expected an object {"directives": [...]}') };
  }
  const keys = Object.keys(value);
  if (Object.hasOwn(value, 'type') && !keys.some((k) => toSnakeCase(k) === 'directives')) {
    diagnostics.warnings.push(issue('DIRECTIVE_WARN_SHAPE_REPAIRED', '', 'a lone directive was wrapped in an envelope'));
    return { ok: true, envelope: { directives: [value] } };
  }
  const envelope: Partial<RawEnvelope> = {};
  for (const key of keys) {
    const canonical = toSnakeCase(key);
    if (!ENVELOPE_KEYS.has(canonical) || Object.hasOwn(envelope, canonical)) {
      diagnostics.warnings.push(issue('DIRECTIVE_WARN_UNKNOWN_KEY', childPointer('', key), `envelope key "${key}" ignored`));
      continue;
    }
    if (canonical !== key) {
      diagnostics.warnings.push(issue('DIRECTIVE_WARN_KEY_CASE', childPointer('', canonical), `"${key}" read as "${canonical}"`));
    }
    if (canonical === 'directives') envelope.directives = value[key] as unknown[];
    else envelope.assistant_text = value[key];
  }
  if (!Array.isArray(envelope.directives)) {
    return { ok: false, error: issue('DIRECTIVE_ENVELOPE_INVALID', '/directives', '"directives" must be an array') };
  }
  return { ok: true, envelope: envelope as RawEnvelope };
}

export interface ShapedDirective {
  type: string;
  payload: Record<string, unknown>;
}

/**
 * `{type, payload}` is canonical. A directive whose payload fields sit next to `type` is
 * reshaped with a warning; any other key next to `payload` fails the directive (fail closed:
 * we will not guess which of the two the model meant).
 */
export function shapeDirective(raw: unknown, pointer: string, diagnostics: Diagnostics): ShapedDirective | undefined {
  if (!isPlainObject(raw)) {
    diagnostics.errors.push(issue('DIRECTIVE_ENVELOPE_INVALID', pointer, 'a directive must be an object with "type" and "payload"'));
    return undefined;
  }
  let type: unknown;
  let payload: unknown;
  let hasPayload = false;
  const rest: Record<string, unknown> = {};
  for (const key of Object.keys(raw)) {
    const canonical = toSnakeCase(key);
    if ((canonical === 'type' && type === undefined) || (canonical === 'payload' && !hasPayload)) {
      if (canonical !== key) {
        diagnostics.warnings.push(issue('DIRECTIVE_WARN_KEY_CASE', childPointer(pointer, canonical), `"${key}" read as "${canonical}"`));
      }
      if (canonical === 'type') type = raw[key];
      else { payload = raw[key]; hasPayload = true; }
    } else {
      Object.defineProperty(rest, key, { value: raw[key], enumerable: true, writable: true, configurable: true });
    }
  }
  if (typeof type !== 'string' || type === '') {
    diagnostics.errors.push(issue('DIRECTIVE_ENVELOPE_INVALID', childPointer(pointer, 'type'), 'a directive needs a string "type"'));
    return undefined;
  }
  if (hasPayload) {
    const extra = Object.keys(rest)[0];
    if (extra !== undefined) {
      diagnostics.errors.push(issue('DIRECTIVE_ENVELOPE_INVALID', childPointer(pointer, extra), `unexpected key "${extra}" next to "payload"`));
      return undefined;
    }
    if (!isPlainObject(payload)) {
      diagnostics.errors.push(issue('DIRECTIVE_PAYLOAD_INVALID', childPointer(pointer, 'payload'), '"payload" must be an object'));
      return undefined;
    }
    return { type, payload };
  }
  diagnostics.warnings.push(issue('DIRECTIVE_WARN_SHAPE_REPAIRED', pointer, 'payload fields given next to "type" were moved into "payload"'));
  return { type, payload: rest };
}
