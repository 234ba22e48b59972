import type { Planner, PlannerOutput } from '../planner/types.ts';
import { PlannerError } from './planner-error.ts';

/**
 * Uses the model when it answers and the offline planner when it cannot be reached or fails,
 * saying so in the output so the UI and the trace stay honest. Cancellation is not a failure.
 */
export function createFallbackPlanner(primary: Planner, offline: Planner): Planner {
  return {
    name: primary.name,
    label: primary.label,
    ...(primary.mapText ? { mapText: (text: string) => primary.mapText!(text) } : {}),
    ...(primary.streams === undefined ? {} : { streams: primary.streams }),
    async plan(input, signal): Promise<PlannerOutput> {
      try {
        return await primary.plan(input, signal);
      } catch (error) {
        // A repair follow-up is about the model's own earlier answer: the offline planner cannot
        // answer it, so the turn keeps what it has instead.
        if (!(error instanceof PlannerError) || error.error.code === 'LLM_CANCELLED' || input.repair !== undefined) throw error;
        const answer = await offline.plan(input, signal);
        return { ...answer, meta: { ...answer.meta, fallback_from: primary.label, fallback_error: error.error } };
      }
    },
  };
}
