import { z } from 'zod';

/**
 * Trace v1: one per planner turn, stored with the conversation (design.md §8). Plain wire
 * shapes only, so `z.toJSONSchema(TraceSchema)` works for external tooling.
 */
export const TRACE_VERSION = 1 as const;

const Ms = z.number().nonnegative();

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
});
export type TraceIssue = z.infer<typeof TraceIssue>;

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
    provider: z.enum(['offline', 'ollama', 'replay']),
    label: z.string(),
    model: z.string().optional(),
    stream: z.boolean(),
    format_mode: z.enum(['none', 'json', 'json_schema']),
    sampling: z.record(z.string(), z.union([z.number(), z.string(), z.boolean()])),
    dropped_keys: z.array(z.string()),
    offline: z.boolean(),
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
});
export type Trace = z.infer<typeof TraceSchema>;
