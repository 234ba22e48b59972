import { escapeToken, SurfaceId } from '../ui-ir/index.ts';
import type { ParseResult } from './a2ui-event.ts';
import { utf8ByteLength } from './bounds.ts';
import { splitContext } from './context.ts';
import { resolveLimits, type IngressLimits } from './limits.ts';
import { HTML_FIELDS, type ActionRequest } from './request.ts';
import { reject, type Rejection } from './result.ts';
import { isValidIdempotencyKey, parseCounter } from './wire-values.ts';

/** What the host's urlencoded/multipart parser gives: repeated names become arrays. */
export type HtmlFormFields = Readonly<Record<string, string | readonly string[]>>;

export interface HtmlFormOptions {
  readonly limits?: Partial<IngressLimits> | undefined;
}

const invalid = (detail: string, pointer?: string): Rejection => reject('A2UI_C2S_ENVELOPE_INVALID', detail, pointer);
const tooLarge = (detail: string, pointer?: string): Rejection => reject('A2UI_C2S_CONTEXT_TOO_LARGE', detail, pointer);

/** A field's pointer, only built for a rejection (a module function, not a closure per field: see settledOf in queue.ts). */
const fieldPointer = (name: string): string => `/${escapeToken(name)}`;

/** Field count, string length and total size; also refuses values that are not strings. */
function checkSizes(fields: Record<string, unknown>, limits: IngressLimits): Rejection | undefined {
  const names = Object.keys(fields);
  let entries = names.length;
  let bytes = 0;
  if (entries > limits.maxEntries) return tooLarge(`more than ${limits.maxEntries} fields`);
  for (const name of names) {
    const value = fields[name];
    const items: unknown[] = Array.isArray(value) ? value : [value];
    if (Array.isArray(value)) {
      entries += value.length;
      if (entries > limits.maxEntries) return tooLarge(`more than ${limits.maxEntries} fields and values`, fieldPointer(name));
    }
    if (name.length > limits.maxStringLength) return tooLarge(`field name longer than ${limits.maxStringLength}`, fieldPointer(name));
    bytes += utf8ByteLength(name);
    for (const item of items) {
      if (typeof item !== 'string') return invalid('form values must be strings', fieldPointer(name));
      if (item.length > limits.maxStringLength) return tooLarge(`value longer than ${limits.maxStringLength} characters`, fieldPointer(name));
      bytes += utf8ByteLength(item);
    }
    if (bytes > limits.maxBodyBytes) return tooLarge(`form over ${limits.maxBodyBytes} bytes`, fieldPointer(name));
  }
  return undefined;
}

function single(fields: Record<string, unknown>, name: string): string | undefined {
  const value = Object.hasOwn(fields, name) ? fields[name] : undefined;
  return typeof value === 'string' ? value : undefined;
}

/**
 * HTML form post (fields already parsed by the host) → normalised request. Hidden fields:
 * `_surface`, `_epoch`, `_nonce`, `_rev`, `_idem` (optional, one per render), and `_action`
 * from the clicked submit button (`name="_action" value="<action>"`). Everything else is a
 * context value, left as sent: an unchecked checkbox is simply absent, and turning "on" or
 * "3" into booleans and numbers is the job of the action's context schema. Never throws.
 */
export function parseHtmlFormAction(fields: HtmlFormFields, options: HtmlFormOptions = {}): ParseResult<ActionRequest> {
  const limits = resolveLimits(options.limits);
  if (fields === null || typeof fields !== 'object' || Array.isArray(fields)) return invalid('form fields must be an object');
  const raw = fields as Record<string, unknown>;
  const sizes = checkSizes(raw, limits);
  if (sizes) return sizes;

  const surfaceId = single(raw, HTML_FIELDS.surface);
  if (surfaceId === undefined || !SurfaceId.safeParse(surfaceId).success) {
    return invalid(`${HTML_FIELDS.surface} must name a surface`, `/${HTML_FIELDS.surface}`);
  }
  const epoch = parseCounter(single(raw, HTML_FIELDS.epoch));
  if (epoch === undefined) return invalid(`${HTML_FIELDS.epoch} must be a non-negative integer`, `/${HTML_FIELDS.epoch}`);
  const action = single(raw, HTML_FIELDS.action);
  if (action === undefined || action.length === 0 || action.length > limits.maxIdLength) {
    return invalid(`${HTML_FIELDS.action} must be one action name (the clicked submit button)`, `/${HTML_FIELDS.action}`);
  }
  let idempotencyKey: string | undefined;
  if (Object.hasOwn(raw, HTML_FIELDS.idempotencyKey)) {
    idempotencyKey = single(raw, HTML_FIELDS.idempotencyKey);
    if (!isValidIdempotencyKey(idempotencyKey, limits.maxIdLength)) {
      return invalid(`${HTML_FIELDS.idempotencyKey} must be 1..${limits.maxIdLength} visible ASCII characters`, `/${HTML_FIELDS.idempotencyKey}`);
    }
  }

  // Null prototype: a field literally named `__proto__` stays an own key, for splitContext to refuse.
  const rest: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  const consumed: readonly string[] = [HTML_FIELDS.surface, HTML_FIELDS.epoch, HTML_FIELDS.action, HTML_FIELDS.idempotencyKey];
  for (const [name, value] of Object.entries(raw)) {
    if (!consumed.includes(name)) rest[name] = Array.isArray(value) ? [...value] : value;
  }
  const context = splitContext(rest, { nonce: HTML_FIELDS.nonce, rev: HTML_FIELDS.rev }, '', limits.maxIdLength);
  if (!context.ok) return context;
  return {
    ok: true,
    request: {
      kind: 'action', transport: 'html', surfaceId, epoch, nonce: context.nonce, rev: context.rev, action,
      // One `_idem` serves all of a render's buttons: a double click dedupes, another button is
      // another request.
      context: context.values, ...(idempotencyKey === undefined ? {} : { idempotencyKey: `${idempotencyKey} ${action}` }),
    },
  };
}
