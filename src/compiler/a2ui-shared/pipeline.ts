import { makeError, type SurfacerError } from '../../errors/index.ts';
import { checkComponentBlocks, type ComponentCompileOptions } from '../components/check.ts';
import { withFallbacks } from '../components/fallback.ts';
import type { ConversationIr, Surface } from '../../ui-ir/index.ts';
import { checkSurfaceGuardrails, LineSizes, resolveLimits } from './guardrails.ts';
import { isFinding, RECOVERY_RANK, recoveryOf } from './recovery.ts';
import { encodeA2uiSurfaceId } from './surface-id.ts';
import { flattenFollowOns } from './follow-ons.ts';
import type {
  A2uiBatchKind, A2uiLimits, CompileOptionsBase, CompileResult, RecoveryDecision, SurfaceBatch, ValidateOptionsBase, Violation,
} from './types.ts';

/**
 * IR → per-surface A2UI batches, for any wire version (`A2uiTarget`). Every batch is validated
 * (semantic validator + guardrails) before it is returned; a surface that fails is never
 * half-emitted: its batch becomes deleteSurface + a plain-text fallback (surface_fail), or
 * nothing plus an epoch reset request (epoch_reset); soft_fail parts are dropped. In strict
 * mode any finding fails the whole compilation instead.
 *
 * What differs between versions (messages, components, data encoding, the validator) is the
 * target's; the recovery policy, the guardrails and the order of decisions are the same.
 */

/** One surface compiled to its parts, as far as the pipeline needs to know them. */
export interface PartsBase {
  a2uiSurfaceId: string;
  warnings: SurfacerError[];
  /** soft_fail drops already applied (e.g. a button whose action is not allowlisted). */
  dropped: SurfacerError[];
}

export type UpdatePlan<M> =
  | { kind: 'update'; messages: M[]; fullComponents: boolean }
  | { kind: 'rebuild'; reason: string };

export interface A2uiTarget<M, P extends PartsBase, O extends CompileOptionsBase> {
  /** One surface's components and data; may throw (reported as COMPILER_A2UI_INTERNAL). */
  /** `components`: the app's, when the client holds the app catalogue (its component blocks are checked). */
  parts(surface: Surface, allowedActions: ReadonlySet<string> | undefined, components?: ComponentCompileOptions): P;
  /** Whether the version emits app components as themselves (else always their fallback). */
  appComponents: boolean;
  /** A full init of the surface (the pipeline puts any deleteSurface in front). */
  init(parts: P, options: O): M[];
  /** The smallest correct update from `prev` to `next` (same A2UI surface id), or a rebuild. */
  update(prev: P, next: P, viewChanged: boolean, options: O): UpdatePlan<M>;
  deleteSurface(a2uiSurfaceId: string, options: O): M;
  /** The plain-text stand-in for a surface that failed; it must validate on its own. */
  fallback(irSurfaceId: string, a2uiSurfaceId: string, options: O): M[];
  validate(messages: readonly M[], options: ValidateOptionsBase): Violation[];
  /** Removes the orphans (A2UI_S2C_UNREACHABLE_COMPONENT) the validator found; true if any went. */
  dropOrphans(messages: M[], violations: readonly Violation[]): boolean;
  /** Messages of an update that would replace the data root or /draft (what the user typed). */
  clobbers(messages: readonly M[]): number;
  /** The surface's whole component set: size and, on demand, depth (for the guardrails). */
  size(parts: P): { components: number; depth: () => number; model: unknown };
  /** Component id → type of what a client holds after `parts` (priorTypes of the next update). */
  types(parts: P): Map<string, string>;
  stats(messages: readonly M[]): { components: number; dataEntries: number };
  /** Warnings about the options themselves (e.g. v0.8 styles); strict mode fails on them. */
  optionWarnings(options: O): SurfacerError[];
  /** v0.8 cannot remove a data key, so new tombstones force a rebuild; v0.9 deletes them. */
  rebuildOnTombstones: boolean;
}

export interface A2uiCompiler<M, O extends CompileOptionsBase> {
  /** Full init of one surface (a deleted surface yields its deleteSurface). */
  compileSurface(surface: Surface, options?: O): CompileResult<M>;
  /** Full init of every live surface, in IR order (deleted surfaces have nothing to show). */
  compileConversation(ir: ConversationIr, options?: O): CompileResult<M>;
  /**
   * What a client holding the compilation of `prevIr` needs to reach `nextIr`. Unchanged
   * surfaces produce no batch. `prevIr` undefined = a fresh client (same as a full init).
   */
  compileUpdate(prevIr: ConversationIr | undefined, nextIr: ConversationIr, options?: O): CompileResult<M>;
}

interface Ctx<O> {
  options: O;
  limits: A2uiLimits;
  allowedActions: ReadonlySet<string> | undefined;
  optionWarnings: SurfacerError[];
}

interface Attempt<M, P> {
  surface: Surface;
  kind: A2uiBatchKind;
  messages: M[];
  parts: P;
  incremental: boolean;
  priorTypes?: ReadonlyMap<string, string> | undefined;
  /** The update holds only part of the component set: the guardrails check the full tree depth. */
  partial: boolean;
  /** An older A2UI surface id this batch replaces (epoch change): every recovery deletes it too. */
  retire?: string | undefined;
}

/** `retire`: the A2UI surface id this outcome replaces, kept for the response-level fallback. */
type Outcome<M> = { batch: SurfaceBatch<M>; strictErrors: SurfacerError[]; retire?: string | undefined };

export function createA2uiCompiler<M, P extends PartsBase, O extends CompileOptionsBase>(target: A2uiTarget<M, P, O>): A2uiCompiler<M, O> {
  function context(options: O): Ctx<O> {
    return {
      options, limits: resolveLimits(options.limits), optionWarnings: target.optionWarnings(options),
      allowedActions: options.allowedActions ? new Set(options.allowedActions) : undefined,
    };
  }

  function batchOf(attempt: { surface: Surface; kind: A2uiBatchKind; messages: M[] }, a2uiSurfaceId: string,
    sizes: LineSizes, errors: SurfacerError[], warnings: SurfacerError[], recovery: RecoveryDecision): SurfaceBatch<M> {
    const { components, dataEntries } = target.stats(attempt.messages);
    return {
      surfaceId: attempt.surface.id, a2uiSurfaceId, epoch: attempt.surface.epoch, rev: attempt.surface.rev,
      kind: attempt.kind, messages: attempt.messages, lines: sizes.lines as string[], errors, warnings, recovery,
      // `bytes` is counted when first read (LineSizes): the hot path needs only its bounds.
      stats: { messages: attempt.messages.length, get bytes() { return sizes.totalBytes(); }, components, dataEntries },
    };
  }

  function serialise(messages: readonly M[]): LineSizes {
    return new LineSizes(messages.map((m) => JSON.stringify(m)));
  }

  /** deleteSurface of the replaced surface id, when there is one (it leads every recovery batch). */
  function retireMessages(retire: string | undefined, a2uiSurfaceId: string, options: O): M[] {
    return retire === undefined || retire === a2uiSurfaceId ? [] : [target.deleteSurface(retire, options)];
  }

  function fallbackBatch(surface: Surface, options: O, errors: SurfacerError[], warnings: SurfacerError[], retire?: string): SurfaceBatch<M> {
    const a2uiSurfaceId = encodeA2uiSurfaceId(surface.id, surface.epoch);
    const messages = [...retireMessages(retire, a2uiSurfaceId, options), ...target.fallback(surface.id, a2uiSurfaceId, options)];
    return batchOf({ surface, kind: 'fallback', messages }, a2uiSurfaceId, serialise(messages), errors, warnings, 'surface_fail');
  }

  /** Nothing of the surface fits or may be sent: only the deleteSurface of the replaced id, if any. */
  function emptyBatch(batch: SurfaceBatch<M>, retire: string | undefined, options: O): SurfaceBatch<M> {
    const messages = retireMessages(retire, batch.a2uiSurfaceId, options);
    const sizes = serialise(messages);
    const stats = { ...batch.stats, messages: messages.length, bytes: sizes.totalBytes(), components: 0, dataEntries: 0 };
    return { ...batch, messages, lines: sizes.lines as string[], stats };
  }

  /** The semantic validator over the whole outgoing batch. */
  function validateBatch(messages: readonly M[], attempt: Attempt<M, P>, ctx: Ctx<O>): Violation[] {
    // Recovery acts on every finding (orphans are dropped by id): follow-ons are findings here too.
    return flattenFollowOns(target.validate(messages, {
      incremental: attempt.incremental,
      priorTypes: attempt.priorTypes ? new Map([[attempt.parts.a2uiSurfaceId, attempt.priorTypes]]) : undefined,
      allowedComponents: ctx.options.allowedComponents,
      allowedActions: ctx.options.allowedActions,
      maxNestingDepth: ctx.limits.maxNestingDepth,
      ...(ctx.options.components === undefined ? {} : { components: ctx.options.components }),
    }));
  }

  /** Validates, applies guardrails, and chooses the recovery of one surface's batch. */
  function finalise(attempt: Attempt<M, P>, ctx: Ctx<O>): Outcome<M> {
    const { parts } = attempt;
    const messages = attempt.messages.slice();
    let violations = validateBatch(messages, attempt, ctx);
    const dropped: SurfacerError[] = [...parts.dropped];
    if (!ctx.options.strict && violations.some((v) => v.code === 'A2UI_S2C_UNREACHABLE_COMPONENT') && target.dropOrphans(messages, violations)) {
      dropped.push(...violations.filter((v) => v.code === 'A2UI_S2C_UNREACHABLE_COMPONENT'));
      violations = validateBatch(messages, attempt, ctx);
    }
    const clobbers = attempt.kind === 'update' ? target.clobbers(messages) : 0;
    const sizes = serialise(messages);
    const size = target.size(parts);
    const errors: SurfacerError[] = [
      ...violations.filter(isFinding),
      ...Array.from({ length: clobbers }, () => makeError('COMPILER_A2UI_DRAFT_CLOBBER', 'an update would replace the root or /draft')),
      ...checkSurfaceGuardrails({
        lineSizes: sizes, componentCount: size.components, depth: attempt.partial ? size.depth : undefined, model: size.model,
      }, ctx.limits),
    ];
    const warnings = [...parts.warnings, ...ctx.optionWarnings, ...violations.filter((v) => !isFinding(v))];
    const a2uiSurfaceId = parts.a2uiSurfaceId;
    if (ctx.options.strict) {
      const strictErrors = [...errors, ...dropped, ...ctx.optionWarnings];
      return { batch: batchOf({ ...attempt, messages }, a2uiSurfaceId, sizes, strictErrors, warnings, 'none'), strictErrors };
    }
    if (errors.length === 0) {
      const recovery: RecoveryDecision = dropped.length > 0 ? 'soft_fail' : 'none';
      return { batch: batchOf({ ...attempt, messages }, a2uiSurfaceId, sizes, dropped, warnings, recovery), strictErrors: [] };
    }
    // Whatever soft_fail could not drop here escalates to surface_fail.
    let decision: RecoveryDecision = 'surface_fail';
    for (const e of errors) if (RECOVERY_RANK[recoveryOf(e)] > RECOVERY_RANK[decision]) decision = recoveryOf(e);
    const all = [...errors, ...dropped];
    if (decision === 'epoch_reset') {
      const empty = batchOf({ ...attempt, messages: [] }, a2uiSurfaceId, new LineSizes([]), all, warnings, 'epoch_reset');
      return { batch: emptyBatch(empty, attempt.retire, ctx.options), strictErrors: [] };
    }
    return { batch: fallbackBatch(attempt.surface, ctx.options, all, warnings, attempt.retire), strictErrors: [] };
  }

  function partsOrFail(surface: Surface, ctx: Ctx<O>): P | SurfacerError {
    try {
      const components = ctx.options.components;
      if (components?.catalog === 'app' && target.appComponents) {
        // The client holds the app catalogue: components are emitted as themselves, once the app accepts them.
        const error = checkComponentBlocks(surface.view.blocks, components.registry);
        return error ?? target.parts(surface, ctx.allowedActions, components);
      }
      // Otherwise components become their fallback blocks here; the rest of the pipeline sees basic blocks only.
      const shown = withFallbacks(surface, components?.registry);
      if (isError(shown)) return shown;
      return target.parts(shown, ctx.allowedActions);
    } catch (error) {
      return internalError(error);
    }
  }

  function failed(surface: Surface, error: SurfacerError, ctx: Ctx<O>, retire?: string): Outcome<M> {
    return { batch: fallbackBatch(surface, ctx.options, [error], [], retire), strictErrors: ctx.options.strict ? [error] : [] };
  }

  /**
   * `before`: messages that lead the init (deleteSurface of what the client holds); `retire`: an
   * older A2UI surface id (epoch change) that must also go if the init itself fails.
   */
  function initOutcome(surface: Surface, ctx: Ctx<O>, before: M[] = [], retire?: string): Outcome<M> {
    const parts = partsOrFail(surface, ctx);
    if (isError(parts)) return { ...failed(surface, parts, ctx, retire), retire };
    const messages = [...before, ...target.init(parts, ctx.options)];
    return { ...finalise({ surface, kind: 'init', messages, parts, incremental: false, partial: false, retire }, ctx), retire };
  }

  function deleteOutcome(surface: Surface, a2uiSurfaceId: string, options: O): Outcome<M> {
    const messages = [target.deleteSurface(a2uiSurfaceId, options)];
    return { batch: batchOf({ surface, kind: 'delete', messages }, a2uiSurfaceId, serialise(messages), [], [], 'none'), strictErrors: [] };
  }

  function updateOutcome(prev: Surface, next: Surface, ctx: Ctx<O>): Outcome<M> | undefined {
    const oldId = encodeA2uiSurfaceId(prev.id, prev.epoch);
    const retireOld = (): M[] => [target.deleteSurface(oldId, ctx.options)];
    if (prev.epoch !== next.epoch) return initOutcome(next, ctx, retireOld(), oldId);
    if ((ctx.options.reinit ?? []).includes(next.id)) return initOutcome(next, ctx, retireOld());
    // IR objects are never mutated: the very same surface has nothing to send. (Building it twice
    // to find that out would also re-send the fallback of a surface that cannot be built, on every
    // update of any other surface; the client already shows that fallback.)
    if (prev === next) return undefined;
    if (target.rebuildOnTombstones) {
      const known = new Set(prev.tombstones);
      if (next.tombstones.some((t) => !known.has(t))) return initOutcome(next, ctx, retireOld());
    }
    const before = partsOrFail(prev, ctx);
    const after = partsOrFail(next, ctx);
    if (isError(after)) return failed(next, after, ctx);
    if (isError(before)) return initOutcome(next, ctx, retireOld());
    const viewChanged = JSON.stringify(prev.view) !== JSON.stringify(next.view);
    let plan: UpdatePlan<M>;
    try {
      plan = target.update(before, after, viewChanged, ctx.options);
    } catch (error) {
      return failed(next, internalError(error), ctx);
    }
    if (plan.kind === 'rebuild') return initOutcome(next, ctx, retireOld());
    if (plan.messages.length === 0) return undefined;
    const priorTypes = ctx.options.priorTypes?.get(after.a2uiSurfaceId) ?? target.types(before);
    return finalise({
      surface: next, kind: 'update', messages: plan.messages, parts: after, incremental: true, priorTypes, partial: !plan.fullComponents,
    }, ctx);
  }

  /**
   * Response-level guardrails: a surface that no longer fits becomes its (small) fallback. Bytes
   * are bounded by 3 × the lines' length first; the exact count is taken only when that bound
   * could exceed the limit (see LineSizes).
   */
  function fitResponse(outcomes: Outcome<M>[], surfaces: Surface[], ctx: Ctx<O>): Outcome<M>[] {
    let messages = 0;
    const sent: SurfaceBatch<M>[] = [];
    let upper = 0;
    const upperOf = (b: SurfaceBatch<M>): number => { let n = 0; for (const line of b.lines) n += 3 * line.length; return n; };
    const exactSoFar = (): number => sent.reduce((sum, b) => sum + b.stats.bytes, 0);
    const fits = (b: SurfaceBatch<M>): boolean => messages + b.stats.messages <= ctx.limits.maxMessagesPerResponse
      && (upper + upperOf(b) <= ctx.limits.maxBytesPerResponse || exactSoFar() + b.stats.bytes <= ctx.limits.maxBytesPerResponse);
    return outcomes.map((o, i) => {
      let out = o;
      if (!fits(o.batch)) {
        const tooMany = messages + o.batch.stats.messages > ctx.limits.maxMessagesPerResponse;
        const error = makeError(tooMany ? 'A2UI_S2C_TOO_MANY_MESSAGES' : 'A2UI_S2C_RESPONSE_TOO_LARGE',
          `surface ${o.batch.a2uiSurfaceId} does not fit in the response (${messages + o.batch.stats.messages} messages, ${exactSoFar() + o.batch.stats.bytes} bytes)`);
        const fallback = fallbackBatch(surfaces[i]!, ctx.options, [error, ...o.batch.errors], o.batch.warnings, o.retire);
        out = ctx.options.strict
          ? { batch: o.batch, strictErrors: [error] }
          : { batch: fits(fallback) ? fallback : emptyBatch(fallback, o.retire, ctx.options), strictErrors: [] };
      }
      messages += out.batch.stats.messages;
      sent.push(out.batch);
      upper += upperOf(out.batch);
      return out;
    });
  }

  function result(outcomes: Outcome<M>[], surfaces: Surface[], ctx: Ctx<O>): CompileResult<M> {
    const fitted = fitResponse(outcomes, surfaces, ctx);
    const errors = fitted.flatMap((o) => o.strictErrors);
    const epochResets = fitted.filter((o) => o.batch.recovery === 'epoch_reset').map((o) => o.batch.surfaceId);
    if (ctx.options.strict && errors.length > 0) return { ok: false, errors, batches: [], epochResets };
    return { ok: true, batches: fitted.map((o) => o.batch), epochResets };
  }

  return {
    compileSurface(surface, options = {} as O) {
      const ctx = context(options);
      const outcome = surface.lifecycle === 'deleted'
        ? deleteOutcome(surface, encodeA2uiSurfaceId(surface.id, surface.epoch), options)
        : initOutcome(surface, ctx);
      return result([outcome], [surface], ctx);
    },
    compileConversation(ir, options = {} as O) {
      const ctx = context(options);
      const live = ir.surfaces.filter((s) => s.lifecycle !== 'deleted');
      return result(live.map((s) => initOutcome(s, ctx)), live, ctx);
    },
    compileUpdate(prevIr, nextIr, options = {} as O) {
      const ctx = context(options);
      const outcomes: Outcome<M>[] = [];
      const surfaces: Surface[] = [];
      const push = (surface: Surface, outcome: Outcome<M> | undefined): void => {
        if (outcome === undefined) return;
        outcomes.push(outcome);
        surfaces.push(surface);
      };
      const nextIds = new Set(nextIr.surfaces.map((s) => s.id));
      for (const prev of prevIr?.surfaces ?? []) {
        // A surface missing from nextIr altogether (the IR normally keeps deleted ones).
        if (!nextIds.has(prev.id) && prev.lifecycle !== 'deleted') push(prev, deleteOutcome(prev, encodeA2uiSurfaceId(prev.id, prev.epoch), options));
      }
      for (const next of nextIr.surfaces) {
        const prev = prevIr?.surfaces.find((s) => s.id === next.id);
        const prevLive = prev !== undefined && prev.lifecycle !== 'deleted';
        if (next.lifecycle === 'deleted') {
          if (prevLive) push(next, deleteOutcome(next, encodeA2uiSurfaceId(prev.id, prev.epoch), options));
          continue;
        }
        push(next, prevLive ? updateOutcome(prev, next, ctx) : initOutcome(next, ctx));
      }
      return result(outcomes, surfaces, ctx);
    },
  };
}

/** Batches → JSONL (one message per line), e.g. for `surfacer compile --target a2ui`. */
export function a2uiBatchesToJsonl(batches: readonly SurfaceBatch<unknown>[]): string {
  let out = '';
  for (const b of batches) for (const line of b.lines) out += `${line}\n`;
  return out;
}

export function internalError(error: unknown): SurfacerError {
  return makeError('COMPILER_A2UI_INTERNAL', error instanceof Error ? error.message : String(error));
}

function isError<P>(value: P | SurfacerError): value is SurfacerError {
  return typeof value === 'object' && value !== null && 'code' in value && 'recovery_path' in value;
}
