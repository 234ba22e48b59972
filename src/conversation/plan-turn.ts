import { SurfacerErrorSchema, type SurfacerError } from '../errors/index.ts';
import type { Planner, PlannerInput, PlannerOutput, RepairAttempt, TokenUsage } from '../planner/types.ts';
import { sumUsage } from '../planner/usage.ts';
import { createSeededSource } from '../ui-ir/index.ts';
import type { TraceIssue } from './trace.ts';
import { applyTurn, type TurnContext } from './turn.ts';
import { failSpanWithCode, inSpan, setDefined, type Span } from '../telemetry/tracing.ts';

/**
 * The bounded repair loop of one turn. Each answer is dry-run first — parsed, validated and
 * applied to a scratch copy of the IR with throwaway draws (pure; nothing is recorded or
 * shown). An answer that fails is sent back to the model with its canonical errors and their
 * JSON Pointers (PlannerInput.repair), up to `maxRepairs` times; nothing is applied until an
 * attempt passes, and then only that attempt's raw text goes to the log, so the fold replays it
 * alone, byte for byte.
 *
 * Passing: no errors at all. A prose-only reply passes as the first answer (the soft fail: it
 * is the assistant's plain answer) but not as a repair, which was asked for directives.
 *
 * Exhausted (every attempt failed, or a repair call itself failed): best-effort mode keeps the
 * best attempt — most directives applied, then fewest errors, then the latest — and applies its
 * valid part as best-effort always does (the bad directives are dropped and listed in the trace,
 * with LLM_REPAIR_EXHAUSTED). Strict mode keeps the last attempt, of which strict applies nothing.
 */
export const MAX_REPAIR_ATTEMPTS = 3;

export interface AttemptRecord {
  index: number;
  /** What the parser read (absent when the planner call itself failed). */
  rawText?: string;
  /** `unchecked`: no repair was possible (maxRepairs 0), so the answer was not dry-run. */
  status: 'passed' | 'failed' | 'planner_failed' | 'unchecked';
  errors: TraceIssue[];
  warningCodes: string[];
  applied: number;
  llmMs: number;
  usage?: TokenUsage;
  meta?: Record<string, unknown>;
}

export interface RepairSummary {
  maxRepairs: number;
  /** Follow-up calls made. */
  used: number;
  exhausted: boolean;
  /** Index of the attempt whose raw text is applied and logged. */
  chosen: number;
}

/** The chosen answer, as the planner produced it (llmMs and usage summed over every call), plus the loop's record. */
export interface PlannedTurn extends PlannerOutput {
  attempts: AttemptRecord[];
  repair: RepairSummary;
}

export interface PlanTurnOptions {
  planner: Planner;
  turn: TurnContext;
  /** Clamped to 0–MAX_REPAIR_ATTEMPTS. */
  maxRepairs: number;
  /** Directives of the first answer already applied while it streamed (their indexes): a repair asks only for the rest. */
  streamedIndexes?: () => Promise<number[]>;
}

type Scored = { record: AttemptRecord; output: PlannerOutput };

// The dry run's draws: deterministic and thrown away. Whether an answer applies never depends on them.
const SCRATCH_SEED = 'surfacer-dry-run';

function dryRun(input: PlannerInput, rawText: string, turn: TurnContext): Pick<AttemptRecord, 'errors' | 'warningCodes' | 'applied'> & { proseOnly: boolean } {
  const { run } = applyTurn(input.ir, { text: input.event ? undefined : input.text, rawText }, turn, createSeededSource(SCRATCH_SEED));
  const warningCodes = [...new Set(run.warnings.map((w) => w.code))];
  return { errors: run.errors, warningCodes, applied: run.applied, proseOnly: warningCodes.includes('DIRECTIVE_WARN_PROSE_ONLY') };
}

function toRepairAttempt(s: Scored): RepairAttempt {
  return {
    rawText: s.record.rawText ?? '',
    errors: s.record.errors.map((e) => ({ code: e.code, ...(e.pointer === undefined ? {} : { pointer: e.pointer }), detail: e.detail ?? e.message })),
  };
}

function better(a: Scored, b: Scored): Scored {
  if (a.record.applied !== b.record.applied) return a.record.applied > b.record.applied ? a : b;
  if (a.record.errors.length !== b.record.errors.length) return a.record.errors.length < b.record.errors.length ? a : b;
  return a.record.index > b.record.index ? a : b;
}

/**
 * The first call gets the tools; a repair call never runs them again but is shown the steps the
 * first call made (the model's view stays whole, the outside world is asked once).
 */
function callInput(input: PlannerInput, index: number, scored: readonly Scored[], applied: readonly number[]): PlannerInput {
  const base: PlannerInput = { text: input.text, ir: input.ir, ...(input.event ? { event: input.event } : {}) };
  // Only the first call streams: a repair answer is applied whole, on top of what streamed.
  if (index === 0) return { ...base, ...(input.tools ? { tools: input.tools } : {}), ...(input.stream ? { stream: input.stream } : {}) };
  const steps = scored[0]?.output.toolSteps;
  const attempts = scored.map(toRepairAttempt);
  if (applied.length > 0 && attempts[0] !== undefined) attempts[0].applied = [...applied];
  return { ...base, ...(steps && steps.length > 0 ? { toolSteps: steps } : {}), repair: { attempts } };
}

/** Runs the planner, then up to `maxRepairs` repair follow-ups. Throws only what the first call throws, or a cancellation. */
export async function planTurn(input: PlannerInput, options: PlanTurnOptions, signal: AbortSignal): Promise<PlannedTurn> {
  const maxRepairs = Math.max(0, Math.min(MAX_REPAIR_ATTEMPTS, Math.trunc(options.maxRepairs)));
  const scored: Scored[] = [];
  const records: AttemptRecord[] = [];
  /** One answer of the loop, dry-run; true when the loop is over (it passed, or a repair call failed). */
  async function attempt(index: number, span: Span | undefined): Promise<boolean> {
    const started = performance.now();
    let output: PlannerOutput;
    try {
      // A repair follows a streamed first answer: wait until its parts are applied, to say which.
      const applied = index > 0 && options.streamedIndexes ? await options.streamedIndexes() : [];
      output = await options.planner.plan(callInput(input, index, scored, applied), signal);
    } catch (error) {
      if (index === 0 || signal.aborted) throw error;
      const own = SurfacerErrorSchema.safeParse((error as { error?: unknown } | null)?.error);
      const failure: SurfacerError | undefined = own.success ? own.data : undefined;
      records.push({
        index, status: 'planner_failed', errors: [{ code: failure?.code ?? 'PLANNER_FAILED', message: failure?.message ?? String(error), detail: failure?.technical_detail ?? String(error) }],
        warningCodes: [], applied: 0, llmMs: performance.now() - started,
      });
      if (span) failSpanWithCode(span, failure?.code ?? 'PLANNER_FAILED');
      return true;
    }
    // The first answer only needs checking when a repair could follow it.
    const check = maxRepairs === 0 ? undefined : dryRun(input, output.rawText, options.turn);
    const passed = check === undefined || (check.errors.length === 0 && !(check.proseOnly && index > 0));
    const record: AttemptRecord = {
      index, rawText: output.rawText, status: check === undefined ? 'unchecked' : passed ? 'passed' : 'failed',
      errors: check?.errors ?? [], warningCodes: check?.warningCodes ?? [], applied: check?.applied ?? 0,
      llmMs: output.llmMs, ...(output.usage ? { usage: output.usage } : {}), ...(output.meta ? { meta: output.meta } : {}),
    };
    records.push(record);
    scored.push({ record, output });
    if (span) setDefined(span, { 'surfacer.repair.status': record.status, 'surfacer.repair.error_codes': uniqueCodes(record.errors), 'surfacer.repair.applied': record.applied });
    return passed;
  }

  for (let index = 0; index <= maxRepairs; index++) {
    // Each repair follow-up is a span of its own (its model call beneath it), naming the codes it was sent back with.
    const done = index === 0 ? await attempt(0, undefined) : await inSpan('surfacer.repair', {
      attributes: { 'surfacer.repair.attempt': index, 'surfacer.repair.for_codes': uniqueCodes(records.at(-1)?.errors ?? []) },
    }, (span) => attempt(index, span));
    if (done) break;
  }
  const last = scored.at(-1)!;
  const passed = last.record.status === 'failed' ? undefined : last;
  const chosen = passed ?? (options.turn.mode === 'strict' ? last : scored.reduce(better));
  const usage = sumUsage(scored.map((s) => s.output));
  // The tool loop ran in the first call only: its steps and summary belong to the turn whichever answer is chosen.
  const first = scored[0]!.output;
  const loop = first.meta?.['tool_loop'];
  const planned: PlannedTurn = {
    ...chosen.output,
    ...(first.toolSteps ? { toolSteps: first.toolSteps } : {}),
    ...(loop !== undefined && chosen.output !== first ? { meta: { ...chosen.output.meta, tool_loop: loop } } : {}),
    llmMs: records.reduce((total, r) => total + r.llmMs, 0),
    attempts: records,
    repair: { maxRepairs, used: records.length - 1, exhausted: passed === undefined, chosen: chosen.record.index },
  };
  if (usage !== undefined) planned.usage = usage;
  return planned;
}

function uniqueCodes(errors: readonly TraceIssue[]): string[] {
  return [...new Set(errors.map((e) => e.code))];
}
