import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Worker } from 'node:worker_threads';
import { createDemoApp, createFileCardLibrary, createRecordCardLibrary, parseSavedCard } from '../src/app/index.ts';
import { createLocalBackend, createRedisBackend, type Backend } from '../src/backend/index.ts';
import { createJsonlStore } from '../src/conversation/index.ts';
import type { RunningServer } from '../src/host-html/index.ts';
import { createSurfacer } from '../src/server/index.ts';
import { HttpClient } from '../test/support/http-client.ts';
import { startProfiling, type Profiling } from './_long-conversation-profile.ts';
import { startRedis } from '../test/support/redis-server.ts';
import { hasRedisServer } from './_long-conversation-redis.ts';

/**
 * Issue 36: one conversation driven through the htmx host for N turns (LONG_TURNS, default
 * 10000), as `npm start` runs it (JSONL log with fsync, offline planner, the demo app with its
 * card library beside the log), over real HTTP on loopback the way a browser does: GET / (a new
 * conversation, session cookie), the page for its CSRF token, then POST /c/{cid}/messages with
 * HX-Request, four prompts in turn. Measured in one run:
 *  - turn latency p50/p99 at turns 1–100 and at the last 100;
 *  - cold load after a restart (a fresh createSurfacer on the same data directory): the first
 *    GET /c/{cid}, the largest event-loop delay meanwhile (monitorEventLoopDelay, 10 ms), and how
 *    long GET /healthz takes when asked meanwhile (a worker thread asks every 25 ms);
 *  - the page's weight, and the RSS/heap the one cached conversation adds (after gc);
 *  - with a redis-server binary: the same turns through instance A on Redis, then the cold
 *    load on a fresh instance B.
 * Bounded: each phase of turns stops at LONG_BUDGET_S seconds (default 240) and says so.
 * LONG_PROFILE=<dir>: CPU profiles (inspector, this thread) of the last LONG_PROFILE_TURNS
 * (default 200) JSONL turns and of the JSONL cold load; summarise with
 * `node --import tsx bench/_long-conversation-profile.ts <file>`. LONG_REDIS=0 skips Redis;
 * LONG_LOG=1 shows the server's warnings (an ignored checkpoint, a divergent fold) on stderr.
 */
const TURNS = Number(process.env.LONG_TURNS ?? 10_000);
const BUDGET_MS = Number(process.env.LONG_BUDGET_S ?? 240) * 1000;
const PROFILE_DIR = process.env.LONG_PROFILE;
const PROFILE_TURNS = Number(process.env.LONG_PROFILE_TURNS ?? 200);
const PROMPTS = ['create a character card', 'ask me something', 'show my saved cards', 'hello'] as const;
const SECRET = 'long-conversation-bench-secret-0123456789';

const stderrLogger = {
  info() {},
  warn(message: string, fields?: Record<string, unknown>) { process.stderr.write(`[server warn] ${message} ${JSON.stringify(fields ?? {})}\n`); },
  error(message: string, fields?: Record<string, unknown>) { process.stderr.write(`[server error] ${message} ${JSON.stringify(fields ?? {}, (_k, v: unknown) => (v instanceof Error ? v.message : v))}\n`); },
};

interface Instance { url: string; server: RunningServer; close(): Promise<void> }

function jsonlInstance(dataDir: string): Promise<Instance> {
  const backend = createLocalBackend(createJsonlStore({ dir: dataDir }));
  const cards = createFileCardLibrary({ file: join(dataDir, 'card-library', 'cards.jsonl') });
  return start(backend, cards);
}

function redisInstance(url: string, prefix: string): Promise<Instance> {
  const backend = createRedisBackend({ url, prefix });
  return start(backend, createRecordCardLibrary(backend.records('card-library', parseSavedCard)));
}

async function start(backend: Backend, cards: ReturnType<typeof createFileCardLibrary> | ReturnType<typeof createRecordCardLibrary>): Promise<Instance> {
  const surfacer = createSurfacer({
    app: createDemoApp({ cards }), planner: 'offline', backend, env: {}, sessionSecret: SECRET,
    // LONG_LOG=1: the server's warnings and errors (e.g. an ignored checkpoint) on stderr.
    ...(process.env.LONG_LOG === '1' ? { logger: stderrLogger } : {}),
  });
  const server = await surfacer.listen({ port: 0, hostname: '127.0.0.1' });
  return { url: server.url, server, async close() { await server.close(); await cards.close(); } };
}

const percentile = (values: readonly number[], p: number): number => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

/** global.gc if exposed (--expose-gc), else the same function through V8's flag at run time. */
function findGc(): (() => void) | undefined {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  try {
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc') as () => void;
  } catch {
    return undefined;
  }
}
const gc = findGc();
function memory(): NodeJS.MemoryUsage {
  if (gc) { gc(); gc(); }
  return process.memoryUsage();
}

interface Conversation { client: HttpClient; cid: string; base: string; csrf: string }

async function newConversation(url: string): Promise<Conversation> {
  const client = new HttpClient(url);
  const first = await client.get('/');
  if (first.status !== 303) throw new Error(`GET / answered ${first.status}`);
  await first.arrayBuffer();
  const base = first.headers.get('location')!;
  const page = await (await client.get(base)).text();
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page)?.[1];
  if (csrf === undefined) throw new Error('no CSRF token on the page');
  return { client, cid: base.slice(3), base, csrf };
}

interface TurnRun { done: number; latencies: number[]; stoppedEarly: boolean; seconds: number }

/** Posts turns as htmx does; `profileFrom`: start a CPU profile before that turn (0-based). */
async function driveTurns(c: Conversation, label: string, profileFrom?: { at: number; file: string }): Promise<TurnRun> {
  const latencies: number[] = [];
  const began = performance.now();
  let profiling: Profiling | undefined;
  let stoppedEarly = false;
  for (let i = 0; i < TURNS; i++) {
    if (profileFrom !== undefined && i === profileFrom.at) profiling = await startProfiling();
    const t0 = performance.now();
    const response = await c.client.post(`${c.base}/messages`, { _csrf: c.csrf, text: PROMPTS[i % PROMPTS.length]! }, { as: 'htmx' });
    await response.arrayBuffer();
    latencies.push(performance.now() - t0);
    if (response.status !== 200) throw new Error(`${label}: turn ${i + 1} answered ${response.status}`);
    if ((i + 1) % 500 === 0) {
      const recent = latencies.slice(-100);
      process.stderr.write(`long-conversation ${label}: ${i + 1}/${TURNS} turns, ${((performance.now() - began) / 1000).toFixed(1)} s, last 100 p50 ${percentile(recent, 50).toFixed(1)} ms p99 ${percentile(recent, 99).toFixed(1)} ms\n`);
    }
    if (performance.now() - began > BUDGET_MS && i + 1 < TURNS) {
      stoppedEarly = true;
      process.stderr.write(`long-conversation ${label}: budget of ${BUDGET_MS / 1000} s spent after ${i + 1} turns; stopping there\n`);
      break;
    }
  }
  if (profiling && profileFrom) await profiling.stop(profileFrom.file);
  return { done: latencies.length, latencies, stoppedEarly, seconds: (performance.now() - began) / 1000 };
}

/** A worker thread asking GET /healthz every 25 ms (its own event loop: it sees the server's stalls). */
function healthProbe(url: string): Promise<{ stop(): Promise<number[]> }> {
  const worker = new Worker(`
    const { parentPort, workerData } = require('node:worker_threads');
    let stop = false;
    const latencies = [];
    parentPort.on('message', () => { stop = true; });
    (async () => {
      let first = true;
      while (!stop) {
        const t0 = performance.now();
        try { await (await fetch(workerData.url)).text(); } catch { latencies.push(-1); }
        if (first) { first = false; parentPort.postMessage('ready'); } else latencies.push(performance.now() - t0);
        await new Promise((r) => setTimeout(r, 25));
      }
      parentPort.postMessage(latencies);
    })();
  `, { eval: true, workerData: { url: `${url}/healthz` } });
  return new Promise((resolve, reject) => {
    worker.once('error', reject);
    worker.once('message', () => resolve({
      stop: () => new Promise<number[]>((done) => {
        worker.once('message', (latencies: number[]) => { void worker.terminate(); done(latencies); });
        worker.postMessage('stop');
      }),
    }));
  });
}

interface ColdLoad { client: HttpClient; ms: number; status: number; bytes: number; maxLoopDelayMs: number; healthMaxMs: number; healthCount: number }

async function coldLoad(instance: Instance, c: Conversation, profileFile?: string): Promise<ColdLoad> {
  const client = new HttpClient(instance.url);
  for (const [k, v] of c.client.cookies) client.cookies.set(k, v);
  const probe = await healthProbe(instance.url);
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  const profiling = profileFile ? await startProfiling() : undefined;
  histogram.enable();
  const t0 = performance.now();
  const response = await client.get(c.base);
  const body = await response.arrayBuffer();
  const ms = performance.now() - t0;
  histogram.disable();
  if (profiling && profileFile) await profiling.stop(profileFile);
  const health = await probe.stop();
  return {
    client, ms, status: response.status, bytes: body.byteLength, maxLoopDelayMs: histogram.max / 1e6,
    healthMaxMs: Math.max(0, ...health), healthCount: health.length,
  };
}

const f = (n: number, digits = 1): string => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');
const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

export async function run(): Promise<void> {
  const rows: Array<[string, string, string]> = [];
  const notes: string[] = [];
  const dataDir = mkdtempSync(join(tmpdir(), 'surfacer-long-'));
  try {
    // JSONL: drive N turns, then restart on the same directory.
    let a = await jsonlInstance(dataDir);
    let c: Conversation;
    let turns: TurnRun;
    let warmPage: ArrayBuffer;
    try {
      c = await newConversation(a.url);
      const profileAt = PROFILE_DIR ? Math.max(0, TURNS - PROFILE_TURNS) : undefined;
      turns = await driveTurns(c, 'jsonl', profileAt === undefined ? undefined : { at: profileAt, file: join(PROFILE_DIR!, `turns-last-${PROFILE_TURNS}.cpuprofile`) });
      warmPage = await (await c.client.get(c.base)).arrayBuffer();
    } finally {
      await a.close();
    }
    const n = turns.done;
    const first100 = turns.latencies.slice(0, 100);
    const last100 = turns.latencies.slice(-100);
    const before = memory();
    a = await jsonlInstance(dataDir);
    const beforeLoaded = memory();
    let cold: ColdLoad;
    let after: NodeJS.MemoryUsage;
    let warmGetMs: number;
    try {
      cold = await coldLoad(a, c, PROFILE_DIR ? join(PROFILE_DIR, `cold-load-${n}.cpuprofile`) : undefined);
      after = memory();
      // A second GET on the restarted instance: what a page costs once the conversation is cached.
      const t0 = performance.now();
      await (await cold.client.get(c.base)).arrayBuffer();
      warmGetMs = performance.now() - t0;
    } finally {
      await a.close();
    }
    rows.push(
      ['turns driven (JSONL, fsync)', `${n}${turns.stoppedEarly ? ` (budget hit; asked ${TURNS})` : ''}`, `${f(turns.seconds)} s in all, ${f((1000 * turns.seconds) / n, 2)} ms/turn mean`],
      [`turn latency, turns 1–${first100.length}`, `p50 ${f(percentile(first100, 50), 2)} ms`, `p99 ${f(percentile(first100, 99), 2)} ms`],
      [`turn latency, turns ${n - last100.length + 1}–${n}`, `p50 ${f(percentile(last100, 50), 2)} ms`, `p99 ${f(percentile(last100, 99), 2)} ms`],
      ['cold load (restart): first GET /c/{cid}', `${f(cold.ms)} ms (status ${cold.status})`, `max event-loop delay ${f(cold.maxLoopDelayMs)} ms`],
      ['GET /healthz asked during the cold load', `slowest ${f(cold.healthMaxMs)} ms`, `${cold.healthCount} probes (worker thread, every 25 ms)`],
      ['warm GET /c/{cid} after it', `${f(warmGetMs)} ms`, ''],
      ['page weight GET /c/{cid}', `${warmPage.byteLength.toLocaleString('en')} B`, `${f(warmPage.byteLength / n / 1024, 2)} KiB per turn`],
      ['RSS added by the one cached conversation', `${mb(after.rss - beforeLoaded.rss)}`, `heap used +${mb(after.heapUsed - beforeLoaded.heapUsed)}${gc ? ' (after gc)' : ' (no gc available)'}`],
      ['RSS of a fresh instance / after the cold load', `${mb(beforeLoaded.rss)} / ${mb(after.rss)}`, `instance alone +${mb(beforeLoaded.rss - before.rss)}`],
    );

    // Redis: instance A drives the same turns, a fresh instance B loads the conversation cold.
    if (process.env.LONG_REDIS === '0') notes.push('Redis: skipped (LONG_REDIS=0).');
    else if (!hasRedisServer()) notes.push('Redis: no redis-server binary on the PATH; skipped.');
    else {
      const redis = await startRedis();
      try {
        const prefix = `long${process.pid}:`;
        const ra = await redisInstance(redis.url, prefix);
        const rc = await newConversation(ra.url);
        let rturns: TurnRun;
        try { rturns = await driveTurns(rc, 'redis'); } finally { await ra.close(); }
        const rb = await redisInstance(redis.url, prefix);
        let rcold: ColdLoad;
        try { rcold = await coldLoad(rb, rc); } finally { await rb.close(); }
        const rfirst = rturns.latencies.slice(0, 100);
        const rlast = rturns.latencies.slice(-100);
        rows.push(
          ['Redis: turns driven through A (AOF fsync always)', `${rturns.done}${rturns.stoppedEarly ? ` (budget hit; asked ${TURNS})` : ''}`, `${f(rturns.seconds)} s in all`],
          [`Redis: turn latency, turns 1–${rfirst.length}`, `p50 ${f(percentile(rfirst, 50), 2)} ms`, `p99 ${f(percentile(rfirst, 99), 2)} ms`],
          [`Redis: turn latency, turns ${rturns.done - rlast.length + 1}–${rturns.done}`, `p50 ${f(percentile(rlast, 50), 2)} ms`, `p99 ${f(percentile(rlast, 99), 2)} ms`],
          ['Redis: cold load on fresh instance B, first GET /c/{cid}', `${f(rcold.ms)} ms (status ${rcold.status}, ${rcold.bytes.toLocaleString('en')} B)`, `max event-loop delay ${f(rcold.maxLoopDelayMs)} ms`],
          ['Redis: GET /healthz asked during it', `slowest ${f(rcold.healthMaxMs)} ms`, `${rcold.healthCount} probes`],
        );
      } finally {
        await redis.stop();
      }
    }
    if (PROFILE_DIR) notes.push(`CPU profiles written to ${PROFILE_DIR} (summarise: node --import tsx bench/_long-conversation-profile.ts FILE).`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  const lines = [
    `One conversation, N = ${TURNS} turns asked, htmx host over loopback HTTP, offline planner, prompts: ${PROMPTS.map((p) => `"${p}"`).join(', ')}.`,
    '',
    '| measure | value | detail |',
    '|---|---|---|',
    ...rows.map((r) => `| ${r.join(' | ')} |`),
    '',
    ...notes,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}
