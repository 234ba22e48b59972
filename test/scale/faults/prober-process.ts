import { serveParent } from './child.ts';
import { watchLoop } from './loop-watch.ts';
import type { ProbeTarget } from './prober.ts';

/*
 * The orchestrator's prober in a process of its own (forked by prober.ts), reporting its own
 * event loop too: an answer it read late because this process was not running is not the
 * instance's time.
 */
const { targets, pauseMs } = JSON.parse(process.argv[2]!) as { targets: ProbeTarget[]; pauseMs: number };
const loop = watchLoop();
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
let stopping = false;

async function call({ instance, endpoint, url }: ProbeTarget): Promise<void> {
  while (!stopping) {
    const started = performance.now();
    let status = 0;
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
      await res.arrayBuffer();
      status = res.status;
    } catch {
      status = 0;
    }
    process.send!({ event: { instance, endpoint, at: performance.timeOrigin + started, ms: performance.now() - started, status } });
    await sleep(pauseMs);
  }
}

const calls = targets.map(call);
serveParent<{ op: 'loop' | 'close' }>(async (question) => {
  if (question.op === 'loop') return loop.take();
  stopping = true;
  await Promise.all(calls);
  return null;
}, true);
