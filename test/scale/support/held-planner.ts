import type { Planner } from '../../../src/planner/types.ts';

/**
 * The demo app's planner, except that a turn asked to be held waits until it is cancelled (its
 * abort signal fires): a slow model, without a timer. Shared by several in-process instances,
 * the hold applies to whichever instance plans next.
 */
export interface HeldPlanner extends Planner {
  /** The next plan() waits for its abort; resolves once that plan() has started. */
  holdNext(): Promise<void>;
}

export function createHeldPlanner(inner: Planner): HeldPlanner {
  let held: (() => void) | undefined;
  return {
    name: inner.name,
    label: inner.label,
    holdNext() {
      return new Promise<void>((resolve) => { held = resolve; });
    },
    async plan(input, signal) {
      const started = held;
      held = undefined;
      if (started !== undefined) {
        started();
        await new Promise<void>((_, reject) => {
          const abort = (): void => reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
          if (signal.aborted) abort();
          else signal.addEventListener('abort', abort, { once: true });
        });
      }
      return inner.plan(input, signal);
    },
  };
}
