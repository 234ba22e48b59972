/**
 * Ingress: client→server input (A2UI `userAction`/`error`, HTML form posts) through one pipeline.
 *
 *   parseA2uiClientMessage (v0.8 or v0.9, by the body's `version` key) / parseHtmlFormAction
 *                                                                  → IngressRequest (pure; 400 / 413)
 *   checkIngress / checkClientError (request, ir)                   (pure; 409, then 403)
 *   runEffect (checked, ir, run)                                    (the action's side effect, if any; once per request)
 *   applyIngress (ir, checked, draw, effect)                        (pure; the action's handler)
 *   createIngress(...).handle                                       (idempotency + per-conversation queue)
 *   createIngress(...).apply                                        (the same, for callers that queue themselves)
 *
 * Decisions on design §6:
 * - A body over `maxBodyBytes` is A2UI_C2S_CONTEXT_TOO_LARGE (413), not ENVELOPE_INVALID (400):
 *   row 4 of the table is the size row, 413 is the HTTP meaning (RFC 9110 §15.5.14), the
 *   user-facing message ("too large") is the true one, and a host's own body limit (hono
 *   bodyLimit) answers 413 too, so the status does not depend on which layer caught it.
 *   Every bound (body bytes, nesting, key/item count, string length) is 413; shape is 400.
 *   Order: body size → UTF-8 → nesting scan → JSON.parse → bounds walk → envelope shape.
 * - A context that does not match the action's schema is A2UI_C2S_ACTION_FORBIDDEN (403), as
 *   the table lists it; field-level issues travel in `issues` for the host to show.
 * - Currency is checked before the allowlist: a stale UI gets 409 even for an action the new
 *   UI no longer offers, so the user is told to regenerate rather than "not available".
 * - An expired or deleted surface is stale (409), like an unknown one.
 * - A per-item action (one a list of the surface offers on its items) carries `list` and `item`:
 *   missing → 400 (ENVELOPE_INVALID); a list or key the surface does not show at the current
 *   rev → A2UI_C2S_ITEM_UNKNOWN (400: forged, never applied). Every change of a list's data
 *   bumps the rev, so a key that vanished since the client's rev is stale (409) first.
 * - Rejections are not stored under their idempotency key (they applied nothing).
 * - A key is bound to its request (requestFingerprint): the same request again replays the
 *   first outcome, another request under a used key is A2UI_C2S_IDEMPOTENCY_KEY_REUSED (422,
 *   as the IETF Idempotency-Key draft says), applies nothing and is not remembered either. That
 *   check comes first, before currency: a used key's answer must not depend on the IR since.
 */
export type { ActionDefinition, ActionEffect, ActionOutcome, ActionRegistry, EffectContext } from './actions.ts';
export { DEFAULT_EFFECT_TIMEOUT_MS, runEffect } from './effect.ts';
export type { CancelSignal, EffectMemo, EffectRun, EffectStep } from './effect.ts';
export { createActionRegistry } from './actions.ts';
export { parseA2uiClientEvent, parseA2uiClientMessage, parseA2uiV09ClientMessage } from './a2ui-event.ts';
export type { A2uiDialect, A2uiEventOptions, A2uiParseResult, ParseResult } from './a2ui-event.ts';
export { parseHtmlFormAction } from './html-form.ts';
export type { HtmlFormFields, HtmlFormOptions } from './html-form.ts';
export { checkClientError, checkIngress, ITEM_CONTEXT_KEYS, TABLE_CONTEXT_KEY } from './check.ts';
export type { CheckedAction, CheckedClientError } from './check.ts';
export { applyIngress } from './apply.ts';
export type { Applied } from './apply.ts';
export { appliedOutcome, createIngress, idempotencyScope, storedOutcome } from './ingress.ts';
export { requestFingerprint } from './fingerprint.ts';
export { createKeyedQueue } from './queue.ts';
export type { KeyedQueue } from './queue.ts';
export type {
  CommitRecord, ConversationAccess, FirstOutcome, Ingress, IngressOptions, IngressOutcome, StoredOutcome,
} from './ingress.ts';
export {
  createMemoryIdempotencyStore, DEFAULT_IDEMPOTENCY_MAX_ENTRIES, DEFAULT_IDEMPOTENCY_TTL_MS,
} from './idempotency.ts';
export type { IdempotencyStore, KeptEntry, MemoryIdempotencyOptions, MemoryIdempotencyStore } from './idempotency.ts';
export { DEFAULT_INGRESS_LIMITS, resolveLimits } from './limits.ts';
export type { IngressLimits } from './limits.ts';
export { HTML_FIELDS, RESERVED_CONTEXT_KEYS, SAFE_ID_PATTERN } from './request.ts';
export type { ActionRequest, ClientErrorRequest, IngressRequest, SurfaceIdDecoder } from './request.ts';
export type { FieldIssue, Rejection } from './result.ts';
export {
  clientBoolean, clientChoice, clientChoices, clientNumber, clientText, FALSE_TEXT, fieldContextSchema, isEmptyMap, NUMBER_TEXT,
  TRUE_TEXT,
} from './client-values.ts';
