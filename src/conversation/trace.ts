import { z } from 'zod';
import type { PlannerName } from '../planner/types.ts';

/**
 * Trace v1: one per planner turn, stored with the conversation (design.md §8). Plain wire
 * shapes only, so `z.toJSONSchema(TraceSchema)` works for external tooling.
 */
export const TRACE_VERSION = 1 as const;

const Ms = z.number().nonnegative();

/** Who produced a turn's model text; shared with the log entry. Logs written before `openai` existed still parse. */
export const PlannerProvider = z.enum(['offline', 'ollama', 'openai', 'replay', 'host'] satisfies PlannerName[]);

export const TraceSurfaceStats = z.object({
  surface_id: z.string(),
  /** Which compiler produced the numbers (`html` here; the A2UI host adds its own). */
  target: z.enum(['html', 'a2ui']),
  epoch: z.number().int().nonnegative(),
  rev: z.number().int().nonnegative(),
  lifecycle: z.string(),
  bytes: z.number().int().nonnegative(),
  messages: z.number().int().nonnegative().optional(),
  components: z.number().int().nonnegative().optional(),
  data_entries: z.number().int().nonnegative().optional(),
});
export type TraceSurfaceStats = z.infer<typeof TraceSurfaceStats>;

export const TraceIssue = z.object({
  code: z.string(), message: z.string(), pointer: z.string().optional(), recovery: z.string().optional(),
  /** The canonical error's technical_detail (what a repair follow-up quotes to the model). */
  detail: z.string().optional(),
});
export type TraceIssue = z.infer<typeof TraceIssue>;

const Usage = z.object({
  prompt_tokens: z.number().int().nonnegative(), completion_tokens: z.number().int().nonnegative(), total_tokens: z.number().int().nonnegative(),
});

/** One answer of the turn's repair loop (plan-turn.ts). Raw text is clipped to keep logs bounded. */
export const TraceAttempt = z.object({
  index: z.number().int().nonnegative(),
  status: z.enum(['passed', 'failed', 'planner_failed', 'unchecked']),
  raw_text: z.string().optional(),
  raw_text_truncated: z.boolean().optional(),
  errors: z.array(TraceIssue),
  warning_codes: z.array(z.string()),
  applied: z.number().int().nonnegative(),
  llm_ms: Ms,
  usage: Usage.optional(),
  finish_reason: z.string().optional(),
  dropped_keys: z.array(z.string()).optional(),
  http_retries: z.number().int().nonnegative().optional(),
});
export type TraceAttempt = z.infer<typeof TraceAttempt>;

/** One executed tool call (arguments and result as JSON text, clipped: traces are stored with the log). */
export const TraceToolStep = z.object({
  index: z.number().int().nonnegative(),
  call_id: z.string().optional(),
  name: z.string(),
  arguments: z.string(),
  ok: z.boolean(),
  result: z.string(),
  ms: Ms,
});
export type TraceToolStep = z.infer<typeof TraceToolStep>;

/** The tool loop of a turn (src/llm chat planner): what was offered, what ran, why it stopped. */
export const TraceToolLoop = z.object({
  tools: z.array(z.string()),
  /** Why no loop ran although tools were offered (e.g. the model does not support tools). */
  skipped: z.string().optional(),
  stopped: z.enum(['answered', 'step_cap', 'time_cap']).optional(),
  /** Requests sent with tools (the final request with the directive schema not counted). */
  requests: z.number().int().nonnegative(),
  steps: z.array(TraceToolStep),
});
export type TraceToolLoop = z.infer<typeof TraceToolLoop>;

// Fields added after Trace v1 was first written are optional, so every stored trace still parses.
export const TraceSchema = z.object({
  trace_version: z.literal(TRACE_VERSION),
  request_id: z.string(),
  conversation_id: z.string(),
  turn_index: z.number().int().nonnegative(),
  started_at: z.string(),
  finished_at: z.string(),
  run_mode: z.enum(['directives', 'tool_loop', 'hybrid']),
  strict_mode: z.boolean(),
  outcome: z.enum(['applied', 'planner_failed', 'cancelled']),
  llm: z.object({
    provider: PlannerProvider,
    label: z.string(),
    model: z.string().optional(),
    stream: z.boolean(),
    format_mode: z.enum(['none', 'json', 'json_schema']),
    sampling: z.record(z.string(), z.union([z.number(), z.string(), z.boolean()])),
    dropped_keys: z.array(z.string()),
    offline: z.boolean(),
    /** Summed over every call of the turn. */
    usage: Usage.optional(),
    /** Why the model's planner did not answer when the offline planner answered in its place. */
    fallback_error: TraceIssue.optional(),
  }),
  surfaces: z.array(TraceSurfaceStats),
  validation: z.object({
    status: z.enum(['ok', 'warnings', 'errors', 'skipped']),
    applied: z.number().int().nonnegative(),
    warnings: z.array(TraceIssue),
    error_codes: z.array(z.string()),
    errors: z.array(TraceIssue),
  }),
  recovery: z.array(z.object({ surface_id: z.string().optional(), code: z.string(), path: z.string() })),
  timings: z.object({ llm_ms: Ms, directives_ms: Ms, compile_ms: Ms, total_ms: Ms }),
  attempts: z.array(TraceAttempt).optional(),
  repair: z.object({
    max_repairs: z.number().int().nonnegative(), used: z.number().int().nonnegative(), exhausted: z.boolean(), chosen: z.number().int().nonnegative(),
  }).optional(),
  /** Set when the turn continued an action (a clarifier's answers) instead of typed text. */
  continuation: z.object({ action: z.string(), surface_id: z.string(), action_version: z.number().int().positive() }).optional(),
  tool_loop: TraceToolLoop.optional(),
  /** The OpenTelemetry trace id the turn ran in (32 hex digits), when an SDK recorded it (docs/operate.md). */
  otel_trace_id: z.string().regex(/^[0-9a-f]{32}$/).optional(),
});
export type Trace = z.infer<typeof TraceSchema>;
