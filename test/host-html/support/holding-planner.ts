import { createDemoApp } from '../../../src/app/index.ts';
import type { Planner } from '../../../src/planner/types.ts';

/**
 * The demo's offline planner, except that while `hold` is on a turn continuing an action waits
 * until it is cancelled: the cancel during a continuation, over HTTP and in a browser.
 */
export function holdingContinuations(): Planner & { hold: boolean; held: number } {
  const offline = createDemoApp().offlinePlanner;
  const planner = {
    name: offline.name, label: offline.label, hold: false, held: 0,
    async plan(input: Parameters<Planner['plan']>[0], signal: AbortSignal) {
      if (input.event !== undefined && planner.hold) {
        planner.held += 1;
        await new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
      }
      return offline.plan(input, signal);
    },
  };
  return planner;
}
