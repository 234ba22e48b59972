import { makeError, type SurfacerError } from '../errors/index.ts';
import { findListBlock, pathTokens, tableBlocks, touchesList } from './collections.ts';
import { withTableState, type TableState } from './tables.ts';
import { walkBlocks } from './ids.ts';
import { formatPointer, getAt, isPlainObject, jsonEqual, removeAt, setAt, type Namespace } from './pointer.ts';
import {
  IR_VERSION, MAX_TOASTS, ToastLevel, type ConversationIr, type DataMap, type DataValue, type Surface,
  type SurfaceView, type TranscriptEntry,
} from './schema.ts';
import type { Draw } from './source.ts';

/**
 * Pure IR transitions: each returns a new IR (structural sharing) and never mutates its input.
 * Preconditions that depend on the current state fail as values.
 */
export type TransitionResult = { ok: true; ir: ConversationIr } | { ok: false; error: SurfacerError };

export function emptyConversation(conversationId: string): ConversationIr {
  return { version: IR_VERSION, conversationId, seq: 0, transcript: [], surfaces: [], toasts: [] };
}

export function findSurface(ir: ConversationIr, surfaceId: string): Surface | undefined {
  return ir.surfaces.find((s) => s.id === surfaceId);
}

/** A surface that can still receive updates and actions. */
export function findLiveSurface(ir: ConversationIr, surfaceId: string): Surface | undefined {
  const surface = findSurface(ir, surfaceId);
  return surface && surface.lifecycle !== 'deleted' ? surface : undefined;
}

function withSurface(ir: ConversationIr, surface: Surface): ConversationIr {
  const exists = ir.surfaces.some((s) => s.id === surface.id);
  const surfaces = exists ? ir.surfaces.map((s) => (s.id === surface.id ? surface : s)) : [...ir.surfaces, surface];
  return { ...ir, surfaces };
}

function notFound(surfaceId: string): TransitionResult {
  return { ok: false, error: makeError('IR_SURFACE_NOT_FOUND', `no live surface "${surfaceId}"`) };
}

export function viewHasInputs(view: SurfaceView): boolean {
  let found = false;
  walkBlocks(view.blocks, (b) => { if (b.kind === 'field' || b.kind === 'upload') found = true; });
  return found;
}

function fieldNames(view: SurfaceView): string {
  const names: string[] = [];
  walkBlocks(view.blocks, (b) => { if (b.kind === 'field' || b.kind === 'upload') names.push(b.name); });
  return names.sort().join('\u0000');
}

/** The same form: one template asking for the same fields, so a draft of one is a draft of the other. */
export function sameForm(a: SurfaceView, b: SurfaceView): boolean {
  return a.template === b.template && fieldNames(a) === fieldNames(b);
}

/**
 * The surface a directive's new view goes on. What a person types stays in their client until
 * they submit it, so a panel with inputs is never given another form or view by a directive: the
 * new view goes on the live panel that already shows that form, else on a new panel beside it
 * (`main-2`, `main-3`, …). The panel that was asked for is used when it is free, shows no inputs,
 * or shows this same form (whose directive keeps the draft). Only the person ends a draft: by
 * submitting, cancelling, or closing the panel (docs/directives.md, "Drafts").
 */
export function panelFor(ir: ConversationIr, requested: string, view: SurfaceView): string {
  const existing = findLiveSurface(ir, requested);
  if (existing === undefined || !viewHasInputs(existing.view) || sameForm(existing.view, view)) return requested;
  if (viewHasInputs(view)) {
    const showing = ir.surfaces.find((s) => s.lifecycle !== 'deleted' && sameForm(s.view, view));
    if (showing !== undefined) return showing.id;
  }
  for (let n = 2; ; n += 1) {
    const suffix = `-${n}`;
    const id = `${requested.slice(0, SURFACE_ID_MAX - suffix.length)}${suffix}`;
    const taken = findLiveSurface(ir, id);
    if (taken === undefined || !viewHasInputs(taken.view)) return id;
  }
}

const SURFACE_ID_MAX = 40;

/** Pointers of leaves present in `before` but missing in `after` (for tombstones). */
function removedLeaves(namespace: Namespace, before: DataMap, after: DataMap, prefix: string[] = []): string[] {
  const out: string[] = [];
  for (const [key, value] of Object.entries(before)) {
    const tokens = [...prefix, key];
    const next = getAt(after, tokens);
    if (next === undefined) out.push(formatPointer([namespace, ...tokens]));
    else if (isMap(value) && isMap(next)) out.push(...removedLeaves(namespace, value, after, tokens));
  }
  return out;
}

const isMap = isPlainObject as (v: unknown) => v is DataMap;

function uniq(list: string[]): string[] {
  return [...new Set(list)];
}

export interface OpenSurfaceParams {
  id: string;
  view: SurfaceView;
  draft?: DataMap;
  ui?: DataMap;
}

/**
 * Opens a surface or replaces the view of a live one. Replacing keeps epoch and nonce and bumps
 * rev (old tabs then get 409); committed values survive only when the template is the same. The
 * same view with the same draft (and data) is no change at all: the IR comes back as it was.
 * Re-opening a deleted surface starts a new epoch so nothing from before can act on it.
 */
export function openSurface(ir: ConversationIr, params: OpenSurfaceParams, draw: Draw): ConversationIr {
  const existing = findSurface(ir, params.id);
  const lifecycle = viewHasInputs(params.view) ? 'editing' : 'active';
  const draft = params.draft ?? {};
  const ui = params.ui ?? {};
  if (existing && existing.lifecycle !== 'deleted') {
    // The same panel asked for again, as it is: nothing changes, and nothing is sent (a new rev
    // would re-send it and reset what the person typed into it to the draft on record).
    if (jsonEqual(existing.view, params.view) && jsonEqual(existing.data.draft, draft) && (params.ui === undefined || jsonEqual(existing.data.ui, ui))) return ir;
    const committed = existing.view.template === params.view.template ? existing.data.committed : {};
    const tombstones = uniq([
      ...existing.tombstones,
      ...removedLeaves('draft', existing.data.draft, draft),
      ...removedLeaves('committed', existing.data.committed, committed),
      ...removedLeaves('ui', existing.data.ui, ui),
    ]);
    return withSurface(ir, {
      ...existing, view: params.view, lifecycle, rev: existing.rev + 1,
      data: { draft, committed, ui }, tombstones, updatedAt: draw.now,
    });
  }
  return withSurface(ir, {
    id: params.id,
    epoch: existing ? existing.epoch + 1 : 0,
    rev: 0,
    nonce: draw.nonce,
    lifecycle,
    view: params.view,
    data: { draft, committed: {}, ui },
    tombstones: [],
    createdAt: existing?.createdAt ?? draw.now,
    updatedAt: draw.now,
  });
}

export type DataOp =
  | { op: 'add' | 'replace'; namespace: 'draft' | 'ui'; keys: string[]; value: DataValue }
  | { op: 'remove'; namespace: 'draft' | 'ui'; keys: string[] };

/** The keys of the first array strictly above the end of `keys`, if the path passes through one. */
function arrayAbove(root: DataMap, keys: readonly string[]): string[] | undefined {
  for (let depth = 1; depth < keys.length; depth += 1) {
    const node = getAt(root, keys.slice(0, depth));
    if (Array.isArray(node)) return keys.slice(0, depth);
    if (!isPlainObject(node)) return undefined;
  }
  return undefined;
}

/**
 * Applies validated data ops to `/draft` or `/ui`. `/committed` is not reachable from here on
 * purpose: only a submit writes it. A draft change bumps rev; a ui change does not, unless it
 * changes a list's data (per-item buttons rendered before must then be stale).
 */
export function patchSurfaceData(
  ir: ConversationIr, surfaceId: string, ops: readonly DataOp[], draw: Pick<Draw, 'now'>,
): TransitionResult {
  const surface = findLiveSurface(ir, surfaceId);
  if (!surface) return notFound(surfaceId);
  let data = surface.data;
  const tombstones = [...surface.tombstones];
  let draftChanged = false;
  for (const op of ops) {
    if (op.keys.length === 0) {
      return { ok: false, error: makeError('IR_POINTER_INVALID', `cannot ${op.op} the whole /${op.namespace}`) };
    }
    const current = data[op.namespace];
    const inside = arrayAbove(current, op.keys);
    if (inside !== undefined) {
      // Writing into an array by position would turn it into a map of what was written (items
      // lost); list items change through the list directives, by key.
      return {
        ok: false,
        error: makeError('IR_POINTER_INVALID', `cannot ${op.op} inside the array at ${formatPointer([op.namespace, ...inside])}: replace the whole array, or change items by key (list directives)`),
      };
    }
    let next: DataMap;
    if (op.op === 'remove') {
      next = removeAt(current, op.keys) as DataMap;
      if (next !== current) tombstones.push(formatPointer([op.namespace, ...op.keys]));
    } else {
      next = setAt(current, op.keys, op.value) as DataMap;
    }
    if (next !== current && (op.namespace === 'draft' || touchesList(surface.view, [op.namespace, ...op.keys]))) draftChanged = true;
    data = { ...data, [op.namespace]: next };
  }
  return {
    ok: true,
    ir: withSurface(ir, {
      ...surface, data, tombstones: uniq(tombstones),
      rev: draftChanged ? surface.rev + 1 : surface.rev, updatedAt: draw.now,
    }),
  };
}

/**
 * A validated submit: the user's draft as sent, and the committed values the domain
 * normalised from it. Committed is replaced whole; keys that disappear become tombstones.
 */
export function commitSurface(
  ir: ConversationIr, surfaceId: string, values: { draft: DataMap; committed: DataMap }, draw: Pick<Draw, 'now'>,
): TransitionResult {
  const surface = findLiveSurface(ir, surfaceId);
  if (!surface) return notFound(surfaceId);
  const draft = { ...surface.data.draft, ...values.draft };
  const tombstones = uniq([...surface.tombstones, ...removedLeaves('committed', surface.data.committed, values.committed)]);
  return {
    ok: true,
    ir: withSurface(ir, {
      ...surface, rev: surface.rev + 1, tombstones, updatedAt: draw.now,
      data: { ...surface.data, draft, committed: values.committed },
    }),
  };
}

/**
 * Replaces the items of the list named `listName` on a live surface (whatever namespace its path
 * is in) with `items`, and bumps rev: every per-item button rendered before is stale, so a click
 * on an item that is gone gets 409, never a forged-key 400. The caller validates the items
 * (the IR schema checks the data; ui-ir/collections.ts decides which items count).
 */
export function writeListItems(
  ir: ConversationIr, surfaceId: string, listName: string, items: readonly DataValue[], draw: Pick<Draw, 'now'>,
): TransitionResult {
  const surface = findLiveSurface(ir, surfaceId);
  if (!surface) return notFound(surfaceId);
  const block = findListBlock(surface.view, listName);
  if (!block) return { ok: false, error: makeError('IR_POINTER_INVALID', `surface "${surfaceId}" has no list "${listName}"`) };
  const [namespace, ...keys] = pathTokens(block.path) as ['committed' | 'ui', ...string[]];
  const data = { ...surface.data, [namespace]: setAt(surface.data[namespace], keys, [...items]) as DataMap };
  return { ok: true, ir: withSurface(ir, { ...surface, data, rev: surface.rev + 1, updatedAt: draw.now }) };
}

/**
 * Sets the sort and page of the table named `name` on a live surface, with a new rev: the sort
 * and page buttons (and row buttons) rendered before are stale, like any other change of what a
 * collection shows.
 */
export function writeTableState(
  ir: ConversationIr, surfaceId: string, name: string, state: TableState, draw: Pick<Draw, 'now'>,
): TransitionResult {
  const surface = findLiveSurface(ir, surfaceId);
  if (!surface) return notFound(surfaceId);
  if (!tableBlocks(surface.view).some((b) => b.name === name)) {
    return { ok: false, error: makeError('IR_POINTER_INVALID', `surface "${surfaceId}" has no table "${name}"`) };
  }
  const data = { ...surface.data, ui: withTableState(surface.data.ui, name, state) };
  return { ok: true, ir: withSurface(ir, { ...surface, data, rev: surface.rev + 1, updatedAt: draw.now }) };
}

export function closeSurface(ir: ConversationIr, surfaceId: string, draw: Pick<Draw, 'now'>): TransitionResult {
  const surface = findLiveSurface(ir, surfaceId);
  if (!surface) return notFound(surfaceId);
  return { ok: true, ir: withSurface(ir, { ...surface, lifecycle: 'deleted', updatedAt: draw.now }) };
}

/** Marks a surface's client state as untrustworthy (e.g. a client reported an error). */
export function expireSurface(ir: ConversationIr, surfaceId: string, draw: Pick<Draw, 'now'>): TransitionResult {
  const surface = findLiveSurface(ir, surfaceId);
  if (!surface) return notFound(surfaceId);
  return { ok: true, ir: withSurface(ir, { ...surface, lifecycle: 'expired', updatedAt: draw.now }) };
}

/** Recovery: a new epoch and nonce; everything rendered before is stale, clients re-initialise. */
export function resetSurfaceEpoch(ir: ConversationIr, surfaceId: string, draw: Draw): TransitionResult {
  const surface = findLiveSurface(ir, surfaceId);
  if (!surface) return notFound(surfaceId);
  return {
    ok: true,
    ir: withSurface(ir, {
      ...surface, epoch: surface.epoch + 1, nonce: draw.nonce, tombstones: [],
      lifecycle: viewHasInputs(surface.view) ? 'editing' : 'active', updatedAt: draw.now,
    }),
  };
}

export function appendTranscript(
  ir: ConversationIr, entry: Pick<TranscriptEntry, 'role' | 'text'>, draw: Pick<Draw, 'now'>,
): ConversationIr {
  const seq = ir.seq + 1;
  return { ...ir, seq, transcript: [...ir.transcript, { id: `t${seq}`, role: entry.role, text: entry.text, at: draw.now }] };
}

/**
 * Adds a toast to the conversation (bounded, oldest dropped) and mirrors it into the target
 * surface's `/ui/toast` so A2UI clients, which have no toast channel, can show it in place.
 */
export function addToast(
  ir: ConversationIr, toast: { level: ToastLevel; text: string; surfaceId?: string }, draw: Pick<Draw, 'now'>,
): ConversationIr {
  const seq = ir.seq + 1;
  const id = `n${seq}`;
  const target = toast.surfaceId !== undefined ? findLiveSurface(ir, toast.surfaceId) : undefined;
  const entry = { id, level: toast.level, text: toast.text, at: draw.now, ...(target ? { surfaceId: target.id } : {}) };
  let next: ConversationIr = { ...ir, seq, toasts: [...ir.toasts, entry].slice(-MAX_TOASTS) };
  if (target) {
    const ui = setAt(target.data.ui, ['toast'], { id, level: toast.level, text: toast.text }) as DataMap;
    next = withSurface(next, { ...target, data: { ...target.data, ui }, updatedAt: draw.now });
  }
  return next;
}

/**
 * The toast a surface shows in place (`/ui/toast`, written by addToast), if any: every compiler
 * shows it by this one rule. `/ui` is plain data, so an unknown level shows as info and an
 * empty or non-text message as nothing.
 */
export function surfaceToast(surface: Pick<Surface, 'data'>): { level: ToastLevel; text: string } | undefined {
  const value = surface.data.ui['toast'];
  if (!isPlainObject(value) || typeof value['text'] !== 'string' || value['text'] === '') return undefined;
  const level = ToastLevel.safeParse(value['level']);
  return { level: level.success ? level.data : 'info', text: value['text'] };
}
