import type { Planner } from './types.ts';

/** What the pages' badge says of a planner: its label, or the fallback's while the model cannot be reached. */
export function plannerBadge(planner: Pick<Planner, 'name' | 'label' | 'fallback'>): { label: string; offline: boolean; title: string } {
  const { fallback } = planner;
  if (fallback !== undefined) {
    return {
      label: `${planner.label} unreachable · offline planner`, offline: true,
      title: `${planner.label} has not answered since ${fallback.since} (${fallback.code}); ${fallback.answeredBy} answers meanwhile`,
    };
  }
  return { label: planner.label, offline: planner.name === 'offline', title: 'Which planner answers your messages' };
}
