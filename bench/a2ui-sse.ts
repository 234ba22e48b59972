import { execSync, fork, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

/**
 * A2UI SSE fan-out: N concurrent SSE clients (N = 2,000 and 10,000) follow one conversation
 * through `GET /a2ui/c/{cid}/stream` (bearer token, as external A2UI clients do), against the
 * product as `npm start` composes it, in a child process. Each round POSTs one form.submit
 * userAction to `/a2ui/c/{cid}/events` (shared ingress, log append, compileA2uiUpdate, hub) and
 * times, per client, the moment the resulting update (the submitted name, a unique marker)
 * arrives on its socket.
 *
 * Reported per N: per-client delivery time (p50/p99 over clients × rounds); the time until
 * *all* N clients had it (p50/p99 over rounds: the goal's metric); the POST's own round trip;
 * the server's fan-out (from hub.publish until every stream has written the batch, in the
 * event-loop turn after the publish) and that per connection; memory per connection: (value with N streams
 * open and initialised − value before) / N, after a full GC, for RSS and for JS heap + external;
 * and the 1-minute load average when the row started (the machine is shared).
 * Goal (issue 23): 10,000 clients on one instance, all-clients p99 ≤ 250 ms, ≤ 32 KB RSS per
 * connection.
 *
 * At the largest N the same measure runs again with the write path before issue 23
 * (BENCH_SSE_SOCKET_WRITES=0 in the server: every frame through the ServerResponse), and the
 * ratios against it are printed: the baseline measured in the same run.
 *
 * The clients share the machine (raw sockets: node's http client costs several times more per
 * chunk and would dominate). Needs `ulimit -n` above N + a margin (checked; 20,000 here).
 * BENCH_SSE_SIZES=500,2000 and BENCH_SSE_ROUNDS=10 shorten a run; BENCH_SSE_BASELINE=0 skips
 * the baseline, BENCH_SSE_TWO=0 the two-instance part; BENCH_SSE_PROFILE=DIR writes a CPU
 * profile of the server.
 */
const SIZES = (process.env.BENCH_SSE_SIZES ?? '2000,10000').split(',').map(Number);
const ROUNDS = Number(process.env.BENCH_SSE_ROUNDS ?? 30);
const BASELINE = process.env.BENCH_SSE_BASELINE !== '0';
const TWO_INSTANCES = process.env.BENCH_SSE_TWO !== '0';
const GOAL = { clients: 10_000, allP99Ms: 250, kbPerConn: 32 };
const CONNECT_BATCH = 100;

interface Stats { spans?: number; rss: number; heapUsed: number; external: number; hub: { subscribers: number; queuedBytes: number }; publishMs: number[] }

export class Server {
  private next = 0;
  private readonly waiting = new Map<number, (s: Stats) => void>();
  constructor(readonly child: ChildProcess, readonly port: number) {
    child.on('message', (m: { stats?: number; cpu?: number; us?: number } & Stats) => {
      if (m.stats !== undefined) this.waiting.get(m.stats)?.(m);
      if (m.cpu !== undefined) this.cpuWaiting.get(m.cpu)?.(m.us!);
    });
  }
  private readonly cpuWaiting = new Map<number, (us: number) => void>();
  /** The server's CPU time so far (user + system, µs), read without a GC (bench/telemetry.ts). */
  cpu(): Promise<number> {
    const id = (this.next += 1);
    return new Promise((resolve) => {
      this.cpuWaiting.set(id, resolve);
      this.child.send({ cpu: id });
    });
  }
  /** Memory, hub counters, publish timings, and (bench/telemetry.ts) the spans exported so far. */
  stats(): Promise<Stats> {
    const id = (this.next += 1);
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.child.send({ stats: id });
    });
  }
  stop(): Promise<void> {
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.kill('SIGTERM');
    return exited;
  }
}

/** `execPath`: another Node's binary for the server (bench/telemetry.ts runs two Nodes in one run). */
export async function startServer(env: Record<string, string> = {}, execPath?: string): Promise<Server> {
  const child = fork(fileURLToPath(new URL('./_a2ui-sse-server.ts', import.meta.url)), [], {
    ...(execPath === undefined ? {} : { execPath }),
    execArgv: ['--import', 'tsx', '--expose-gc', ...(process.env.BENCH_SSE_PROFILE ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_SSE_PROFILE] : [])], env: { ...process.env, ...env, SURFACER_BENCH_SERVER: '1' }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m) => resolve((m as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
  });
  return new Server(child, port);
}

export interface Target { base: string; cid: string; token: string }

/** GET / (session + conversation), one planner turn, and the token from the A2UI page's connect box. */
export async function prepare(base: string): Promise<Target> {
  const created = await fetch(`${base}/`, { redirect: 'manual' });
  const cookie = created.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  const path = created.headers.get('location')!;
  const page = await (await fetch(`${base}${path}`, { headers: { cookie } })).text();
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page)![1]!;
  const turn = await fetch(`${base}${path}/messages`, {
    method: 'POST', headers: { cookie, origin: base, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({ _csrf: csrf, text: 'create a character card' }),
  });
  if (turn.status !== 200) throw new Error(`turn answered ${turn.status}`);
  const cid = path.slice(3);
  const a2uiPage = await (await fetch(`${base}/a2ui/c/${cid}`, { headers: { cookie } })).text();
  const token = /id="a2ui-token"[^>]*value="([^"]+)"/.exec(a2uiPage)![1]!;
  return { base, cid, token };
}

/**
 * One SSE client on a raw socket (node's http client costs several times more per chunk, and
 * with 2,000 streams in one process that cost, not the server, would be measured). It only
 * notices the init's end and each round's marker; a marker split across reads is found through
 * the previous read's tail.
 */
const BEGIN = Buffer.from('"beginRendering"');

class Client {
  private tail: Buffer = Buffer.alloc(0);
  private marker: Buffer = Buffer.alloc(0);
  initialised = false;
  seenAt = 0;
  private socket: net.Socket | undefined;

  open(t: Target, port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1');
      this.socket = socket;
      let headerChecked = false;
      socket.once('error', reject);
      socket.once('connect', () => {
        socket.write(`GET /a2ui/c/${t.cid}/stream HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${t.token}\r\nAccept: text/event-stream\r\n\r\n`);
      });
      socket.on('data', (chunk: Buffer) => {
        if (!headerChecked) {
          headerChecked = true;
          if (!chunk.subarray(0, 12).toString('latin1').startsWith('HTTP/1.1 200')) return reject(new Error(`stream answered ${chunk.subarray(0, 40).toString()}`));
          resolve();
        }
        this.onData(chunk);
      });
    });
  }

  private onData(chunk: Buffer): void {
    if (!this.initialised && (chunk.includes(BEGIN) || Buffer.concat([this.tail, chunk.subarray(0, 64)]).includes(BEGIN))) this.initialised = true;
    if (this.marker.length > 0 && this.seenAt === 0
      && (chunk.includes(this.marker) || Buffer.concat([this.tail, chunk.subarray(0, 64)]).includes(this.marker))) {
      this.seenAt = performance.now();
    }
    this.tail = chunk.length >= 64 ? chunk.subarray(chunk.length - 64) : Buffer.concat([this.tail, chunk]).subarray(-64);
  }

  expect(marker: string): void {
    this.marker = Buffer.from(marker);
    this.seenAt = 0;
    this.tail = Buffer.alloc(0);
  }

  close(): void {
    this.socket?.destroy();
  }
}

async function waitFor(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!check()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 1));
  }
}

/** The submit button's nonce and rev, read from the current snapshot. */
async function currentAction(t: Target): Promise<{ nonce: string; rev: string; surfaceId: string }> {
  const text = await (await fetch(`${t.base}/a2ui/c/${t.cid}/snapshot.jsonl`, { headers: { Authorization: `Bearer ${t.token}` } })).text();
  for (const line of text.trimEnd().split('\n')) {
    const message = JSON.parse(line) as { surfaceUpdate?: { surfaceId: string; components: Array<{ component: Record<string, { action?: { name: string; context: Array<{ key: string; value: { literalString?: string } }> } }> }> } };
    for (const c of message.surfaceUpdate?.components ?? []) {
      const action = c.component.Button?.action;
      if (action?.name !== 'form.submit') continue;
      const literal = (key: string): string => action.context.find((e) => e.key === key)!.value.literalString!;
      return { nonce: literal('nonce'), rev: literal('rev'), surfaceId: message.surfaceUpdate!.surfaceId };
    }
  }
  throw new Error('no form.submit button in the snapshot');
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

function fdLimit(): number {
  try {
    return Number(execSync('ulimit -n', { shell: '/bin/sh', encoding: 'utf8' }).trim());
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

export interface Row { load: number; heapPerConn: number; publishP50: number; n: number; clientP50: number; clientP99: number; allP50: number; allP99: number; postP50: number; kbPerConn: number; rounds: number }

/** Every server's stats, summed (the memory and subscriber counts of all instances together). */
async function statsOf(servers: readonly Server[]): Promise<Stats> {
  const all = await Promise.all(servers.map((s) => s.stats()));
  return {
    rss: all.reduce((sum, s) => sum + s.rss, 0), heapUsed: all.reduce((sum, s) => sum + s.heapUsed, 0),
    external: all.reduce((sum, s) => sum + s.external, 0), publishMs: all.flatMap((s) => s.publishMs),
    hub: { subscribers: all.reduce((sum, s) => sum + s.hub.subscribers, 0), queuedBytes: all.reduce((sum, s) => sum + s.hub.queuedBytes, 0) },
  };
}

/** Clients are split evenly over `servers`; every submit goes to the first. */
export async function measure(servers: readonly Server[], t: Target, n: number): Promise<Row> {
  const load = os.loadavg()[0]!;
  const before = await statsOf(servers);
  const clients: Client[] = [];
  for (let i = 0; i < n; i += CONNECT_BATCH) {
    const batch = Array.from({ length: Math.min(CONNECT_BATCH, n - i) }, () => new Client());
    await Promise.all(batch.map((c, k) => c.open(t, servers[(i + k) % servers.length]!.port)));
    clients.push(...batch);
  }
  await waitFor(() => clients.every((c) => c.initialised), 30_000, 'every init');
  const connected = await statsOf(servers); // also clears the publish timings of the inits
  if (connected.hub.subscribers !== n) throw new Error(`${connected.hub.subscribers} subscribers, expected ${n}`);

  const perClient: number[] = [];
  const all: number[] = [];
  const posts: number[] = [];
  for (let round = 0; round < ROUNDS + 3; round += 1) {
    const { nonce, rev, surfaceId } = await currentAction(t);
    const marker = `Bench${n}r${round}x${Math.random().toString(36).slice(2, 8)}`;
    for (const c of clients) c.expect(marker);
    const body = JSON.stringify({
      userAction: {
        name: 'form.submit', surfaceId, sourceComponentId: 'main.a0-form_submit.Button', timestamp: new Date().toISOString(),
        context: { name: marker, personality: 'Measured, patient.', tags: 'bench', nonce, rev },
      },
    });
    const t0 = performance.now();
    const res = await fetch(`${t.base}/a2ui/c/${t.cid}/events`, {
      method: 'POST', body,
      headers: { Authorization: `Bearer ${t.token}`, 'Content-Type': 'application/json', 'Idempotency-Key': marker },
    });
    const posted = performance.now() - t0;
    if (res.status !== 200) throw new Error(`submit answered ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
    await waitFor(() => clients.every((c) => c.seenAt > 0), 10_000, `round ${round} on every client`);
    if (round < 3) continue; // warm-up
    let last = 0;
    for (const c of clients) {
      perClient.push(c.seenAt - t0);
      last = Math.max(last, c.seenAt - t0);
    }
    all.push(last);
    posts.push(posted);
  }
  const fanOut = (await statsOf(servers)).publishMs.sort((a, b) => a - b);
  for (const c of clients) c.close();
  const deadline = performance.now() + 10_000;
  while ((await statsOf(servers)).hub.subscribers > 0 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 50));

  perClient.sort((a, b) => a - b);
  all.sort((a, b) => a - b);
  posts.sort((a, b) => a - b);
  return {
    n, rounds: ROUNDS, load,
    clientP50: percentile(perClient, 50), clientP99: percentile(perClient, 99),
    allP50: percentile(all, 50), allP99: percentile(all, 99), postP50: percentile(posts, 50), publishP50: percentile(fanOut, 50),
    kbPerConn: (connected.rss - before.rss) / n / 1024,
    heapPerConn: (connected.heapUsed + connected.external - before.heapUsed - before.external) / n / 1024,
  };
}

const HEADER = '| clients | write path | per-client p50 ms | per-client p99 ms | all clients p50 ms | all clients p99 ms | POST p50 ms | server fan-out p50 ms | fan-out / connection | server RSS / connection | JS heap + external / connection | load avg |\n'
  + '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n';

/** One size on a fresh server (its memory baseline is not what a previous size left behind). */
async function single(n: number, socketWrites: boolean): Promise<Row> {
  const server = await startServer(socketWrites ? {} : { BENCH_SSE_SOCKET_WRITES: '0' });
  try {
    const t = await prepare(`http://127.0.0.1:${server.port}`);
    return await measure([server], t, n);
  } finally {
    await server.stop();
  }
}

export async function run(): Promise<void> {
  const limit = fdLimit();
  process.stdout.write(`${new Date().toISOString().slice(0, 10)} · ${os.cpus()[0]?.model ?? 'cpu'} (${os.cpus().length} vCPU) · node ${process.version} · ulimit -n ${limit}\n\n`);
  process.stdout.write(HEADER);
  const rows = new Map<number, Row>();
  for (const n of SIZES) {
    if (n + 64 > limit) {
      process.stdout.write(`| ${n} | skipped: ulimit -n ${limit} is too low (run \`ulimit -n ${n * 2 + 256}\` first) | | | | | | | | | | |\n`);
      continue;
    }
    const row = await single(n, true);
    rows.set(n, row);
    printRow(row, 'socket (shared frames)');
  }
  const largest = Math.max(...rows.keys());
  let baseline: Row | undefined;
  if (BASELINE && rows.size > 0) {
    baseline = await single(largest, false);
    printRow(baseline, 'response (before issue 23)');
  }
  process.stdout.write(`\n${ROUNDS} measured rounds per row (after 3 warm-up rounds), a fresh server per row.\n`);
  const top = rows.get(largest);
  if (top !== undefined && baseline !== undefined) {
    process.stdout.write(`Same run, ${largest.toLocaleString('en')} clients, socket writes against the response path: all-clients p99 ×${(top.allP99 / baseline.allP99).toFixed(2)}, p50 ×${(top.allP50 / baseline.allP50).toFixed(2)}, server fan-out p50 ×${(top.publishP50 / baseline.publishP50).toFixed(2)}.\n`);
  }
  const goal = rows.get(GOAL.clients);
  if (goal !== undefined) {
    const met = goal.allP99 <= GOAL.allP99Ms && goal.kbPerConn <= GOAL.kbPerConn;
    process.stdout.write(`Goal at ${GOAL.clients.toLocaleString('en')} clients on one instance (all clients p99 ≤ ${GOAL.allP99Ms} ms, RSS ≤ ${GOAL.kbPerConn} KB per connection): ${met ? 'met' : 'NOT met'} (${goal.allP99.toFixed(1)} ms, ${goal.kbPerConn.toFixed(1)} KB; load average ${goal.load.toFixed(2)} at the start).\n`);
  }
  if (TWO_INSTANCES && rows.size > 0) await twoInstances(largest, limit);
}

function printRow(r: Row, path: string): void {
  process.stdout.write(`| ${r.n.toLocaleString('en')} | ${path} | ${r.clientP50.toFixed(1)} | ${r.clientP99.toFixed(1)} | ${r.allP50.toFixed(1)} | ${r.allP99.toFixed(1)} | ${r.postP50.toFixed(1)} | ${r.publishP50.toFixed(1)} | ${((r.publishP50 * 1000) / r.n).toFixed(1)} µs | ${r.kbPerConn.toFixed(1)} KB | ${r.heapPerConn.toFixed(1)} KB | ${r.load.toFixed(2)} |\n`);
}

/**
 * The same fan-out over two instances on one Redis (issue 10): the clients split evenly, every
 * submit through the first instance; the second learns of it by following the conversation's
 * log (pub/sub notification, then a range read), folds the entry and publishes the same update.
 */
async function twoInstances(n: number, limit: number): Promise<void> {
  process.stdout.write(`\nTwo instances on Redis (AOF, appendfsync always), ${n.toLocaleString('en')} clients split evenly, submits through instance 1:\n\n`);
  process.stdout.write(HEADER);
  if (n + 64 > limit) {
    process.stdout.write(`| ${n} | skipped: ulimit -n ${limit} is too low | | | | | | | | | | |\n`);
    return;
  }
  const { startRedis } = await import('../test/support/redis-server.ts');
  const redis = await startRedis();
  const env = { BENCH_REDIS_URL: redis.url, BENCH_REDIS_PREFIX: `sse${process.pid}:` };
  const servers = [await startServer(env), await startServer(env)];
  try {
    const t = await prepare(`http://127.0.0.1:${servers[0]!.port}`);
    printRow(await measure(servers, t, n), 'socket, two instances (RSS: both)');
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    await redis.stop();
  }
}
