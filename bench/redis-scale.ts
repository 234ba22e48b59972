import { readFileSync } from 'node:fs';
import os from 'node:os';
import { createClient } from 'redis';
import { createDemoApp } from '../src/app/index.ts';
import { createRedisBackend } from '../src/backend/index.ts';
import { createConversationStack } from '../src/host-html/index.ts';
import { DEFAULT_IDEMPOTENCY_TTL_MS, type ActionRequest } from '../src/ingress/index.ts';
import { createSystemSource, findSurface } from '../src/ui-ir/index.ts';
import { startRedis } from '../test/support/redis-server.ts';
import { measureActions, startServers } from './http-actions.ts';

/**
 * Surfacer on Redis (issue 10), one instance, against the embedded default in the same run:
 *
 * 1. Accepted htmx action round trips per second (POST /c/{cid}/actions, 50 connections, every
 *    request a real accepted submit; see bench/http-actions.ts) with the Redis backend against
 *    the fsynced JSONL log, measured alternately twice each. Redis runs on this machine with AOF
 *    and `appendfsync always`, so both acknowledge only what is on disk.
 * 2. Redis round trips and commands per accepted action, as the HTML host spends them (the
 *    ownership check's `get`, then `applyAction`), one client at a time: the backend's own
 *    counters, cross-checked against the server's INFO commandstats. Goal ≤ 3 round trips.
 * 3. The per-action cost on each side (server CPU per accepted action), from which the
 *    scaling to several instances is estimated: this 2-core machine cannot show it.
 *
 * The SSE fan-out over two instances is in bench/a2ui-sse.ts (BENCH_SSE_INSTANCES).
 */
const ROUND_TRIP_ACTIONS = 200;

export async function run(): Promise<void> {
  const redis = await startRedis();
  try {
    process.stdout.write(`${new Date().toISOString().slice(0, 10)} · ${os.cpus()[0]?.model ?? 'cpu'} (${os.cpus().length} vCPU) · node ${process.version} · redis-server with AOF, appendfsync always\n\n`);
    await throughput(redis.url);
    await roundTrips(redis.url);
  } finally {
    await redis.stop();
  }
}

async function throughput(redisUrl: string): Promise<void> {
  const servers = await startServers([], { BENCH_REDIS_URL: redisUrl });
  const probe = createClient({ url: redisUrl });
  await probe.connect();
  try {
    const rows: Array<{ store: string; rps: number; p99: number; accepted: number; ok: number; serverCpuUs: number; redisCpuUs: number }> = [];
    for (const store of ['jsonl', 'redis', 'jsonl', 'redis']) {
      const cpu0 = processCpuMs(servers.pid);
      const redis0 = await redisCpuMs(probe);
      const r = await measureActions(`http://127.0.0.1:${servers.ports[store]}`, 'htmx');
      // Per accepted action: the instance's CPU (its process runs every server of the bench, but
      // only this store's one is busy) and the Redis server's.
      const accepted = Math.max(1, r.accepted);
      rows.push({
        store, rps: r.rps, p99: r.p99, accepted: r.accepted, ok: r.ok,
        serverCpuUs: ((processCpuMs(servers.pid) - cpu0) * 1000) / accepted,
        redisCpuUs: (((await redisCpuMs(probe)) - redis0) * 1000) / accepted,
      });
    }
    const mean = (store: string, key: 'rps' | 'serverCpuUs' | 'redisCpuUs'): number => rows.filter((r) => r.store === store).reduce((sum, r) => sum + r[key], 0) / 2;
    process.stdout.write('| store | accepted actions/s | p99 ms | 2xx | accepted (rev growth) | instance CPU / action | Redis CPU / action |\n|---|---:|---:|---:|---:|---:|---:|\n');
    for (const r of rows) {
      process.stdout.write(`| ${r.store === 'redis' ? 'Redis (AOF, fsync always)' : 'JSONL log + fsync'} | ${r.rps.toFixed(0)} | ${r.p99} | ${r.ok} | ${r.accepted} `
        + `| ${r.serverCpuUs.toFixed(0)} µs | ${r.store === 'redis' ? `${r.redisCpuUs.toFixed(0)} µs` : '—'} |\n`);
    }
    const instanceUs = mean('redis', 'serverCpuUs');
    const redisUs = mean('redis', 'redisCpuUs');
    process.stdout.write(`\nRedis / fsynced JSONL, same run: ${(mean('redis', 'rps') / mean('jsonl', 'rps')).toFixed(2)}× (means of two runs each: ${mean('redis', 'rps').toFixed(0)} vs ${mean('jsonl', 'rps').toFixed(0)} actions/s)\n`);
    process.stdout.write(`Estimate for N instances, one core each (not measurable on 2 cores): ≈ N × ${(1e6 / instanceUs).toFixed(0)} actions/s `
      + `until Redis, single-threaded, saturates at ≈ ${(1e6 / redisUs).toFixed(0)} actions/s (its CPU per action; fsync waits excluded)\n\n`);
  } finally {
    await servers.stop();
    probe.destroy();
  }
}

/** User + system CPU of a process, from /proc (Linux). */
function processCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / 100; // USER_HZ is 100 on Linux
}

/** The Redis server's own CPU (INFO cpu: used_cpu_user + used_cpu_sys). */
async function redisCpuMs(probe: Probe): Promise<number> {
  const text = await probe.info('cpu');
  const read = (name: string): number => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(text)?.[1] ?? 0);
  return (read('used_cpu_user') + read('used_cpu_sys')) * 1000;
}

async function roundTrips(redisUrl: string): Promise<void> {
  const backend = createRedisBackend({ url: redisUrl, prefix: 'rtt:' });
  const app = createDemoApp();
  const service = createConversationStack({
    app, entropy: createSystemSource(), store: backend.store, turns: backend.turns,
    idempotency: backend.idempotency('client-errors', { ttlMs: DEFAULT_IDEMPOTENCY_TTL_MS }),
  });
  const probe = createClient({ url: redisUrl });
  await probe.connect();
  try {
    const c = await service.create('bench-owner');
    const turn = await service.runTurn(c.id, 'create a character card');
    if (!turn.ok) throw new Error(turn.error.message);
    const commandsBefore = await serverCommands(probe);
    const before = await backend.health();
    let ir = turn.next;
    for (let i = 0; i < ROUND_TRIP_ACTIONS; i += 1) {
      // As the HTML host does it: the ownership check reads the conversation, then the action.
      const current = await service.get(c.id);
      if (current === undefined) throw new Error('conversation vanished');
      const surface = findSurface(ir, 'main')!;
      const request: ActionRequest = {
        kind: 'action', transport: 'html', surfaceId: 'main', epoch: surface.epoch, nonce: surface.nonce, rev: surface.rev,
        action: 'form.submit', context: { name: `Aria ${i}`, personality: 'Brave.' }, idempotencyKey: `rtt-${i}`,
      };
      const result = await service.applyAction(c.id, request);
      if (!result.ok || result.replayed) throw new Error(`action ${i} was not applied`);
      ir = result.next;
    }
    const after = await backend.health();
    const commandsAfter = await serverCommands(probe);
    const per = (a: number | undefined, b: number | undefined): string => (((a ?? 0) - (b ?? 0)) / ROUND_TRIP_ACTIONS).toFixed(2);
    const serverPer = ((commandsAfter.total - commandsBefore.total - 1) / ROUND_TRIP_ACTIONS).toFixed(2);
    const roundTripsPer = Number(per(after.roundTrips, before.roundTrips));
    process.stdout.write(`Redis per accepted action (get + applyAction, ${ROUND_TRIP_ACTIONS} sequential actions): ${roundTripsPer.toFixed(2)} round trips `
      + `(goal ≤ 3: ${roundTripsPer <= 3 ? 'met' : 'NOT met'}), ${per(after.commands, before.commands)} commands by the backend's count, `
      + `${serverPer} by the server's INFO commandstats: ${commandsAfter.breakdown(commandsBefore)}\n`);
  } finally {
    await backend.close();
    probe.destroy();
  }
}

type Probe = { info(section: string): Promise<string> };

/** The server's command counts (INFO commandstats), by command. */
async function serverCommands(probe: Probe): Promise<{ total: number; calls: Map<string, number>; breakdown(before: { calls: Map<string, number> }): string }> {
  const text = await probe.info('commandstats');
  const calls = new Map<string, number>();
  for (const match of text.matchAll(/^cmdstat_([a-z|]+):calls=(\d+)/gm)) calls.set(match[1]!, Number(match[2]));
  const total = [...calls.values()].reduce((a, b) => a + b, 0);
  return {
    total, calls,
    breakdown(before) {
      return [...calls].map(([name, n]) => [name, n - (before.calls.get(name) ?? 0)] as const)
        .filter(([name, n]) => n > 0 && name !== 'info')
        .map(([name, n]) => `${name} ${(n / ROUND_TRIP_ACTIONS).toFixed(2)}`).join(', ');
    },
  };
}
