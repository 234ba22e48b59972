import type { Violation } from './types.ts';

/*
 * One mistake, one finding. A dangling child reference cuts a whole subtree off the root, and
 * every component of it is then unreachable too: reported one by one, a single typo in a Card's
 * child becomes a finding per component under it. Those are follow-ons: they are kept, as the
 * `followOns` of the finding that explains them, not reported beside it.
 *
 * - An unreachable component referenced by another unreachable one follows from that one; each
 *   cut-off subtree is reported once, at its top (a cycle with no top: at its first component).
 * - When an update has exactly one dangling reference and exactly one cut-off subtree, the
 *   subtree is what the reference was meant to name: it folds into the dangling finding.
 *
 * Recovery needs every component (it drops orphans by id), so the compile pipeline flattens
 * them back first (flattenFollowOns); only what a person reads is folded.
 */

/** An unreachable component of one update: its id, the ids it refers to, and its finding. */
export interface CutOff {
  id: string;
  kids: readonly string[];
  finding: Violation;
}

const DANGLING = new Set(['A2UI_S2C_DANGLING_CHILD', 'A2UI_S2C_TEMPLATE_DANGLING']);

export function isDanglingReference(v: Violation): boolean {
  return DANGLING.has(v.code);
}

/**
 * The findings to report for the unreachable components `cut` of one update (in message
 * order), given the dangling-reference findings of the same update (already reported: the one
 * that explains a subtree gets it as follow-ons, in place).
 */
export function foldUnreachable(cut: readonly CutOff[], dangling: readonly Violation[]): Violation[] {
  if (cut.length === 0) return [];
  const byId = new Map(cut.map((c) => [c.id, c]));
  const referenced = new Set<string>();
  for (const c of cut) for (const k of c.kids) if (k !== c.id && byId.has(k)) referenced.add(k);
  const owner = new Map<string, string>();
  const tops: CutOff[] = [];
  const claim = (top: CutOff): void => {
    tops.push(top);
    owner.set(top.id, top.id);
    const queue = [top];
    for (let q = 0; q < queue.length; q += 1) {
      for (const k of queue[q]!.kids) {
        const child = byId.get(k);
        if (child === undefined || owner.has(k)) continue;
        owner.set(k, top.id);
        queue.push(child);
      }
    }
  };
  for (const c of cut) if (!referenced.has(c.id)) claim(c);
  // What is left hangs in cycles no top reaches: the first component of each stands for it.
  for (const c of cut) if (!owner.has(c.id)) claim(c);
  const folded: Violation[] = tops.map((top) => {
    const followOns = cut.filter((c) => c.id !== top.id && owner.get(c.id) === top.id).map((c) => c.finding);
    return followOns.length > 0 ? { ...top.finding, followOns } : top.finding;
  });
  if (dangling.length === 1 && folded.length === 1) {
    const { followOns, ...top } = folded[0]!;
    const into = dangling[0]!;
    into.followOns = [...(into.followOns ?? []), top, ...(followOns ?? [])];
    return [];
  }
  return folded;
}

/** Every finding on its own again, follow-ons after the finding they followed from. */
export function flattenFollowOns(violations: readonly Violation[]): Violation[] {
  if (!violations.some((v) => v.followOns !== undefined)) return violations as Violation[];
  const out: Violation[] = [];
  const add = (v: Violation): void => {
    const { followOns, ...own } = v;
    out.push(own);
    for (const f of followOns ?? []) add(f);
  };
  for (const v of violations) add(v);
  return out;
}
