import { errorSpec, isErrorCode, makeError, type SurfacerError } from '../../errors/index.ts';
import type { ConversationIr, Surface } from '../../ui-ir/index.ts';
import { countDataEntries } from './data-messages.ts';
import { byteLength, checkSurfaceGuardrails, resolveLimits } from './guardrails.ts';
import { encodeA2uiSurfaceId } from './ids.ts';
import {
  compileParts, deleteMessage, fallbackMessages, initMessages, internalError, updateMessages, type SurfaceParts,
} from './surface.ts';
import type {
  A2uiBatchKind, A2uiCompileOptions, A2uiCompileResult, A2uiLimits, A2uiMessage, A2uiStyles, A2uiSurfaceBatch,
  RecoveryDecision, Violation,
} from './types.ts';
import { validateA2uiMessages } from './validate.ts';

/**
 * IR → per-surface A2UI batches. Every batch is validated (semantic validator + guardrails)
 * before it is returned; a surface that fails is never half-emitted: its batch becomes
 * deleteSurface + a plain-text fallback (surface_fail), or nothing plus an epoch reset
 * request (epoch_reset); soft_fail parts are dropped. In strict mode any finding fails the
 * whole compilation instead.
 */
interface Ctx {
  options: A2uiCompileOptions;
  limits: A2uiLimits;
  allowedActions: ReadonlySet<string> | undefined;
  styles: A2uiStyles | undefined;
  styleWarnings: SurfacerError[];
}

function context(options: A2uiCompileOptions): Ctx {
  const styleWarnings: SurfacerError[] = [];
  let styles: A2uiStyles | undefined;
  if (options.styles !== undefined) {
    const s: A2uiStyles = {};
    if (typeof options.styles.font === 'string') s.font = options.styles.font;
    if (options.styles.primaryColor !== undefined) {
      if (/^#[0-9a-fA-F]{6}$/.test(options.styles.primaryColor)) s.primaryColor = options.styles.primaryColor;
      else styleWarnings.push(makeError('A2UI_S2C_STYLES_INVALID', 'primaryColor must be #RRGGBB; default colour used'));
    }
    styles = s;
  }
  return {
    options, limits: resolveLimits(options.limits), styles, styleWarnings,
    allowedActions: options.allowedActions ? new Set(options.allowedActions) : undefined,
  };
}

const RANK: Record<RecoveryDecision, number> = { none: 0, soft_fail: 1, surface_fail: 2, epoch_reset: 3 };

function policyOf(error: SurfacerError): RecoveryDecision {
  if (!isErrorCode(error.code)) return 'surface_fail';
  const recovery = errorSpec(error.code).recovery;
  return recovery === 'soft_fail' || recovery === 'surface_fail' || recovery === 'epoch_reset' ? recovery : 'surface_fail';
}

function isFinding(e: SurfacerError): boolean {
  return e.severity === 'error' || e.severity === 'fatal';
}

interface Attempt {
  surface: Surface;
  kind: A2uiBatchKind;
  messages: A2uiMessage[];
  parts: SurfaceParts;
  incremental: boolean;
  priorTypes?: ReadonlyMap<string, string> | undefined;
  /** The update holds only part of the component set: the guardrails check the full tree depth. */
  partial: boolean;
  /** An older A2UI surface id this batch replaces (epoch change): every recovery deletes it too. */
  retire?: string | undefined;
}

/** Removes soft_fail findings the validator can point at (orphan components); true if anything changed. */
function dropOrphans(messages: A2uiMessage[], violations: readonly Violation[]): boolean {
  const orphans = new Map<number, Set<string>>();
  for (const v of violations) {
    const id = v.code === 'A2UI_S2C_UNREACHABLE_COMPONENT' ? v.componentId : undefined;
    if (id === undefined) continue;
    const set = orphans.get(v.messageIndex) ?? new Set<string>();
    set.add(id);
    orphans.set(v.messageIndex, set);
  }
  for (const [index, ids] of orphans) {
    const m = messages[index];
    if (m && 'surfaceUpdate' in m) {
      messages[index] = { surfaceUpdate: { ...m.surfaceUpdate, components: m.surfaceUpdate.components.filter((c) => !ids.has(c.id)) } };
    }
  }
  return orphans.size > 0;
}

function batchOf(attempt: { surface: Surface; kind: A2uiBatchKind; messages: A2uiMessage[] }, a2uiSurfaceId: string,
  lines: string[], bytes: number[], errors: SurfacerError[], warnings: SurfacerError[], recovery: RecoveryDecision): A2uiSurfaceBatch {
  let components = 0;
  for (const m of attempt.messages) if ('surfaceUpdate' in m) components += m.surfaceUpdate.components.length;
  return {
    surfaceId: attempt.surface.id, a2uiSurfaceId, epoch: attempt.surface.epoch, rev: attempt.surface.rev,
    kind: attempt.kind, messages: attempt.messages, lines, errors, warnings, recovery,
    stats: { messages: attempt.messages.length, bytes: bytes.reduce((a, b) => a + b, 0), components, dataEntries: countDataEntries(attempt.messages) },
  };
}

function serialise(messages: readonly A2uiMessage[]): { lines: string[]; bytes: number[] } {
  const lines = messages.map((m) => JSON.stringify(m));
  return { lines, bytes: lines.map(byteLength) };
}

/** deleteSurface of the replaced surface id, when there is one (it leads every recovery batch). */
function retireMessages(retire: string | undefined, a2uiSurfaceId: string): A2uiMessage[] {
  return retire === undefined || retire === a2uiSurfaceId ? [] : [deleteMessage(retire)];
}

export function fallbackBatch(surface: Surface, errors: SurfacerError[], warnings: SurfacerError[], retire?: string): A2uiSurfaceBatch {
  const a2uiSurfaceId = encodeA2uiSurfaceId(surface.id, surface.epoch);
  const messages = [...retireMessages(retire, a2uiSurfaceId), ...fallbackMessages(surface.id, a2uiSurfaceId)];
  const { lines, bytes } = serialise(messages);
  return batchOf({ surface, kind: 'fallback', messages }, a2uiSurfaceId, lines, bytes, errors, warnings, 'surface_fail');
}

/** Nothing of the surface fits or may be sent: only the deleteSurface of the replaced id, if any. */
function emptyBatch(batch: A2uiSurfaceBatch, retire: string | undefined): A2uiSurfaceBatch {
  const messages = retireMessages(retire, batch.a2uiSurfaceId);
  const { lines, bytes } = serialise(messages);
  const stats = { ...batch.stats, messages: messages.length, bytes: bytes.reduce((a, b) => a + b, 0), components: 0, dataEntries: 0 };
  return { ...batch, messages, lines, stats };
}

/** `retire`: the A2UI surface id this outcome replaces, kept for the response-level fallback. */
type Outcome = { batch: A2uiSurfaceBatch; strictErrors: SurfacerError[]; retire?: string | undefined };

/** The semantic validator over the whole outgoing batch. */
function validateBatch(messages: readonly A2uiMessage[], attempt: Attempt, ctx: Ctx): Violation[] {
  return validateA2uiMessages(messages, {
    incremental: attempt.incremental,
    priorTypes: attempt.priorTypes ? new Map([[attempt.parts.a2uiSurfaceId, attempt.priorTypes]]) : undefined,
    allowedComponents: ctx.options.allowedComponents,
    allowedActions: ctx.options.allowedActions,
    maxNestingDepth: ctx.limits.maxNestingDepth,
  });
}

/** Validates, applies guardrails, and chooses the recovery of one surface's batch. */
function finalise(attempt: Attempt, ctx: Ctx): Outcome {
  const { parts } = attempt;
  const messages = attempt.messages.slice();
  let violations = validateBatch(messages, attempt, ctx);
  const dropped: SurfacerError[] = [...parts.dropped];
  if (!ctx.options.strict && violations.some((v) => v.code === 'A2UI_S2C_UNREACHABLE_COMPONENT') && dropOrphans(messages, violations)) {
    dropped.push(...violations.filter((v) => v.code === 'A2UI_S2C_UNREACHABLE_COMPONENT'));
    violations = validateBatch(messages, attempt, ctx);
  }
  const clobber = attempt.kind === 'update' ? messages.filter((m) => 'dataModelUpdate' in m
    && (m.dataModelUpdate.path === undefined || m.dataModelUpdate.path === '/' || m.dataModelUpdate.path === '/draft')) : [];
  const { lines, bytes } = serialise(messages);
  const errors: SurfacerError[] = [
    ...violations.filter(isFinding),
    ...clobber.map(() => makeError('COMPILER_A2UI_DRAFT_CLOBBER', 'an update would replace the root or /draft')),
    ...checkSurfaceGuardrails({ lineBytes: bytes, components: parts.components, rootId: parts.rootId, checkDepth: attempt.partial, model: parts.model }, ctx.limits),
  ];
  const warnings = [...parts.warnings, ...ctx.styleWarnings, ...violations.filter((v) => !isFinding(v))];
  const a2uiSurfaceId = parts.a2uiSurfaceId;
  if (ctx.options.strict) {
    const strictErrors = [...errors, ...dropped, ...ctx.styleWarnings];
    return { batch: batchOf({ ...attempt, messages }, a2uiSurfaceId, lines, bytes, strictErrors, warnings, 'none'), strictErrors };
  }
  if (errors.length === 0) {
    const recovery: RecoveryDecision = dropped.length > 0 ? 'soft_fail' : 'none';
    return { batch: batchOf({ ...attempt, messages }, a2uiSurfaceId, lines, bytes, dropped, warnings, recovery), strictErrors: [] };
  }
  // Whatever soft_fail could not drop here escalates to surface_fail.
  let decision: RecoveryDecision = 'surface_fail';
  for (const e of errors) if (RANK[policyOf(e)] > RANK[decision]) decision = policyOf(e);
  const all = [...errors, ...dropped];
  if (decision === 'epoch_reset') {
    const empty = batchOf({ ...attempt, messages: [] }, a2uiSurfaceId, [], [], all, warnings, 'epoch_reset');
    return { batch: emptyBatch(empty, attempt.retire), strictErrors: [] };
  }
  return { batch: fallbackBatch(attempt.surface, all, warnings, attempt.retire), strictErrors: [] };
}

function partsOrFail(surface: Surface, ctx: Ctx): SurfaceParts | SurfacerError {
  try {
    return compileParts(surface, { allowedActions: ctx.allowedActions });
  } catch (error) {
    return internalError(error);
  }
}

function failed(surface: Surface, error: SurfacerError, ctx: Ctx, retire?: string): Outcome {
  return { batch: fallbackBatch(surface, [error], [], retire), strictErrors: ctx.options.strict ? [error] : [] };
}

/**
 * `before`: messages that lead the init (deleteSurface of what the client holds); `retire`: an
 * older A2UI surface id (epoch change) that must also go if the init itself fails.
 */
function initOutcome(surface: Surface, ctx: Ctx, before: A2uiMessage[] = [], retire?: string): Outcome {
  const parts = partsOrFail(surface, ctx);
  if (!('components' in parts)) return { ...failed(surface, parts, ctx, retire), retire };
  const messages = [...before, ...initMessages(parts, ctx.styles)];
  return { ...finalise({ surface, kind: 'init', messages, parts, incremental: false, partial: false, retire }, ctx), retire };
}

function deleteOutcome(surface: Surface, a2uiSurfaceId: string): Outcome {
  const messages = [deleteMessage(a2uiSurfaceId)];
  const { lines, bytes } = serialise(messages);
  return { batch: batchOf({ surface, kind: 'delete', messages }, a2uiSurfaceId, lines, bytes, [], [], 'none'), strictErrors: [] };
}

function updateOutcome(prev: Surface, next: Surface, ctx: Ctx): Outcome | undefined {
  const oldId = encodeA2uiSurfaceId(prev.id, prev.epoch);
  if (prev.epoch !== next.epoch) return initOutcome(next, ctx, [deleteMessage(oldId)], oldId);
  if ((ctx.options.reinit ?? []).includes(next.id)) return initOutcome(next, ctx, [deleteMessage(oldId)]);
  // IR objects are never mutated: the very same surface has nothing to send. (Building it twice
  // to find that out would also re-send the fallback of a surface that cannot be built, on every
  // update of any other surface; the client already shows that fallback.)
  if (prev === next) return undefined;
  const known = new Set(prev.tombstones);
  if (next.tombstones.some((t) => !known.has(t))) return initOutcome(next, ctx, [deleteMessage(oldId)]);
  const before = partsOrFail(prev, ctx);
  const after = partsOrFail(next, ctx);
  if (!('components' in after)) return failed(next, after, ctx);
  if (!('components' in before)) return initOutcome(next, ctx, [deleteMessage(oldId)]);
  const viewChanged = JSON.stringify(prev.view) !== JSON.stringify(next.view);
  let plan;
  try {
    plan = updateMessages(before, after, viewChanged);
  } catch (error) {
    return failed(next, internalError(error), ctx);
  }
  if (plan.kind === 'rebuild') return initOutcome(next, ctx, [deleteMessage(oldId)]);
  if (plan.messages.length === 0) return undefined;
  const priorTypes = ctx.options.priorTypes?.get(after.a2uiSurfaceId)
    ?? new Map(before.components.map((c) => [c.id, Object.keys(c.component)[0]!]));
  return finalise({
    surface: next, kind: 'update', messages: plan.messages, parts: after, incremental: true, priorTypes, partial: !plan.fullComponents,
  }, ctx);
}

/** Response-level guardrails: a surface that no longer fits becomes its (small) fallback. */
function fits(b: A2uiSurfaceBatch, messages: number, bytes: number, limits: A2uiLimits): boolean {
  return messages + b.stats.messages <= limits.maxMessagesPerResponse && bytes + b.stats.bytes <= limits.maxBytesPerResponse;
}

function fitResponse(outcomes: Outcome[], surfaces: Surface[], ctx: Ctx): Outcome[] {
  let messages = 0;
  let bytes = 0;
  return outcomes.map((o, i) => {
    let out = o;
    if (!fits(o.batch, messages, bytes, ctx.limits)) {
      const tooMany = messages + o.batch.stats.messages > ctx.limits.maxMessagesPerResponse;
      const error = makeError(tooMany ? 'A2UI_S2C_TOO_MANY_MESSAGES' : 'A2UI_S2C_RESPONSE_TOO_LARGE',
        `surface ${o.batch.a2uiSurfaceId} does not fit in the response (${messages + o.batch.stats.messages} messages, ${bytes + o.batch.stats.bytes} bytes)`);
      const fallback = fallbackBatch(surfaces[i]!, [error, ...o.batch.errors], o.batch.warnings, o.retire);
      out = ctx.options.strict
        ? { batch: o.batch, strictErrors: [error] }
        : { batch: fits(fallback, messages, bytes, ctx.limits) ? fallback : emptyBatch(fallback, o.retire), strictErrors: [] };
    }
    messages += out.batch.stats.messages;
    bytes += out.batch.stats.bytes;
    return out;
  });
}

function result(outcomes: Outcome[], surfaces: Surface[], ctx: Ctx): A2uiCompileResult {
  const fitted = fitResponse(outcomes, surfaces, ctx);
  const errors = fitted.flatMap((o) => o.strictErrors);
  const epochResets = fitted.filter((o) => o.batch.recovery === 'epoch_reset').map((o) => o.batch.surfaceId);
  if (ctx.options.strict && errors.length > 0) return { ok: false, errors, batches: [], epochResets };
  return { ok: true, batches: fitted.map((o) => o.batch), epochResets };
}

/** Full init of one surface (a deleted surface yields its deleteSurface). */
export function compileSurfaceToA2ui(surface: Surface, options: A2uiCompileOptions = {}): A2uiCompileResult {
  const ctx = context(options);
  const outcome = surface.lifecycle === 'deleted'
    ? deleteOutcome(surface, encodeA2uiSurfaceId(surface.id, surface.epoch))
    : initOutcome(surface, ctx);
  return result([outcome], [surface], ctx);
}

/** Full init of every live surface, in IR order (deleted surfaces have nothing to show). */
export function compileConversationToA2ui(ir: ConversationIr, options: A2uiCompileOptions = {}): A2uiCompileResult {
  const ctx = context(options);
  const live = ir.surfaces.filter((s) => s.lifecycle !== 'deleted');
  return result(live.map((s) => initOutcome(s, ctx)), live, ctx);
}

/**
 * What a client holding the compilation of `prevIr` needs to reach `nextIr`. Unchanged
 * surfaces produce no batch. `prevIr` undefined = a fresh client (same as a full init).
 */
export function compileA2uiUpdate(prevIr: ConversationIr | undefined, nextIr: ConversationIr, options: A2uiCompileOptions = {}): A2uiCompileResult {
  const ctx = context(options);
  const outcomes: Outcome[] = [];
  const surfaces: Surface[] = [];
  const push = (surface: Surface, outcome: Outcome | undefined): void => {
    if (outcome === undefined) return;
    outcomes.push(outcome);
    surfaces.push(surface);
  };
  const nextIds = new Set(nextIr.surfaces.map((s) => s.id));
  for (const prev of prevIr?.surfaces ?? []) {
    // A surface missing from nextIr altogether (the IR normally keeps deleted ones).
    if (!nextIds.has(prev.id) && prev.lifecycle !== 'deleted') push(prev, deleteOutcome(prev, encodeA2uiSurfaceId(prev.id, prev.epoch)));
  }
  for (const next of nextIr.surfaces) {
    const prev = prevIr?.surfaces.find((s) => s.id === next.id);
    const prevLive = prev !== undefined && prev.lifecycle !== 'deleted';
    if (next.lifecycle === 'deleted') {
      if (prevLive) push(next, deleteOutcome(next, encodeA2uiSurfaceId(prev.id, prev.epoch)));
      continue;
    }
    push(next, prevLive ? updateOutcome(prev, next, ctx) : initOutcome(next, ctx));
  }
  return result(outcomes, surfaces, ctx);
}

/** Batches → JSONL (one message per line), e.g. for `surfacer compile --target a2ui`. */
export function a2uiBatchesToJsonl(batches: readonly A2uiSurfaceBatch[]): string {
  let out = '';
  for (const b of batches) for (const line of b.lines) out += `${line}\n`;
  return out;
}
