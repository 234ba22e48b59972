import type { Planner, PlannerFallback, PlannerOutput } from '../planner/types.ts';
import { PlannerError } from './planner-error.ts';

export interface FallbackOptions {
  /** Told when the model stops answering (once a stretch) and when it answers again. */
  onChange?(fallback: PlannerFallback | undefined, model: string): void;
  /** ISO time now. Default: the system clock. */
  now?(): string;
}

/**
 * Uses the model when it answers and the offline planner when it cannot be reached or fails,
 * saying so in the output so the UI and the trace stay honest. Cancellation is not a failure.
 * While the offline planner answers in its place, `fallback` says so (since when, why), so the
 * pages' badge, `/readyz` and the log can say it too; the next answer of the model clears it.
 */
export function createFallbackPlanner(primary: Planner, offline: Planner, options: FallbackOptions = {}): Planner {
  let fallback: PlannerFallback | undefined;
  const now = options.now ?? (() => new Date().toISOString());
  return {
    name: primary.name,
    label: primary.label,
    ...(primary.mapText ? { mapText: (text: string) => primary.mapText!(text) } : {}),
    ...(primary.streams === undefined ? {} : { streams: primary.streams }),
    get fallback() {
      return fallback;
    },
    async plan(input, signal): Promise<PlannerOutput> {
      try {
        const output = await primary.plan(input, signal);
        if (fallback !== undefined) {
          fallback = undefined;
          options.onChange?.(undefined, primary.label);
        }
        return output;
      } catch (error) {
        // A repair follow-up is about the model's own earlier answer: the offline planner cannot
        // answer it, so the turn keeps what it has instead.
        if (!(error instanceof PlannerError) || error.error.code === 'LLM_CANCELLED' || input.repair !== undefined) throw error;
        const started = fallback === undefined;
        fallback = { since: fallback?.since ?? now(), code: error.error.code, answeredBy: offline.label };
        if (started) options.onChange?.(fallback, primary.label);
        const answer = await offline.plan(input, signal);
        return { ...answer, meta: { ...answer.meta, fallback_from: primary.label, fallback_error: error.error } };
      }
    },
  };
}
