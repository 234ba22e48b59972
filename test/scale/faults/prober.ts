import type { Endpoint, Sample } from '../support/fault-load.ts';
import { forkChild } from './child.ts';
import type { LoopReport } from './loop-watch.ts';

export interface ProbeTarget { instance: number; endpoint: Endpoint; url: string }

export interface Prober {
  /** Every answer so far, `sentAt` in this process's performance.now() frame. */
  readonly samples: Sample[];
  /** The prober's own event loop since the last call (loop-watch.ts). */
  loop(): Promise<LoopReport>;
  stop(): Promise<void>;
}

/** `/healthz` and `/readyz` of every instance, called every `pauseMs` from a process of its own (prober-process.ts). */
export async function startProber(urls: readonly string[], pauseMs = 20): Promise<Prober> {
  const targets: ProbeTarget[] = urls.flatMap((url, instance) => (['healthz', 'readyz'] as const).map((endpoint) => ({ instance, endpoint, url: `${url}/${endpoint}` })));
  const { child } = await forkChild(new URL('./prober-process.ts', import.meta.url), { targets, pauseMs });
  const samples: Sample[] = [];
  child.onEvent((event) => {
    const s = event as { instance: number; endpoint: Endpoint; at: number; ms: number; status: number };
    samples.push({ endpoint: s.endpoint, instance: s.instance, sentAt: s.at - performance.timeOrigin, ms: s.ms, status: s.status, retryAfter: null });
  });
  return { samples, loop: () => child.ask({ op: 'loop' }), stop: () => child.close() };
}
