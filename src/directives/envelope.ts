import type { SurfacerError } from '../errors/index.ts';
import { childPointer, isPlainObject, issue, setOwn, type Diagnostics } from './diagnostics.ts';
import {
  a2uiMessageKey, decodeJsonString, isDirectiveLike, PAYLOAD_SYNONYMS, TEXT_SYNONYMS, TOOL_ARGUMENT_KEYS, TYPE_SYNONYMS, unwrapToolCall,
} from './drift.ts';
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
// A reply that is a JSON string holding JSON holding … is refused past this depth.
const MAX_STRING_DECODES = 2;

export function toEnvelope(input: unknown, diagnostics: Diagnostics): EnvelopeResult {
  let value = input;
  for (let i = 0; i < MAX_STRING_DECODES && typeof value === 'string'; i++) {
    const decoded = decodeJsonString(value);
    if (!decoded.decoded) break;
    diagnostics.warnings.push(issue('DIRECTIVE_WARN_SHAPE_REPAIRED', '', 'an envelope encoded as a JSON string was decoded'));
    value = decoded.value;
  }
  if (Array.isArray(value)) {
    diagnostics.warnings.push(issue('DIRECTIVE_WARN_SHAPE_REPAIRED', '', 'a bare array of directives was wrapped in an envelope'));
    return { ok: true, envelope: { directives: value } };
  }
  if (!isPlainObject(value)) {
    return { ok: false, error: issue('DIRECTIVE_ENVELOPE_INVALID', '', 'expected an object {"directives": [...]}') };
  }
  const keys = Object.keys(value);
  const canonicalKeys = new Set(keys.map(toSnakeCase));
  const markup = a2uiMessageKey(value);
  if (markup !== undefined && !canonicalKeys.has('directives')) {
    return { ok: false, error: issue('DIRECTIVE_MARKUP_FORBIDDEN', childPointer('', markup), `an A2UI "${markup}" message instead of directives`) };
  }
  const toolCalls = keys.find((k) => toSnakeCase(k) === 'tool_calls');
  if (toolCalls !== undefined && Array.isArray(value[toolCalls]) && !canonicalKeys.has('directives')) {
    diagnostics.warnings.push(issue('DIRECTIVE_WARN_TOOL_CALL_READ', '', `"${toolCalls}" read as the directives`));
    const envelope: RawEnvelope = { directives: value[toolCalls] as unknown[] };
    if (typeof value.content === 'string' && value.content.trim() !== '') envelope.assistant_text = value.content;
    return { ok: true, envelope };
  }
  if (isDirectiveLike(value) && !canonicalKeys.has('directives') && !isList(value.directive)) {
    diagnostics.warnings.push(issue('DIRECTIVE_WARN_SHAPE_REPAIRED', '', 'a lone directive was wrapped in an envelope'));
    return { ok: true, envelope: { directives: [value] } };
  }
  const envelope: Partial<RawEnvelope> = {};
  const synonyms: string[] = [];
  for (const key of keys) {
    const canonical = toSnakeCase(key);
    if (!ENVELOPE_KEYS.has(canonical) || Object.hasOwn(envelope, canonical)) {
      synonyms.push(key);
      continue;
    }
    if (canonical !== key) {
      diagnostics.warnings.push(issue('DIRECTIVE_WARN_KEY_CASE', childPointer('', canonical), `"${key}" read as "${canonical}"`));
    }
    if (canonical === 'directives') envelope.directives = value[key] as unknown[];
    else envelope.assistant_text = value[key];
  }
  for (const key of synonyms) {
    const canonical = toSnakeCase(key);
    const target = canonical === 'directive' && isList(value[key]) ? 'directives'
      : (TEXT_SYNONYMS as readonly string[]).includes(canonical) && typeof value[key] === 'string' ? 'assistant_text' : undefined;
    if (target === undefined || Object.hasOwn(envelope, target)) {
      diagnostics.warnings.push(issue('DIRECTIVE_WARN_UNKNOWN_KEY', childPointer('', key), `envelope key "${key}" ignored`));
      continue;
    }
    diagnostics.warnings.push(issue('DIRECTIVE_WARN_KEY_SYNONYM', childPointer('', target), `"${key}" read as "${target}"`));
    envelope[target] = value[key] as never;
  }
  return checkDirectives(envelope, diagnostics);
}

function isList(value: unknown): boolean {
  return isPlainObject(value) || Array.isArray(value);
}

/** `directives` as a JSON string or as one object is read as the list it stands for; left out beside a message, as none. */
function checkDirectives(envelope: Partial<RawEnvelope>, diagnostics: Diagnostics): EnvelopeResult {
  if (envelope.directives === undefined && typeof envelope.assistant_text === 'string') {
    diagnostics.warnings.push(issue('DIRECTIVE_WARN_SHAPE_REPAIRED', '/directives', 'an envelope with only a message: no directives'));
    envelope.directives = [];
  }
  const decoded = decodeJsonString(envelope.directives);
  if (decoded.decoded) {
    diagnostics.warnings.push(issue('DIRECTIVE_WARN_SHAPE_REPAIRED', '/directives', '"directives" given as a JSON string was decoded'));
    envelope.directives = decoded.value as unknown[];
  }
  if (isPlainObject(envelope.directives)) {
    diagnostics.warnings.push(issue('DIRECTIVE_WARN_SHAPE_REPAIRED', '/directives', 'a single directive object was wrapped in a list'));
    envelope.directives = [envelope.directives];
  }
  if (!Array.isArray(envelope.directives)) {
    return { ok: false, error: issue('DIRECTIVE_ENVELOPE_INVALID', '/directives', '"directives" must be an array') };
  }
  if (envelope.assistant_text === null) {
    diagnostics.warnings.push(issue('DIRECTIVE_WARN_COERCED', '/assistant_text', 'null read as absent'));
    delete envelope.assistant_text;
  }
  return { ok: true, envelope: envelope as RawEnvelope };
}

export interface ShapedDirective {
  type: string;
  payload: Record<string, unknown>;
}

/** What the shaper needs to know about the registry: whether a name is a directive, and its payload keys. */
export interface DirectiveLookup {
  payloadKeys(type: string): ReadonlySet<string> | undefined;
}

type Found = { key: string; value: unknown };

function findKey(raw: Record<string, unknown>, names: readonly string[], accept: (value: unknown) => boolean): Found | undefined {
  for (const name of names) {
    const key = Object.keys(raw).find((k) => toSnakeCase(k) === name);
    if (key !== undefined && accept(raw[key])) return { key, value: raw[key] };
  }
  return undefined;
}

/**
 * `{type, payload}` is canonical. Also read, each with a warning: a tool-call wrapper
 * (`{"type": "function", "function": {"name", "arguments"}}`), `name` + `arguments`/`parameters`
 * (a tool call), other names for `type` (only when the value is a registered directive) and for
 * `payload` (only when the payload schema has no key of that name), a payload encoded as a JSON
 * string, and payload fields written next to `type`. Any other key next to a payload fails the
 * directive (fail closed: we will not guess which of the two the model meant).
 */
export function shapeDirective(
  input: unknown, pointer: string, diagnostics: Diagnostics, lookup: DirectiveLookup,
): ShapedDirective | undefined {
  const unwrapped = unwrapToolCall(input);
  if (unwrapped.unwrapped) diagnostics.warnings.push(issue('DIRECTIVE_WARN_TOOL_CALL_READ', pointer, 'a tool-call wrapper was read as a directive'));
  const raw = unwrapped.value;
  if (!isPlainObject(raw)) {
    diagnostics.errors.push(issue('DIRECTIVE_ENVELOPE_INVALID', pointer, 'a directive must be an object with "type" and "payload"'));
    return undefined;
  }
  const typeFound = findKey(raw, ['type'], (v) => typeof v === 'string' && v !== '')
    ?? findKey(raw, TYPE_SYNONYMS, (v) => typeof v === 'string' && lookup.payloadKeys(v) !== undefined);
  const markup = a2uiMessageKey(raw);
  if (typeFound === undefined) {
    // A tool call (or `action` + `params`) naming something that is no directive: say which.
    const named = isDirectiveLike(raw) ? findKey(raw, TYPE_SYNONYMS, (v) => typeof v === 'string') : undefined;
    diagnostics.errors.push(markup !== undefined
      ? issue('DIRECTIVE_MARKUP_FORBIDDEN', childPointer(pointer, markup), `an A2UI "${markup}" message instead of a directive`)
      : named !== undefined
        ? issue('DIRECTIVE_UNKNOWN_TYPE', childPointer(pointer, 'type'), `unknown directive type "${String(named.value)}" (given as "${named.key}")`)
        : issue('DIRECTIVE_ENVELOPE_INVALID', childPointer(pointer, 'type'), 'a directive needs a string "type"'));
    return undefined;
  }
  const type = typeFound.value as string;
  const known = lookup.payloadKeys(type);
  const payloadFound = findKey(raw, ['payload'], () => true)
    ?? findKey(raw, PAYLOAD_SYNONYMS.filter((k) => known === undefined || !known.has(k)), (v) => isPlainObject(v) || decodeJsonString(v).decoded);
  noteKeys(typeFound, payloadFound, pointer, diagnostics);
  const rest: Record<string, unknown> = {};
  for (const key of Object.keys(raw)) {
    if (key !== typeFound.key && key !== payloadFound?.key) setOwn(rest, key, raw[key]);
  }
  if (payloadFound === undefined) {
    diagnostics.warnings.push(issue('DIRECTIVE_WARN_SHAPE_REPAIRED', pointer, 'payload fields given next to "type" were moved into "payload"'));
    return { type, payload: rest };
  }
  const extra = Object.keys(rest).find((k) => !(k === 'id' && typeFound.key === 'name'));
  if (extra !== undefined) {
    diagnostics.errors.push(issue('DIRECTIVE_ENVELOPE_INVALID', childPointer(pointer, extra), `unexpected key "${extra}" next to "payload"`));
    return undefined;
  }
  const decoded = decodeJsonString(payloadFound.value);
  if (decoded.decoded) {
    diagnostics.warnings.push(issue('DIRECTIVE_WARN_SHAPE_REPAIRED', childPointer(pointer, 'payload'), 'a payload given as a JSON string was decoded'));
  }
  if (!isPlainObject(decoded.value)) {
    diagnostics.errors.push(issue('DIRECTIVE_PAYLOAD_INVALID', childPointer(pointer, 'payload'), '"payload" must be an object'));
    return undefined;
  }
  return { type, payload: decoded.value };
}

function noteKeys(typeFound: Found, payloadFound: Found | undefined, pointer: string, diagnostics: Diagnostics): void {
  const toolCall = toSnakeCase(typeFound.key) === 'name' && payloadFound !== undefined
    && (TOOL_ARGUMENT_KEYS as readonly string[]).includes(toSnakeCase(payloadFound.key));
  if (toolCall) {
    diagnostics.warnings.push(issue('DIRECTIVE_WARN_TOOL_CALL_READ', pointer, `a tool call "${String(typeFound.value)}" was read as a directive`));
    return;
  }
  for (const [found, canonical] of [[typeFound, 'type'], [payloadFound, 'payload']] as const) {
    if (found === undefined || found.key === canonical) continue;
    const code = toSnakeCase(found.key) === canonical ? 'DIRECTIVE_WARN_KEY_CASE' : 'DIRECTIVE_WARN_KEY_SYNONYM';
    diagnostics.warnings.push(issue(code, childPointer(pointer, canonical), `"${found.key}" read as "${canonical}"`));
  }
}
