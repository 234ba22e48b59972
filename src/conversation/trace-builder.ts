import { errorSpec, SurfacerErrorSchema, type SurfacerError } from '../errors/index.ts';
import type { Planner, PlannerOutput, ToolStep } from '../planner/types.ts';
import type { AttemptRecord, PlannedTurn } from './plan-turn.ts';
import { TRACE_VERSION, TraceToolLoop, type Trace, type TraceAttempt, type TraceSurfaceStats, type TraceToolStep } from './trace.ts';
import { toIssue, type DirectiveRunResult, type DirectivesMode } from './turn.ts';

export interface TraceParams {
  requestId: string;
  cid: string;
  turnIndex: number;
  startedAt: string;
  finishedAt: string;
  mode: DirectivesMode;
  outcome: Trace['outcome'];
  planner: Planner;
  /** The planner's answer; from the repair loop (plan-turn.ts) it also carries every attempt. */
  output: (PlannerOutput & Partial<Pick<PlannedTurn, 'attempts' | 'repair'>>) | undefined;
  run: DirectiveRunResult | undefined;
  surfaces: TraceSurfaceStats[];
  error: SurfacerError | undefined;
  timings: Trace['timings'];
  continuation?: Trace['continuation'];
  otelTraceId?: string;
}

const FORMAT_MODES = ['none', 'json', 'json_schema'] as const;

/** Assembles Trace v1. LLM details the planner reports in `meta` are taken when well-formed. */
export function buildTrace(p: TraceParams): Trace {
  const meta = p.output?.meta ?? {};
  const provider = p.output?.provider ?? p.planner.name;
  const format = meta['format_mode'] ?? meta['formatMode'];
  const sampling = meta['sampling'];
  const dropped = meta['dropped_keys'] ?? meta['droppedKeys'];
  const warnings = p.run?.warnings ?? [];
  const errors = p.run?.errors ?? (p.error && p.outcome === 'planner_failed' ? [toIssue(p.error)] : []);
  const recovery = [...warnings, ...errors]
    .filter((i) => i.recovery !== undefined && i.recovery !== 'none')
    .map((i) => ({ code: i.code, path: i.recovery! }));
  if (p.output?.repair?.exhausted) recovery.push({ code: 'LLM_REPAIR_EXHAUSTED', path: errorSpec('LLM_REPAIR_EXHAUSTED').recovery });
  const llm: Trace['llm'] = {
    provider, label: p.planner.label,
    stream: meta['stream'] === true,
    format_mode: FORMAT_MODES.find((m) => m === format) ?? (provider === 'offline' ? 'none' : 'json_schema'),
    sampling: isScalarRecord(sampling) ? sampling : {},
    dropped_keys: Array.isArray(dropped) ? dropped.filter((k): k is string => typeof k === 'string') : [],
    offline: provider === 'offline',
  };
  if (p.output?.model !== undefined) llm.model = p.output.model;
  if (p.output?.usage !== undefined) llm.usage = p.output.usage;
  const fallback = SurfacerErrorSchema.safeParse(meta['fallback_error']);
  if (fallback.success) llm.fallback_error = toIssue(fallback.data);
  const trace: Trace = {
    trace_version: TRACE_VERSION,
    request_id: p.requestId,
    conversation_id: p.cid,
    turn_index: p.turnIndex,
    started_at: p.startedAt,
    finished_at: p.finishedAt,
    run_mode: runMode(p.output?.toolSteps, p.run?.applied ?? 0),
    strict_mode: p.mode === 'strict',
    outcome: p.outcome,
    llm,
    surfaces: p.surfaces,
    validation: {
      status: p.run === undefined ? 'skipped' : errors.length > 0 ? 'errors' : warnings.length > 0 ? 'warnings' : 'ok',
      applied: p.run?.applied ?? 0,
      warnings,
      error_codes: [...new Set(errors.map((e) => e.code))],
      errors,
    },
    recovery,
    timings: roundTimings(p.timings),
  };
  if (p.output?.attempts !== undefined) trace.attempts = p.output.attempts.map(traceAttempt);
  if (p.output?.repair !== undefined) {
    const { maxRepairs, used, exhausted, chosen } = p.output.repair;
    trace.repair = { max_repairs: maxRepairs, used, exhausted, chosen };
  }
  if (p.continuation !== undefined) trace.continuation = p.continuation;
  if (p.otelTraceId !== undefined) trace.otel_trace_id = p.otelTraceId;
  const loop = toolLoop(meta['tool_loop'], p.output?.toolSteps);
  if (loop !== undefined) trace.tool_loop = loop;
  return trace;
}

/** Tools then directives is the hybrid run of design §1; tools with nothing applied, a tool loop. */
function runMode(steps: readonly ToolStep[] | undefined, applied: number): Trace['run_mode'] {
  if (steps === undefined || steps.length === 0) return 'directives';
  return applied > 0 ? 'hybrid' : 'tool_loop';
}

// Arguments and results of tool calls are kept for debugging, up to this many characters each.
const MAX_TRACE_TOOL_TEXT = 4_000;

function clipJson(value: unknown): string {
  const text = JSON.stringify(value) ?? 'null';
  return text.length > MAX_TRACE_TOOL_TEXT ? `${text.slice(0, MAX_TRACE_TOOL_TEXT)}…` : text;
}

function toolLoop(meta: unknown, steps: readonly ToolStep[] | undefined): Trace['tool_loop'] {
  const summary = TraceToolLoop.omit({ steps: true }).safeParse(meta);
  if (!summary.success) return undefined;
  const traced: TraceToolStep[] = (steps ?? []).map((s) => ({
    index: s.index, ...(s.callId === undefined ? {} : { call_id: s.callId }), name: s.name,
    arguments: clipJson(s.arguments), ok: s.ok, result: clipJson(s.result), ms: roundMs(s.ms),
  }));
  return { ...summary.data, steps: traced };
}

// Every attempt's raw text is kept for debugging, up to this many characters each.
const MAX_TRACE_RAW_TEXT = 16_000;

function traceAttempt(a: AttemptRecord): TraceAttempt {
  const out: TraceAttempt = {
    index: a.index, status: a.status, errors: a.errors, warning_codes: a.warningCodes, applied: a.applied, llm_ms: roundMs(a.llmMs),
  };
  if (a.rawText !== undefined) {
    out.raw_text = a.rawText.slice(0, MAX_TRACE_RAW_TEXT);
    if (a.rawText.length > MAX_TRACE_RAW_TEXT) out.raw_text_truncated = true;
  }
  if (a.usage !== undefined) out.usage = a.usage;
  const meta = a.meta ?? {};
  if (typeof meta['finish_reason'] === 'string') out.finish_reason = meta['finish_reason'];
  if (Array.isArray(meta['dropped_keys'])) out.dropped_keys = meta['dropped_keys'].filter((k): k is string => typeof k === 'string');
  if (Array.isArray(meta['http_retries'])) out.http_retries = meta['http_retries'].length;
  return out;
}

const roundMs = (n: number): number => Math.max(0, Math.round(n * 1000) / 1000);

function roundTimings(t: Trace['timings']): Trace['timings'] {
  const r = roundMs;
  return { llm_ms: r(t.llm_ms), directives_ms: r(t.directives_ms), compile_ms: r(t.compile_ms), total_ms: r(t.total_ms) };
}

function isScalarRecord(value: unknown): value is Record<string, number | string | boolean> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    && Object.values(value).every((v) => ['number', 'string', 'boolean'].includes(typeof v));
}
