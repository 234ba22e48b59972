import type { Planner } from './types.ts';

/** What the pages' badge says of the planner that answers. */
export interface PlannerBadge {
  label: string;
  offline: boolean;
  title: string;
  /**
   * `label` split before a closing parenthetical remark ("Offline planner" + " (no language model
   * connected)"): a phone's top bar shows `short` alone; `detail` is "" when there is none.
   */
  short: string;
  detail: string;
}

/** What the pages' badge says of a planner: its label, or the fallback's while the model cannot be reached. */
export function plannerBadge(planner: Pick<Planner, 'name' | 'label' | 'fallback'>): PlannerBadge {
  const { fallback } = planner;
  if (fallback !== undefined) {
    return withParts({
      label: `${planner.label} unreachable · offline planner`, offline: true,
      title: `${planner.label} has not answered since ${fallback.since} (${fallback.code}); ${fallback.answeredBy} answers meanwhile`,
    });
  }
  return withParts({ label: planner.label, offline: planner.name === 'offline', title: 'Which planner answers your messages' });
}

function withParts(badge: Omit<PlannerBadge, 'short' | 'detail'>): PlannerBadge {
  const match = /^(.*\S)( \([^()]*\))$/.exec(badge.label);
  return { ...badge, short: match?.[1] ?? badge.label, detail: match?.[2] ?? '' };
}
