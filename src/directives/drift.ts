import { isPlainObject } from './diagnostics.ts';
import { tryParseJson } from './json-repair.ts';
import { toSnakeCase } from './key-case.ts';

/**
 * The vocabulary of how models drift from the envelope: other names for its keys, tool-call
 * wrappers, JSON encoded twice. One list each, read by the region scan (is this JSON meant as
 * directives?), the envelope reader and the directive shaper.
 */

/** Other names for a directive's `type`; used only when the value names a registered directive. */
export const TYPE_SYNONYMS = ['action', 'op', 'name', 'directive', 'kind', 'tool'] as const;
/** Other names for a directive's `payload`; used only when the payload schema has no such key. */
export const PAYLOAD_SYNONYMS = ['params', 'parameters', 'arguments', 'args', 'input'] as const;
/** `name` + one of these is an OpenAI/Llama-style tool call. */
export const TOOL_ARGUMENT_KEYS = ['arguments', 'parameters'] as const;
/** Other names for the envelope's `assistant_text`. */
export const TEXT_SYNONYMS = ['message', 'response', 'reply', 'text', 'content', 'assistant', 'assistant_message', 'say'] as const;
/** A2UI message keys (v0.8 and v0.9): a model writing these writes the UI itself. */
export const A2UI_MESSAGE_KEYS = [
  'surfaceUpdate', 'dataModelUpdate', 'beginRendering', 'deleteSurface', 'createSurface', 'updateComponents', 'updateDataModel',
] as const;

const has = (value: Record<string, unknown>, keys: readonly string[]): string | undefined =>
  Object.keys(value).find((k) => keys.includes(toSnakeCase(k)));

/**
 * `{"type": "function", "function": {...}}` (an OpenAI tool-call item), `{"function": {...}}`,
 * `{"function_call": {...}}` → the inner `{name, arguments}`; `{"type": "function", "name",
 * "parameters"}` → the same without its type; anything else is returned as is.
 */
export function unwrapToolCall(value: unknown): { value: unknown; unwrapped: boolean } {
  if (!isPlainObject(value)) return { value, unwrapped: false };
  // Llama 3.2's JSON tool format: {"type": "function", "name": …, "parameters": …}.
  if (value.type === 'function' && typeof value.name === 'string' && TOOL_ARGUMENT_KEYS.some((k) => Object.hasOwn(value, k))) {
    const { type: _type, ...call } = value;
    return { value: call, unwrapped: true };
  }
  for (const key of ['function', 'function_call']) {
    const inner = Object.hasOwn(value, key) ? value[key] : undefined;
    if (isPlainObject(inner) && typeof inner.name === 'string' && (value.type === undefined || value.type === 'function')) {
      return { value: inner, unwrapped: true };
    }
  }
  return { value, unwrapped: false };
}

/** A JSON string holding an object or array (an envelope or payload encoded twice), decoded. */
export function decodeJsonString(value: unknown): { value: unknown; decoded: boolean } {
  if (typeof value !== 'string' || !/^\s*[[{]/.test(value)) return { value, decoded: false };
  const parsed = tryParseJson(value.trim());
  return parsed.ok && parsed.value !== null && typeof parsed.value === 'object' ? { value: parsed.value, decoded: true } : { value, decoded: false };
}

/** Whether an object is meant as one directive: a `type`, a tool call, or a type synonym with a payload synonym. */
export function isDirectiveLike(value: unknown): boolean {
  const inner = unwrapToolCall(value);
  if (inner.unwrapped) return true;
  if (!isPlainObject(value)) return false;
  if (typeof value.type === 'string' && value.type !== 'function') return true;
  const typeKey = has(value, TYPE_SYNONYMS);
  return typeKey !== undefined && typeof value[typeKey] === 'string' && has(value, PAYLOAD_SYNONYMS) !== undefined;
}

/** Whether a JSON value found in prose is meant as directives (else it is prose, like `[1]`). */
export function looksLikeDirectives(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0 && value.every(isDirectiveLike);
  if (!isPlainObject(value)) return false;
  return isDirectiveLike(value) || has(value, ['directives', 'tool_calls']) !== undefined
    || (isPlainObject(value.directive) || Array.isArray(value.directive));
}

/**
 * Whether JSON meant as directives is a whole answer (an envelope, a list of directives, a
 * `tool_calls` message) rather than one directive: the same split toEnvelope makes.
 */
export function isWholeAnswer(value: unknown): boolean {
  if (Array.isArray(value)) return true;
  if (!isPlainObject(value)) return false;
  if (has(value, ['directives']) !== undefined) return true;
  const toolCalls = has(value, ['tool_calls']);
  if (toolCalls !== undefined && Array.isArray(value[toolCalls])) return true;
  const directive = Object.hasOwn(value, 'directive') ? value.directive : undefined;
  return !isDirectiveLike(value) || isPlainObject(directive) || Array.isArray(directive);
}

/** Whether an object is an A2UI message rather than a directive. */
export function a2uiMessageKey(value: unknown): string | undefined {
  return isPlainObject(value) ? Object.keys(value).find((k) => (A2UI_MESSAGE_KEYS as readonly string[]).includes(k)) : undefined;
}
