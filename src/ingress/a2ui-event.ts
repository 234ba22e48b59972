import { z } from 'zod';
import { escapeToken, SurfaceId } from '../ui-ir/index.ts';
import { findBoundsViolation, jsonNestingExceeds, utf8ByteLength } from './bounds.ts';
import { splitContext } from './context.ts';
import { ENVELOPE_DEPTH, resolveLimits, type IngressLimits } from './limits.ts';
import type { IngressRequest, SurfaceIdDecoder } from './request.ts';
import { SAFE_ID_PATTERN } from './request.ts';
import { reject, type Rejection } from './result.ts';
import { isValidIdempotencyKey } from './wire-values.ts';

export interface A2uiEventOptions {
  readonly decodeSurfaceId: SurfaceIdDecoder;
  /** Declared Content-Length, if the host has one: an oversized body is refused before it is read. */
  readonly contentLength?: number | null | undefined;
  /** The `Idempotency-Key` header; optional for A2UI clients. */
  readonly idempotencyKey?: string | null | undefined;
  readonly limits?: Partial<IngressLimits> | undefined;
}

export type ParseResult<T> = { ok: true; request: T } | Rejection;

const MAX_CLIENT_ERROR_MESSAGE = 500;
const MAX_CLIENT_ERROR_PATH = 1024;

function envelopeSchemas(limits: IngressLimits) {
  const safeId = z.string().min(1).max(limits.maxIdLength).regex(SAFE_ID_PATTERN);
  return {
    // client_to_server.json: all five required; unknown keys are ignored as WC does.
    userAction: z.looseObject({
      name: z.string().min(1).max(limits.maxIdLength),
      surfaceId: safeId,
      sourceComponentId: safeId,
      timestamp: z.iso.datetime({ offset: true }),
      // Not z.record: it copies by assignment, which would turn a `__proto__` key into a
      // prototype instead of letting splitContext refuse it. The parsed JSON object is kept as is.
      context: z.custom<Record<string, unknown>>(
        (v) => v !== null && typeof v === 'object' && !Array.isArray(v), 'context must be an object'),
    }),
    // v0.8 leaves `error` free-form; we take the v0.9 shape leniently: only surfaceId is required,
    // anything else of the wrong type is dropped, long text is cut.
    error: z.looseObject({
      surfaceId: safeId,
      code: z.string().min(1).max(limits.maxIdLength).optional().catch(undefined),
      path: z.string().max(MAX_CLIENT_ERROR_PATH).optional().catch(undefined),
      message: z.string().transform((m) => m.slice(0, MAX_CLIENT_ERROR_MESSAGE)).optional().catch(undefined),
    }),
  };
}

const schemaCache = new WeakMap<IngressLimits, ReturnType<typeof envelopeSchemas>>();
function schemasFor(limits: IngressLimits): ReturnType<typeof envelopeSchemas> {
  let schemas = schemaCache.get(limits);
  if (!schemas) { schemas = envelopeSchemas(limits); schemaCache.set(limits, schemas); }
  return schemas;
}

const tooLarge = (detail: string, pointer?: string): Rejection => reject('A2UI_C2S_CONTEXT_TOO_LARGE', detail, pointer);
const invalid = (detail: string, pointer?: string): Rejection => reject('A2UI_C2S_ENVELOPE_INVALID', detail, pointer);

function pointerOfIssue(root: string, path: readonly PropertyKey[]): string {
  return root + path.map((p) => `/${escapeToken(String(p))}`).join('');
}

/** Size first (nothing is decoded or parsed past the limit), then UTF-8, then nesting, then JSON. */
function readJson(body: string | Uint8Array, limits: IngressLimits, contentLength: number | null | undefined):
  { ok: true; value: unknown } | Rejection {
  const max = limits.maxBodyBytes;
  if (typeof contentLength === 'number' && contentLength > max) return tooLarge(`Content-Length ${contentLength} over ${max} bytes`);
  let text: string;
  if (typeof body === 'string') {
    // A UTF-16 unit is at least one UTF-8 byte, so the cheap test goes first.
    if (body.length > max || utf8ByteLength(body) > max) return tooLarge(`body over ${max} bytes`);
    text = body;
  } else {
    if (body.byteLength > max) return tooLarge(`body of ${body.byteLength} bytes over ${max}`);
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(body);
    } catch {
      return invalid('body is not valid UTF-8');
    }
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (jsonNestingExceeds(text, limits.maxContextDepth + ENVELOPE_DEPTH)) {
    return tooLarge(`JSON nested deeper than ${limits.maxContextDepth + ENVELOPE_DEPTH}`);
  }
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (e) {
    return invalid(`body is not JSON: ${(e as Error).message.slice(0, 200)}`);
  }
}

function decodeSurface(wire: string, decode: SurfaceIdDecoder, pointer: string):
  { ok: true; id: string; epoch: number } | Rejection {
  let decoded: ReturnType<SurfaceIdDecoder>;
  try {
    decoded = decode(wire);
  } catch {
    decoded = undefined;
  }
  if (!decoded || !SurfaceId.safeParse(decoded.id).success || !Number.isSafeInteger(decoded.epoch) || decoded.epoch < 0) {
    return invalid(`surfaceId ${JSON.stringify(wire)} does not name a surface and epoch`, pointer);
  }
  return { ok: true, id: decoded.id, epoch: decoded.epoch };
}

type Kind = 'action' | 'error';

/** Size, UTF-8, nesting, JSON and bounds of any A2UI client body: all before the envelope, where the versions differ. */
function readBody(body: string | Uint8Array, options: A2uiEventOptions, limits: IngressLimits):
  { ok: true; json: Record<string, unknown> } | Rejection {
  const read = readJson(body, limits, options.contentLength);
  if (!read.ok) return read;
  const json = read.value;
  const bounds = { maxDepth: limits.maxContextDepth + ENVELOPE_DEPTH, maxEntries: limits.maxEntries, maxStringLength: limits.maxStringLength };
  const violation = findBoundsViolation(json, bounds);
  if (violation) return tooLarge(violation.detail, violation.pointer);
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return invalid('body must be a JSON object');
  return { ok: true, json: json as Record<string, unknown> };
}

/** The `Idempotency-Key` header, checked once the envelope is known to be one. */
function idempotencyOf(options: A2uiEventOptions, limits: IngressLimits): { ok: true; idem: { idempotencyKey?: string } } | Rejection {
  if (options.idempotencyKey === undefined || options.idempotencyKey === null) return { ok: true, idem: {} };
  if (!isValidIdempotencyKey(options.idempotencyKey, limits.maxIdLength)) {
    return invalid(`Idempotency-Key must be 1..${limits.maxIdLength} visible ASCII characters`);
  }
  return { ok: true, idem: { idempotencyKey: options.idempotencyKey } };
}

/**
 * The action or error itself, the same in v0.8 (`userAction`) and v0.9 (`action`): five fields,
 * the surface id decoded into IR surface and epoch, nonce and rev split off the context.
 * `at` is where it sits in the body (pointers of rejections).
 */
function parseInner(
  kind: Kind, inner: unknown, at: string, options: A2uiEventOptions, limits: IngressLimits, dialect?: 'v0.9' | 'v0.9.1',
): ParseResult<IngressRequest> {
  const key = idempotencyOf(options, limits);
  if (!key.ok) return key;
  const { idem } = key;
  const schemas = schemasFor(limits);
  if (kind === 'error') {
    const parsed = schemas.error.safeParse(inner);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return invalid(`error event: ${issue?.message ?? 'invalid'}`, pointerOfIssue(at, issue?.path ?? []));
    }
    const surface = decodeSurface(parsed.data.surfaceId, options.decodeSurfaceId, `${at}/surfaceId`);
    if (!surface.ok) return surface;
    const { code, path, message } = parsed.data;
    return {
      ok: true,
      request: {
        kind: 'client_error', transport: 'a2ui', surfaceId: surface.id, epoch: surface.epoch, clientCode: code ?? 'UNKNOWN',
        ...(path === undefined ? {} : { path }), ...(message === undefined ? {} : { message }), ...idem,
      },
    };
  }
  const parsed = schemas.userAction.safeParse(inner);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return invalid(`${at.slice(1)}: ${issue?.message ?? 'invalid'}`, pointerOfIssue(at, issue?.path ?? []));
  }
  const action = parsed.data;
  const surface = decodeSurface(action.surfaceId, options.decodeSurfaceId, `${at}/surfaceId`);
  if (!surface.ok) return surface;
  const context = splitContext(action.context, { nonce: 'nonce', rev: 'rev' }, `${at}/context`, limits.maxIdLength);
  if (!context.ok) return context;
  return {
    ok: true,
    request: {
      kind: 'action', transport: 'a2ui', surfaceId: surface.id, epoch: surface.epoch, nonce: context.nonce, rev: context.rev,
      action: action.name, context: context.values, sourceComponentId: action.sourceComponentId, timestamp: action.timestamp,
      ...(dialect === undefined ? {} : { dialect }), ...idem,
    },
  };
}

/** The A2UI wire a client message was written in: v0.8 bodies carry no `version`, v0.9 ones do. */
export type A2uiDialect = 'v0.8' | 'v0.9' | 'v0.9.1';

/** A parsed A2UI client message and the dialect it came in (the host reads values back per dialect). */
export type A2uiParseResult = { ok: true; request: IngressRequest; dialect: A2uiDialect } | Rejection;

const V09_VERSIONS: readonly unknown[] = ['v0.9', 'v0.9.1'];

function envelopeV08(json: Record<string, unknown>, options: A2uiEventOptions, limits: IngressLimits): ParseResult<IngressRequest> {
  const keys = Object.keys(json);
  const kind = keys[0];
  if (keys.length !== 1 || (kind !== 'userAction' && kind !== 'error')) {
    return invalid(`body must hold exactly one of "userAction" or "error", got ${JSON.stringify(keys.slice(0, 4))}`);
  }
  return parseInner(kind === 'userAction' ? 'action' : 'error', json[kind], `/${kind}`, options, limits);
}

function envelopeV09(json: Record<string, unknown>, options: A2uiEventOptions, limits: IngressLimits): ParseResult<IngressRequest> {
  const keys = Object.keys(json);
  const kinds = keys.filter((k): k is Kind => k === 'action' || k === 'error');
  if (keys.length !== 2 || kinds.length !== 1 || !keys.includes('version')) {
    return invalid(`body must hold "version" and exactly one of "action" or "error", got ${JSON.stringify(keys.slice(0, 4))}`);
  }
  if (!V09_VERSIONS.includes(json.version)) {
    return invalid(`version must be "v0.9" or "v0.9.1", got ${JSON.stringify(json.version)?.slice(0, 40)}`, '/version');
  }
  const kind = kinds[0]!;
  return parseInner(kind, json[kind], `/${kind}`, options, limits, json.version as 'v0.9' | 'v0.9.1');
}

/**
 * A2UI v0.8 client event body (`{"userAction": …}` or `{"error": …}`) → normalised request.
 * Never throws; every failure is a Rejection with A2UI_C2S_ENVELOPE_INVALID (400) or
 * A2UI_C2S_CONTEXT_TOO_LARGE (413).
 */
export function parseA2uiClientEvent(body: string | Uint8Array, options: A2uiEventOptions): ParseResult<IngressRequest> {
  const limits = resolveLimits(options.limits);
  const read = readBody(body, options, limits);
  return read.ok ? envelopeV08(read.json, options, limits) : read;
}

/**
 * A2UI v0.9 client message (`{"version": "v0.9", "action": …}` or `{…, "error": …}`, v0.9.1
 * alike) → the same normalised request as v0.8, so the allowlist, nonce, epoch, rev, limits,
 * idempotency, codes and statuses are the same. Its `action` has the fields of v0.8's
 * `userAction`; the context holds the resolved bindings, nonce and rev among them.
 */
export function parseA2uiV09ClientMessage(body: string | Uint8Array, options: A2uiEventOptions): ParseResult<IngressRequest> {
  const limits = resolveLimits(options.limits);
  const read = readBody(body, options, limits);
  return read.ok ? envelopeV09(read.json, options, limits) : read;
}

/**
 * Any A2UI client message, told apart by the body's `version` key (v0.9 messages carry one,
 * v0.8 events never do), after the checks both share (size, UTF-8, nesting, JSON, bounds). One
 * endpoint serves clients of every wire version of a conversation.
 */
export function parseA2uiClientMessage(body: string | Uint8Array, options: A2uiEventOptions): A2uiParseResult {
  const limits = resolveLimits(options.limits);
  const read = readBody(body, options, limits);
  if (!read.ok) return read;
  if (!Object.hasOwn(read.json, 'version')) {
    const parsed = envelopeV08(read.json, options, limits);
    return parsed.ok ? { ...parsed, dialect: 'v0.8' } : parsed;
  }
  const parsed = envelopeV09(read.json, options, limits);
  // envelopeV09 accepted only the versions of A2uiDialect.
  return parsed.ok ? { ...parsed, dialect: read.json.version as A2uiDialect } : parsed;
}
