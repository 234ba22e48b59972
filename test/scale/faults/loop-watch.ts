/*
 * What held a process's event loop: each late tick of a 5 ms timer is an interval the loop could
 * not run. The CPU time the process used meanwhile is its own work; the rest of the interval it
 * was not running at all (on a shared 2-core machine, the other processes had the cores). The
 * fault suite asserts the first and takes only the second out of the times it asserts: it is
 * neither an instance's doing nor the test's.
 */
export interface LoopReport {
  /** The longest the loop could not run, ms. */
  maxLateMs: number;
  /** The longest the process's own work (CPU time it used) held the loop, ms. */
  maxOwnMs: number;
  /** When the process was not running at all: `from`/`to` in epoch ms (comparable across processes). */
  notRunning: Array<{ from: number; to: number }>;
}

const TICK_MS = 5;

/** Starts watching this process's loop; `take()` reports since the previous take. */
export function watchLoop(): { take(): LoopReport } {
  let report: LoopReport = { maxLateMs: 0, maxOwnMs: 0, notRunning: [] };
  let last = performance.now();
  let lastCpu = process.cpuUsage();
  setInterval(() => {
    const now = performance.now();
    const cpu = process.cpuUsage();
    const late = now - last - TICK_MS;
    if (late > 1) {
      // CPU time of every thread of the process: its own work is overstated, never understated.
      const used = (cpu.user - lastCpu.user + cpu.system - lastCpu.system) / 1000;
      report.maxLateMs = Math.max(report.maxLateMs, late);
      report.maxOwnMs = Math.max(report.maxOwnMs, Math.min(late, used));
      if (late > used) report.notRunning.push({ from: performance.timeOrigin + now - (late - used), to: performance.timeOrigin + now });
    }
    last = now;
    lastCpu = cpu;
  }, TICK_MS).unref();
  return {
    take() {
      const since = report;
      report = { maxLateMs: 0, maxOwnMs: 0, notRunning: [] };
      return since;
    },
  };
}

/**
 * How long, of `from`…`to` (epoch ms), any of `reports`' processes was not running: the union of
 * their intervals (two processes off the CPU at once delayed an answer once, not twice).
 */
export function notRunningDuring(reports: readonly LoopReport[], from: number, to: number): number {
  const spans = reports.flatMap((r) => r.notRunning)
    .map((x) => [Math.max(x.from, from), Math.min(x.to, to)] as const)
    .filter(([a, b]) => b > a)
    .sort((x, y) => x[0] - y[0]);
  let sum = 0;
  let end = from;
  for (const [a, b] of spans) {
    if (b <= end) continue;
    sum += b - Math.max(a, end);
    end = b;
  }
  return sum;
}
