import { createOfflinePlanner } from '../../src/app/index.ts';
import type { Planner } from '../../src/planner/types.ts';

/** The demo's offline planner, answering after a pause of `ms` (long enough to type, or to resend, during the turn); a cancel ends the pause. */
export function pausingPlanner(ms: number): Planner {
  const offline = createOfflinePlanner();
  return {
    ...offline,
    async plan(input, signal) {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, ms);
        signal.addEventListener('abort', () => { clearTimeout(timer); reject(signal.reason as Error); }, { once: true });
      });
      return offline.plan(input, signal);
    },
  };
}
