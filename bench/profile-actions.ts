/**
 * CPU profile of the action round trip (not a benchmark: no `run()` export, so bench/run.ts
 * skips it, and it does nothing on import).
 *
 *   BENCH_DURATION=5 node --import tsx bench/profile-actions.ts [memory-htmx|memory-json|jsonl-htmx] [top]
 *   PROFILE=0 … (no profiler: just the rate and the server's CPU time per round trip)
 *
 * Starts bench/_http-actions-server.ts with `--cpu-prof` (profile in .scratch/prof/), drives one
 * case of bench/http-actions.ts against it, stops the server and prints the server's busy time
 * split by function (self), by file or package (self) and by our own functions (inclusive).
 * The hello-world server runs in the same child but receives no traffic here.
 */
import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { prepare, runCannonOn, serverRevs, startServers } from './http-actions.ts';

interface ProfileNode { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }
interface Profile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }

const ROOT = pathToFileURL(resolve('.')).href + '/';

function label(n: ProfileNode): string {
  const url = n.callFrame.url.replace(ROOT, '').replace(/^.*node_modules\//, 'nm:');
  return `${n.callFrame.functionName || '(anonymous)'} ${url}${url ? `:${n.callFrame.lineNumber + 1}` : ''}`;
}

function area(n: ProfileNode): string {
  const url = n.callFrame.url.replace(ROOT, '');
  if (url === '') return n.callFrame.functionName; // (garbage collector), (program), natives
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return `nm:${pkg[1]}`;
  if (url.startsWith('node:')) return url;
  return url.replace(/^src\/([^/]+(?:\/html)?).*$/, 'src/$1');
}

/** Busy time (idle excluded) by self function, by area and inclusive for src/ functions. */
function summarise(profile: Profile, top = 30): string[] {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const time = new Map<number, number>();
  profile.samples.forEach((id, i) => time.set(id, (time.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const self = new Map<string, number>();
  const byArea = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let busy = 0;
  for (const [id, t] of time) {
    const node = nodes.get(id)!;
    if (node.callFrame.functionName === '(idle)') continue;
    busy += t;
    self.set(label(node), (self.get(label(node)) ?? 0) + t);
    byArea.set(area(node), (byArea.get(area(node)) ?? 0) + t);
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const l = label(nodes.get(cur)!);
      if (seen.has(l)) continue;
      seen.add(l);
      inclusive.set(l, (inclusive.get(l) ?? 0) + t);
    }
  }
  const pct = (t: number): string => `${((100 * t) / busy).toFixed(1).padStart(5)}%`;
  const list = (m: Map<string, number>, n: number, keep: (k: string) => boolean = () => true): string[] =>
    [...m].filter(([k]) => keep(k)).sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, t]) => `${pct(t)}  ${k}`);
  return [
    `server busy ${(busy / 1e6).toFixed(2)} s (percentages are of busy time)`,
    '', '-- self time by area', ...list(byArea, 25),
    '', '-- self time by function', ...list(self, top),
    '', '-- inclusive time, src/ functions', ...list(inclusive, top, (k) => / src\//.test(k)),
  ];
}

/** User + system CPU of a process, all threads, and of its main thread (Linux /proc; 0 elsewhere). */
function cpuSeconds(pid: number, mainThread = false): number {
  try {
    const fields = readFileSync(mainThread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in clock ticks (USER_HZ = 100)
  } catch {
    return 0;
  }
}

async function main(): Promise<void> {
  const which = process.argv[2] ?? 'memory-htmx';
  const [store, mode] = which.split('-') as ['memory' | 'jsonl', 'htmx' | 'json'];
  const dir = resolve('.scratch/prof');
  const started = Date.now();
  const profile = process.env.PROFILE !== '0';
  if (profile) mkdirSync(dir, { recursive: true });
  const servers = await startServers(profile ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : []);
  const duration = Number(process.env.BENCH_DURATION ?? 10);
  try {
    const base = `http://127.0.0.1:${servers.ports[store]}`;
    const { cookie, slots } = await prepare(base);
    await runCannonOn(base, cookie, slots, mode, Math.min(2, duration));
    await serverRevs(base, cookie, slots); // resync the slots after the warm-up
    const before = [cpuSeconds(servers.pid), cpuSeconds(servers.pid, true)];
    const result = await runCannonOn(base, cookie, slots, mode, duration);
    const [all, main] = [cpuSeconds(servers.pid) - before[0]!, cpuSeconds(servers.pid, true) - before[1]!];
    const done = result['2xx'] + result.non2xx;
    const us = (s: number): string => ((1e6 * s) / done).toFixed(0);
    process.stdout.write(`${which}: ${result.requests.average.toFixed(0)} round trips/s (p99 ${result.latency.p99} ms, ${result.non2xx + result.errors} not 2xx);`
      + ` server CPU per round trip ${us(main)} µs main thread, ${us(all)} µs all threads${profile ? ' (profiler on)' : ''}\n`);
  } finally {
    await servers.stop();
  }
  if (!profile) return;
  const file = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).map((f) => join(dir, f))
    .filter((f) => statSync(f).mtimeMs >= started && /\.0\.\d+\.cpuprofile$/.test(f)) // thread 0: the main thread, not tsx's loader worker
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
  if (!file) throw new Error('no CPU profile written');
  process.stdout.write(`${file}\n${summarise(JSON.parse(readFileSync(file, 'utf8')) as Profile, Number(process.argv[3] ?? 30)).join('\n')}\n`);
}

if (import.meta.url === pathToFileURL(resolve(process.argv[1] ?? '')).href) await main();
