import { makeError, SurfacerErrorSchema, type SurfacerError } from '../errors/index.ts';
import type { ActionEvent, Planner, PlannerInput, PlannerOutput } from '../planner/types.ts';
import { createRecordingSource, type ConversationIr, type EntropySource } from '../ui-ir/index.ts';
import type { FoldResult } from './fold.ts';
import { planTurn, type PlannedTurn, type PlanTurnOptions } from './plan-turn.ts';
import type { StreamedSoFar } from './turn-stream.ts';
import { validateModelOutput } from '../directives/index.ts';
import { irHash, LOG_VERSION, type TurnEntry } from './log.ts';
import { buildTrace } from './trace-builder.ts';
import type { Trace, TraceSurfaceStats } from './trace.ts';
import { applyFailedTurn, applyTurn, toIssue, type DirectiveRunResult, type DirectivesMode, type TurnContext } from './turn.ts';
import type { TraceIssue } from './trace.ts';

/** The abort reason of a turn that ran out of time (a cancel aborts with TURN_CANCELLED). */
export const TURN_TIMEOUT = 'timeout';

export type AskedPlanner =
  | { kind: 'ok'; output: PlannerOutput & Partial<Pick<PlannedTurn, 'repair'>> }
  | { kind: 'failed'; error: SurfacerError; llmMs: number }
  | { kind: 'cancelled'; llmMs: number };

/**
 * Asks the planner (with its bounded repair loop, plan-turn.ts), and says what came of it: an
 * answer, a canonical failure, or a cancel.
 */
export async function askPlanner(options: PlanTurnOptions, input: PlannerInput, controller: AbortController, timeoutMs: number): Promise<AskedPlanner> {
  const started = performance.now();
  try {
    const output = await planTurn(input, options, controller.signal);
    if (controller.signal.aborted) throw controller.signal.reason;
    return { kind: 'ok', output };
  } catch (error) {
    const llmMs = performance.now() - started;
    const timedOut = controller.signal.reason === TURN_TIMEOUT;
    if (controller.signal.aborted && !timedOut) return { kind: 'cancelled', llmMs };
    if (timedOut) return { kind: 'failed', llmMs, error: makeError('PLANNER_TIMEOUT', `no answer within ${timeoutMs} ms`) };
    // Planners that fail with a canonical error (src/llm PlannerError.error) keep its code.
    const own = SurfacerErrorSchema.safeParse((error as { error?: unknown } | null)?.error);
    return { kind: 'failed', llmMs, error: own.success ? own.data : makeError('PLANNER_FAILED', String(error)) };
  }
}

export interface TurnRecordContext {
  planner: Planner;
  mode: DirectivesMode;
  entropy: EntropySource;
  turn: TurnContext;
  iso: () => string;
  requestId: () => string;
  surfaceStats?: (ir: ConversationIr) => TraceSurfaceStats[];
}

export interface TurnRecord {
  prev: ConversationIr;
  next: ConversationIr;
  entry: TurnEntry;
  outcome: Trace['outcome'];
  trace: Trace;
  error?: SurfacerError;
}

/**
 * The planner's answer (or failure) applied to the conversation as it is now, and the log entry
 * that records it with every draw it used. Taken again from scratch when another instance
 * appended first: the planner is not asked twice.
 */
export function recordTurn(
  ctx: TurnRecordContext, folded: FoldResult,
  turn: {
    text: string; planned: AskedPlanner; startedAt: string; t0: number; origin?: string | undefined;
    /** The action this turn continues (its log version and event); the transcript gets no user entry. */
    continuation?: { actionVersion: number; event: ActionEvent } | undefined;
    /** What was applied while the answer streamed (turn_part entries before this one). */
    streamed?: StreamedSoFar | undefined;
    /** The OpenTelemetry trace the turn ran in, when one was recorded. */
    otelTraceId?: string | undefined;
    /** A host's model wrote the answer through this tool (no user entry). */
    hostCall?: { tool: string } | undefined;
  },
): TurnRecord {
  const { planned, continuation } = turn;
  const after = turn.streamed !== undefined && turn.streamed.parts > 0 ? turn.streamed : undefined;
  // After streamed parts the user's entry is logged already (with the first part).
  const text = continuation === undefined && after === undefined && turn.hostCall === undefined ? turn.text : undefined;
  const rest = after !== undefined && planned.kind === 'ok' ? restOf(ctx, planned.output, after) : undefined;
  const prev = folded.ir;
  const recording = createRecordingSource(ctx.entropy);
  let next = prev;
  let run: DirectiveRunResult | undefined;
  let directivesMs = 0;
  if (planned.kind === 'ok') {
    const t1 = performance.now();
    const applied = applyTurn(prev, { text, rawText: rest?.applies ?? planned.output.rawText }, ctx.turn, recording);
    directivesMs = performance.now() - t1;
    next = applied.ir;
    // The trace reports the answer's own problems (a directive refused mid-stream, a cut-off) too.
    run = rest === undefined ? applied.run
      : { ...applied.run, applied: applied.run.applied + after!.applied.length, warnings: [...rest.warnings, ...after!.warnings, ...applied.run.warnings], errors: [...rest.errors, ...after!.errors, ...applied.run.errors] };
  } else if (planned.kind === 'failed') {
    next = applyFailedTurn(prev, text, planned.error.message, recording);
  }
  const t2 = performance.now();
  const surfaces = ctx.surfaceStats?.(next) ?? [];
  const compileMs = performance.now() - t2;
  const outcome = planned.kind === 'ok' ? 'applied' : planned.kind === 'failed' ? 'planner_failed' : 'cancelled';
  const error = planned.kind === 'failed' ? planned.error
    : planned.kind === 'cancelled' ? cancelledError(continuation !== undefined) : undefined;
  const turnIndex = folded.turnCount;
  const trace = buildTrace({
    requestId: ctx.requestId(), cid: folded.meta.cid, turnIndex, startedAt: turn.startedAt, finishedAt: ctx.iso(), mode: ctx.mode,
    outcome, planner: ctx.planner, output: planned.kind === 'ok' ? planned.output : undefined, run, surfaces, error,
    ...(turn.otelTraceId === undefined ? {} : { otelTraceId: turn.otelTraceId }),
    ...(continuation ? {
      continuation: { action: continuation.event.action, surface_id: continuation.event.surface.id, action_version: continuation.actionVersion },
    } : {}),
    timings: {
      llm_ms: planned.kind === 'ok' ? planned.output.llmMs : planned.llmMs,
      directives_ms: directivesMs, compile_ms: compileMs, total_ms: performance.now() - turn.t0,
    },
  });
  const { planner } = ctx;
  const entry: TurnEntry = {
    type: 'turn', v: LOG_VERSION, turnIndex, at: turn.startedAt, text: turn.text, outcome, mode: ctx.mode,
    planner: {
      name: planner.name, provider: planned.kind === 'ok' ? planned.output.provider : planner.name, label: planner.label,
      ...(planned.kind === 'ok' && planned.output.model !== undefined ? { model: planned.output.model } : {}),
      ...(planned.kind === 'ok' ? { rawText: planned.output.rawText } : {}),
      llmMs: trace.timings.llm_ms,
      ...(error && planned.kind === 'failed' ? { error: { code: error.code, message: error.message } } : {}),
    },
    draws: recording.drawn, irHash: irHash(next), trace, ...(turn.origin === undefined ? {} : { origin: turn.origin }),
    ...(continuation ? { continuation } : {}),
    ...(turn.hostCall ? { hostCall: turn.hostCall } : {}),
    ...(after ? { streamed: { parts: after.parts, applies: rest?.applies ?? '', applied: after.applied } } : {}),
  };
  return { prev, next, entry, outcome, trace, ...(error ? { error } : {}) };
}

/** A cancelled continuation's message: what the user sent was kept (its action was applied). */
function cancelledError(continuation: boolean): SurfacerError {
  return continuation
    ? makeError('PLANNER_CANCELLED', 'continuation cancelled by the user', { message: 'Stopped. Your answers were saved; the assistant did not continue.' })
    : makeError('PLANNER_CANCELLED', 'cancelled by the user');
}

/**
 * What is left to apply of a streamed answer after its parts: of the first answer, its valid
 * directives past those the parts decided, as a canonical envelope (with the assistant text if
 * no part carried it); of a repair answer (the model was told what was applied), all of it.
 */
function restOf(ctx: TurnRecordContext, output: Extract<AskedPlanner, { kind: 'ok' }>['output'], soFar: StreamedSoFar):
  { applies: string; warnings: TraceIssue[]; errors: TraceIssue[] } {
  if ((output.repair?.chosen ?? 0) !== 0) return { applies: output.rawText, warnings: [], errors: [] };
  const whole = validateModelOutput(ctx.turn.registry, output.rawText, { mode: 'best_effort' });
  const envelope = {
    ...(soFar.textApplied || whole.assistantText === undefined ? {} : { assistant_text: whole.assistantText }),
    directives: whole.directives.filter((d) => d.index >= soFar.through).map((d) => ({ type: d.type, payload: d.payload })),
  };
  return { applies: JSON.stringify(envelope), warnings: whole.warnings.map(toIssue), errors: whole.errors.map(toIssue) };
}
