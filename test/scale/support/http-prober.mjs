// A prober in a process of its own, as an orchestrator's is: it calls each URL given (JSON on
// argv[2]: [{ instance, endpoint, url }], pause between calls argv[3] ms) in a loop of its own
// and prints one JSON line per answer: { instance, endpoint, at, ms, status }, `at` in epoch ms
// (performance.timeOrigin + now, comparable across processes). Its timings do not include the
// event-loop delays of the test process, where the instances and every other client run.
const targets = JSON.parse(process.argv[2]);
const pauseMs = Number(process.argv[3] ?? 20);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function loop({ instance, endpoint, url }) {
  for (;;) {
    const started = performance.now();
    let status = 0;
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
      await res.arrayBuffer();
      status = res.status;
    } catch {
      status = 0;
    }
    const ms = performance.now() - started;
    process.stdout.write(`${JSON.stringify({ instance, endpoint, at: performance.timeOrigin + started, ms, status })}\n`);
    await sleep(pauseMs);
  }
}

for (const target of targets) void loop(target);
