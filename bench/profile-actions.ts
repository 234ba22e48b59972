/**
 * CPU profile of the action round trip (not a benchmark: no `run()` export, so bench/run.ts
 * skips it, and it does nothing on import).
 *
 *   BENCH_DURATION=5 node --import tsx bench/profile-actions.ts [memory-htmx|memory-json|jsonl-htmx] [top]
 *   PROFILE=0 … (no profiler: just the rate and the server's CPU time per round trip)
 *   HEAP=1 … (no CPU profiler: what the server allocates per round trip during the measured run,
 *     by allocating function and by our own functions inclusive, from V8's sampling heap profiler
 *     with collected objects kept; this build only)
 *   BENCH_SERVER_FLAGS='--trace-gc …' … (node flags for the server, e.g. to see its collections)
 *   PROFILE_BUILD=<commit or path> … (profile that build's server instead, same client; see
 *     bench/_other-build.ts: a commit is checked out in a temporary worktree, removed afterwards)
 *
 *   node --import tsx bench/profile-actions.ts diff A.json[,A2.json…] B.json[,B2.json…] [top]
 *     (saved summaries side by side, µs per round trip; several runs of one build are averaged)
 *
 * Starts bench/_http-actions-server.ts with `--cpu-prof` (profile in .scratch/prof/), drives one
 * case of bench/http-actions.ts against it, stops the server and prints the server's busy time
 * during the measured run, in µs per round trip, split by function (self), by file or package
 * (self) and by our own functions (inclusive); the summary is saved beside the profile as JSON,
 * for `diff`. The hello-world server runs in the same child but receives no traffic here.
 */
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { cpuSeconds, prepare, runCannonOn, serverRevs, startServers } from './http-actions.ts';
import { openBuild } from './_other-build.ts';

interface ProfileNode { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }
interface Profile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }

/** The profiled build's file URLs are shown relative to its root. */
let ROOT = pathToFileURL(resolve('.')).href + '/';

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

interface Summary { rt: number; busyUs: number; byArea: Record<string, number>; self: Record<string, number>; inclusive: Record<string, number> }

/** A label without its line number: the same function in two builds (for `diff`). */
function unlined(l: string): string {
  return l.replace(/:\d+$/, '');
}

/**
 * Busy time (idle excluded) by area, by self function and inclusive for src/ functions, counting
 * only the samples taken within `window` (the measured run, in µs of the monotonic clock both
 * process.hrtime and V8's profiler use: start-up, module compilation, slot preparation and the
 * warm-up stay out), in µs per round trip over `rt` round trips.
 */
function summarise(profile: Profile & { startTime: number }, window: [number, number], rt: number): Summary {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const time = new Map<number, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0;
    if (at >= window[0] && at <= window[1]) time.set(id, (time.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const self: Record<string, number> = {};
  const byArea: Record<string, number> = {};
  const inclusive: Record<string, number> = {};
  let busy = 0;
  for (const [id, t] of time) {
    const node = nodes.get(id)!;
    if (node.callFrame.functionName === '(idle)') continue;
    busy += t;
    self[label(node)] = (self[label(node)] ?? 0) + t / rt;
    byArea[area(node)] = (byArea[area(node)] ?? 0) + t / rt;
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const l = label(nodes.get(cur)!);
      if (seen.has(l)) continue;
      seen.add(l);
      inclusive[l] = (inclusive[l] ?? 0) + t / rt;
    }
  }
  return { rt, busyUs: busy / rt, byArea, self, inclusive };
}

function report(s: Summary, top = 30): string[] {
  const row = (t: number): string => `${((100 * t) / s.busyUs).toFixed(1).padStart(5)}% ${t.toFixed(1).padStart(6)} µs`;
  const list = (m: Record<string, number>, n: number, keep: (k: string) => boolean = () => true): string[] =>
    Object.entries(m).filter(([k]) => keep(k)).sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, t]) => `${row(t)}  ${k}`);
  return [
    `measured run: ${s.rt} round trips, server busy ${s.busyUs.toFixed(1)} µs per round trip (profiler on; % of busy time, µs per round trip)`,
    '', '-- self time by area', ...list(s.byArea, 25),
    '', '-- self time by function', ...list(s.self, top),
    '', '-- inclusive time, src/ functions', ...list(s.inclusive, top, (k) => / src\//.test(k)),
  ];
}

/** Two summaries side by side (µs per round trip), largest differences first; lines ignored in labels. */
function diff(a: Summary, b: Summary, top = 30): string[] {
  const merge = (m: Record<string, number>): Map<string, number> => {
    const out = new Map<string, number>();
    for (const [k, t] of Object.entries(m)) out.set(unlined(k), (out.get(unlined(k)) ?? 0) + t);
    return out;
  };
  const table = (title: string, ma: Record<string, number>, mb: Record<string, number>, keep: (k: string) => boolean = () => true): string[] => {
    const [x, y] = [merge(ma), merge(mb)];
    const keys = [...new Set([...x.keys(), ...y.keys()])].filter(keep);
    const rows = keys.map((k) => [k, x.get(k) ?? 0, y.get(k) ?? 0] as const).sort((p, q) => Math.abs(q[1] - q[2]) - Math.abs(p[1] - p[2])).slice(0, top);
    return ['', `-- ${title}: A µs, B µs, A − B (per round trip)`, ...rows.map(([k, p, q]) => `${p.toFixed(1).padStart(7)} ${q.toFixed(1).padStart(7)} ${(p - q >= 0 ? '+' : '') + (p - q).toFixed(1).padStart(6)}  ${k}`)];
  };
  return [
    `A: ${a.busyUs.toFixed(1)} µs busy per round trip (${a.rt} round trips); B: ${b.busyUs.toFixed(1)} µs (${b.rt}); A − B ${(a.busyUs - b.busyUs).toFixed(1)} µs`,
    ...table('self time by area', a.byArea, b.byArea),
    ...table('self time by function', a.self, b.self),
    ...table('inclusive time, src/ functions', a.inclusive, b.inclusive, (k) => / src\//.test(k)),
  ];
}

async function main(): Promise<void> {
  const which = process.argv[2] ?? 'memory-htmx';
  const [store, mode] = which.split('-') as ['memory' | 'jsonl', 'htmx' | 'json'];
  const dir = resolve('.scratch/prof');
  const started = Date.now();
  const heap = process.env.HEAP === '1';
  const profile = process.env.PROFILE !== '0' && !heap;
  if (profile) mkdirSync(dir, { recursive: true });
  if (heap && process.env.PROFILE_BUILD) throw new Error('HEAP=1 samples this build only (another build\'s server has no sampler)');
  const other = process.env.PROFILE_BUILD ? openBuild(process.env.PROFILE_BUILD) : undefined;
  let servers: Awaited<ReturnType<typeof startServers>> | undefined;
  const duration = Number(process.env.BENCH_DURATION ?? 10);
  const window: [number, number] = [0, 0];
  let done = 0;
  try {
    if (other) ROOT = pathToFileURL(other.root).href + '/';
    const flags = (process.env.BENCH_SERVER_FLAGS ?? '').split(' ').filter((f) => f !== '');
    servers = await startServers([...flags, ...(profile ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : [])], heap ? { BENCH_HEAP_SAMPLING: '1' } : {}, other?.root);
    const base = `http://127.0.0.1:${servers.ports[store]}`;
    const { cookie, slots } = await prepare(base);
    await runCannonOn(base, cookie, slots, mode, Math.min(2, duration));
    await serverRevs(base, cookie, slots); // resync the slots after the warm-up
    if (heap) await servers.ask('heap:start');
    const before = [cpuSeconds(servers.pid), cpuSeconds(servers.pid, true)];
    window[0] = Number(process.hrtime.bigint() / 1000n);
    const result = await runCannonOn(base, cookie, slots, mode, duration);
    window[1] = Number(process.hrtime.bigint() / 1000n);
    const sampled = heap ? ((await servers.ask('heap:stop')) as { heap: HeapProfile }).heap : undefined;
    const [all, main] = [cpuSeconds(servers.pid) - before[0]!, cpuSeconds(servers.pid, true) - before[1]!];
    done = result['2xx'] + result.non2xx;
    const us = (s: number): string => ((1e6 * s) / done).toFixed(0);
    process.stdout.write(`${other ? `${other.label}, ` : ''}${which}: ${result.requests.average.toFixed(0)} round trips/s (p99 ${result.latency.p99} ms, ${result.non2xx + result.errors} not 2xx);`
      + ` server CPU per round trip ${us(main)} µs main thread, ${us(all)} µs all threads${profile ? ' (profiler on)' : ''}\n`);
    if (sampled) process.stdout.write(`${heapReport(sampled, done, Number(process.argv[3] ?? 30)).join('\n')}\n`);
  } finally {
    await servers?.stop();
    other?.dispose();
  }
  if (!profile) return;
  const file = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).map((f) => join(dir, f))
    .filter((f) => statSync(f).mtimeMs >= started && /\.0\.\d+\.cpuprofile$/.test(f)) // thread 0: the main thread, not tsx's loader worker
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
  if (!file) throw new Error('no CPU profile written');
  const summary = summarise(JSON.parse(readFileSync(file, 'utf8')) as Profile & { startTime: number }, window, done);
  const saved = file.replace(/\.cpuprofile$/, `.${(other?.label ?? 'current').replace(/[^\w.-]+/g, '_')}.${which}.json`);
  writeFileSync(saved, JSON.stringify(summary));
  process.stdout.write(`${file}\nsummary: ${saved}\n${report(summary, Number(process.argv[3] ?? 30)).join('\n')}\n`);
}

interface HeapNode { id: number; callFrame: ProfileNode['callFrame']; selfSize: number; children: HeapNode[] }
interface HeapProfile { head: HeapNode; samples: Array<{ size: number; nodeId: number }> }

/** Bytes allocated per round trip (sampled) by allocating function, and inclusive for src/ functions. */
function heapReport(profile: HeapProfile, rt: number, top: number): string[] {
  const self: Record<string, number> = {};
  const inclusive: Record<string, number> = {};
  let total = 0;
  const walk = (node: HeapNode, path: string[]): number => {
    const l = label({ id: node.id, callFrame: node.callFrame });
    let bytes = node.selfSize;
    self[l] = (self[l] ?? 0) + node.selfSize;
    for (const child of node.children) bytes += walk(child, [...path, l]);
    if (!path.includes(l)) inclusive[l] = (inclusive[l] ?? 0) + bytes; // a recursive function counted once
    return bytes;
  };
  total = walk(profile.head, []);
  const row = (b: number): string => `${((100 * b) / total).toFixed(1).padStart(5)}% ${(b / rt / 1024).toFixed(2).padStart(7)} KB`;
  const list = (m: Record<string, number>, keep: (k: string) => boolean = () => true): string[] =>
    Object.entries(m).filter(([k]) => keep(k)).sort((a, b) => b[1] - a[1]).slice(0, top).map(([k, b]) => `${row(b)}  ${k}`);
  return [
    `allocated (sampled) during the measured run: ${(total / rt / 1024).toFixed(1)} KB per round trip over ${rt} round trips`,
    '', '-- by allocating function', ...list(self),
    '', '-- inclusive, src/ functions', ...list(inclusive, (k) => / src\//.test(k)),
  ];
}

/** Several summaries of one build as one: each figure the mean of theirs (µs per round trip). */
function mean(summaries: Summary[]): Summary {
  const avg = (pick: (s: Summary) => Record<string, number>): Record<string, number> => {
    const out: Record<string, number> = {};
    for (const s of summaries) for (const [k, t] of Object.entries(pick(s))) out[k] = (out[k] ?? 0) + t / summaries.length;
    return out;
  };
  return {
    rt: summaries.reduce((n, s) => n + s.rt, 0), busyUs: summaries.reduce((n, s) => n + s.busyUs, 0) / summaries.length,
    byArea: avg((s) => s.byArea), self: avg((s) => s.self), inclusive: avg((s) => s.inclusive),
  };
}

/** `diff A.json[,A2.json…] B.json[,B2.json…] [top]`: saved summaries (see main) side by side, several of one build averaged. */
function diffMain(): void {
  const [a, b] = [process.argv[3]!, process.argv[4]!].map((list) => mean(list.split(',').map((f) => JSON.parse(readFileSync(f, 'utf8')) as Summary)));
  process.stdout.write(`A: ${process.argv[3]}\nB: ${process.argv[4]}\n${diff(a!, b!, Number(process.argv[5] ?? 30)).join('\n')}\n`);
}

if (import.meta.url === pathToFileURL(resolve(process.argv[1] ?? '')).href) {
  if (process.argv[2] === 'diff') diffMain();
  else await main();
}
