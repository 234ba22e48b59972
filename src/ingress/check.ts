import { errorSpec, makeError, type RecoveryPath, type SurfacerError } from '../errors/index.ts';
import {
  escapeToken, findSurface, listsOffering, shownItems, tableBlocks, type CollectionBlock, type ConversationIr, type Surface,
} from '../ui-ir/index.ts';
import type { ActionDefinition, ActionRegistry } from './actions.ts';
import { nonceMatches } from './nonce.ts';
import type { ActionRequest, ClientErrorRequest } from './request.ts';
import { reject, type FieldIssue, type Rejection } from './result.ts';

export interface CheckedAction {
  readonly ok: true;
  readonly request: ActionRequest;
  readonly surface: Surface;
  readonly action: ActionDefinition;
  /**
   * The context as the action's schema parsed (and coerced) it; for a per-item action also
   * `list` and `item` (the list's name and the item's key, both checked against the surface).
   */
  readonly context: Record<string, unknown>;
}

/** The context keys a per-item button sends besides nonce and rev (compiler sinks write them). */
export const ITEM_CONTEXT_KEYS = { list: 'list', item: 'item' } as const;

/** The context key a table's sort and page buttons send besides nonce, rev and their own values. */
export const TABLE_CONTEXT_KEY = 'table';

const stale = (detail: string): Rejection => reject('A2UI_C2S_SURFACE_STALE', detail);

/**
 * The surface the request was rendered from, if it is still the current rendering: exists,
 * live (not deleted or expired), same epoch, same nonce, same rev. Anything else is 409.
 */
function currentSurface(ir: ConversationIr, request: { surfaceId: string; epoch: number; nonce?: string; rev?: number }):
  { ok: true; surface: Surface } | Rejection {
  const surface = findSurface(ir, request.surfaceId);
  if (!surface) return stale(`no surface "${request.surfaceId}"`);
  if (surface.lifecycle === 'deleted' || surface.lifecycle === 'expired') {
    return stale(`surface "${surface.id}" is ${surface.lifecycle}`);
  }
  if (surface.epoch !== request.epoch) return stale(`epoch ${request.epoch} is not the current epoch ${surface.epoch}`);
  // Compared in constant time even when epoch and rev already match: the nonce is the secret.
  if (request.nonce !== undefined && !nonceMatches(surface.nonce, request.nonce)) return stale('nonce does not match');
  if (request.rev !== undefined && surface.rev !== request.rev) return stale(`rev ${request.rev} is not the current rev ${surface.rev}`);
  return { ok: true, surface };
}

function contextPointer(request: ActionRequest, path: readonly PropertyKey[]): string {
  const base = request.transport === 'html' ? '' : request.dialect === undefined ? '/userAction/context' : '/action/context';
  return base + path.map((p) => `/${escapeToken(String(p))}`).join('');
}

type PickedItem = { ok: true; list: string; key: string; rest: Record<string, unknown> } | Rejection;

/**
 * The list and item a per-item request names, checked against what the surface shows now (the
 * rev is already current, so the client rendered exactly this): the list must offer the action
 * and show an item with that key. Both missing or not strings: the envelope is wrong (400).
 * Anything else that does not match: A2UI_C2S_ITEM_UNKNOWN (400) — forged, never applied.
 */
function pickItem(request: ActionRequest, surface: Surface, lists: readonly CollectionBlock[]): PickedItem {
  const { context } = request;
  const list = Object.hasOwn(context, ITEM_CONTEXT_KEYS.list) ? context[ITEM_CONTEXT_KEYS.list] : undefined;
  const key = Object.hasOwn(context, ITEM_CONTEXT_KEYS.item) ? context[ITEM_CONTEXT_KEYS.item] : undefined;
  if (typeof list !== 'string' || typeof key !== 'string') {
    const missing = typeof list !== 'string' ? ITEM_CONTEXT_KEYS.list : ITEM_CONTEXT_KEYS.item;
    return reject('A2UI_C2S_ENVELOPE_INVALID', `a per-item action needs "${ITEM_CONTEXT_KEYS.list}" and "${ITEM_CONTEXT_KEYS.item}" as strings`,
      contextPointer(request, [missing]));
  }
  const block = lists.find((b) => b.name === list);
  if (block === undefined) {
    return reject('A2UI_C2S_ITEM_UNKNOWN', `surface "${surface.id}" has no list ${JSON.stringify(list)} offering ${JSON.stringify(request.action)}`,
      contextPointer(request, [ITEM_CONTEXT_KEYS.list]));
  }
  if (!shownItems(surface, block).some((item) => item.key === key)) {
    return reject('A2UI_C2S_ITEM_UNKNOWN', `list "${block.name}" of surface "${surface.id}" shows no item ${JSON.stringify(key)} at rev ${surface.rev}`,
      contextPointer(request, [ITEM_CONTEXT_KEYS.item]));
  }
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(context)) if (k !== ITEM_CONTEXT_KEYS.list && k !== ITEM_CONTEXT_KEYS.item) rest[k] = v;
  return { ok: true, list, key, rest };
}

/**
 * Pure: is this action request allowed against this IR, now? Order: surface currency (409),
 * then allowlist (403: the view's buttons, or its lists' item buttons), then for a per-item
 * action its list and item key (400), then the action's context schema (403, as design §6
 * lists it). A table control (scope `table`) is offered by the surface's tables: its table
 * name is checked (400) before its schema. The IR is only read. Never throws: a schema that throws is reported as
 * INTERNAL_ERROR (500). A key that existed at an older rev is stale (409) before it is looked
 * up: every change to a list's data makes a new rev (ui-ir transitions).
 */
export function checkIngress(request: ActionRequest, ir: ConversationIr, actions: ActionRegistry): CheckedAction | Rejection {
  const current = currentSurface(ir, request);
  if (!current.ok) return current;
  const { surface } = current;

  const name = JSON.stringify(request.action);
  const action = actions.resolve(request.action);
  // A table control is offered by every table of the surface (no button names it in the view).
  if (action?.scope === 'table') return checkTableControl(request, surface, action);
  const onView = surface.view.actions.some((a) => a.name === request.action);
  const lists = onView ? [] : listsOffering(surface.view, request.action);
  if (!onView && lists.length === 0) {
    return reject('A2UI_C2S_ACTION_FORBIDDEN', `action ${name} is not offered by surface "${surface.id}"`);
  }
  if (!action) return reject('A2UI_C2S_ACTION_FORBIDDEN', `action ${name} is not registered`);
  if ((action.scope === 'item') === onView) {
    return reject('A2UI_C2S_ACTION_FORBIDDEN', `action ${name} is registered for ${action.scope === 'item' ? 'list items' : 'forms'}, not offered so here`);
  }

  let input: Readonly<Record<string, unknown>> = request.context;
  let item: { list: string; item: string } | undefined;
  if (!onView) {
    const picked = pickItem(request, surface, lists);
    if (!picked.ok) return picked;
    input = picked.rest;
    item = { [ITEM_CONTEXT_KEYS.list]: picked.list, [ITEM_CONTEXT_KEYS.item]: picked.key } as { list: string; item: string };
  }

  const parsed = parseContext(request, surface, action, input);
  if (!parsed.ok) return parsed;
  return { ok: true, request, surface, action, context: item === undefined ? parsed.data : { ...parsed.data, ...item } };
}

/**
 * A table control: the surface must show a table of that name (A2UI_C2S_TABLE_CONTROL_INVALID,
 * 400, otherwise: no rendering sends another); the action's schema parses the rest, and its
 * handler checks column, direction and page against the table.
 */
function checkTableControl(request: ActionRequest, surface: Surface, action: ActionDefinition): CheckedAction | Rejection {
  const tables = tableBlocks(surface.view);
  if (tables.length === 0) return reject('A2UI_C2S_ACTION_FORBIDDEN', `action ${JSON.stringify(request.action)} is not offered by surface "${surface.id}" (it shows no table)`);
  const { context } = request;
  const table = Object.hasOwn(context, TABLE_CONTEXT_KEY) ? context[TABLE_CONTEXT_KEY] : undefined;
  if (typeof table !== 'string' || !tables.some((b) => b.name === table)) {
    return reject('A2UI_C2S_TABLE_CONTROL_INVALID', `surface "${surface.id}" shows no table ${JSON.stringify(table)}`, contextPointer(request, [TABLE_CONTEXT_KEY]));
  }
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(context)) if (k !== TABLE_CONTEXT_KEY) rest[k] = v;
  const parsed = parseContext(request, surface, action, rest);
  if (!parsed.ok) return parsed;
  return { ok: true, request, surface, action, context: { ...parsed.data, [TABLE_CONTEXT_KEY]: table } };
}

/** The action's context schema over `input`; a schema that throws is INTERNAL_ERROR (500). */
function parseContext(request: ActionRequest, surface: Surface, action: ActionDefinition, input: Readonly<Record<string, unknown>>):
  { ok: true; data: Record<string, unknown> } | Rejection {
  const name = JSON.stringify(request.action);
  let parsed;
  try {
    parsed = action.contextSchema(surface).safeParse(input);
  } catch (e) {
    return reject('INTERNAL_ERROR', `context schema of ${name} threw: ${(e as Error)?.message ?? String(e)}`);
  }
  if (!parsed.success) {
    const issues: FieldIssue[] = parsed.error.issues.slice(0, 50).map((issue) => ({
      pointer: contextPointer(request, issue.path), message: issue.message,
    }));
    const first = issues[0];
    return reject('A2UI_C2S_ACTION_FORBIDDEN', `context does not match ${name}: ${first?.message ?? 'invalid'}`, first?.pointer, issues);
  }
  return { ok: true, data: parsed.data };
}

export interface CheckedClientError {
  readonly ok: true;
  readonly request: ClientErrorRequest;
  readonly surface: Surface;
  /** What the caller must run (from the registry: `epoch_reset` by default). */
  readonly recovery: RecoveryPath;
  readonly error: SurfacerError;
}

/**
 * A client `error` event. Only a report about the current epoch of a live surface triggers
 * recovery; a report from an old rendering is stale (the client is re-initialised anyway), so
 * a replayed report cannot reset a surface over and over.
 */
export function checkClientError(request: ClientErrorRequest, ir: ConversationIr): CheckedClientError | Rejection {
  const current = currentSurface(ir, { surfaceId: request.surfaceId, epoch: request.epoch });
  if (!current.ok) return current;
  const detail = `client reported ${JSON.stringify(request.clientCode)}`
    + (request.path === undefined ? '' : ` at ${JSON.stringify(request.path)}`)
    + (request.message === undefined ? '' : `: ${request.message}`);
  return {
    ok: true, request, surface: current.surface,
    recovery: errorSpec('A2UI_C2S_CLIENT_ERROR').recovery,
    error: makeError('A2UI_C2S_CLIENT_ERROR', detail),
  };
}
