import os from 'node:os';
import { createClient } from 'redis';
import { createDemoApp } from '../src/app/index.ts';
import { createRedisBackend, type Backend } from '../src/backend/index.ts';
import { redisKeys } from '../src/backend/redis/keys.ts';
import { createConversationStack } from '../src/host-html/index.ts';
import { DEFAULT_IDEMPOTENCY_TTL_MS, type ActionRequest } from '../src/ingress/index.ts';
import { createSystemSource, findSurface, type ConversationIr } from '../src/ui-ir/index.ts';
import { startRedisCluster, type TestRedisCluster } from '../test/support/redis-cluster.ts';
import { startRedis, type TestRedis } from '../test/support/redis-server.ts';

/**
 * Surfacer on a Redis Cluster and on a Redis with a replica (issue 23), in-process services (no
 * HTTP: the Redis side is what is measured), every server on this machine with AOF and
 * `appendfsync always`:
 *
 * 1. Round trips and commands per accepted action on the cluster (get + applyAction, as the HTML
 *    host spends them, one client at a time), by the backend's count and by the primaries' INFO
 *    commandstats, with appends waiting for one replica (the cluster default) and without.
 * 2. Per-shard CPU per action: WORKERS users, each on a conversation of their own (spread over the
 *    shards by their hash tags), submitting for SECONDS; each primary's and replica's CPU (INFO
 *    cpu) divided by the actions its shard served.
 * 3. What the ack setting costs: sequential latency and concurrent throughput with
 *    ackReplicas 0 and 1, on the cluster and on one primary with one replica.
 */
const SEQUENTIAL = 200;
const WORKERS = 24;
const SECONDS = Number(process.env.BENCH_CLUSTER_SECONDS ?? 5);

interface Stack { backend: Backend; service: ReturnType<typeof createConversationStack> }

function stack(url: string, prefix: string, ackReplicas: number): Stack {
  const backend = createRedisBackend({ url, prefix, ackReplicas });
  const service = createConversationStack({
    app: createDemoApp(), entropy: createSystemSource(), store: backend.store, turns: backend.turns,
    idempotency: backend.idempotency('client-errors', { ttlMs: DEFAULT_IDEMPOTENCY_TTL_MS }),
  });
  return { backend, service };
}

async function cardOpen(s: Stack): Promise<{ cid: string; ir: ConversationIr }> {
  const c = await s.service.create('bench-owner');
  const turn = await s.service.runTurn(c.id, 'create a character card');
  if (!turn.ok) throw new Error(turn.error.message);
  return { cid: c.id, ir: turn.next };
}

/** One accepted submit, as the HTML host does it: the ownership check reads the conversation, then the action. */
async function submit(s: Stack, cid: string, ir: ConversationIr, i: number, tag: string): Promise<ConversationIr> {
  if ((await s.service.get(cid)) === undefined) throw new Error('conversation vanished');
  const surface = findSurface(ir, 'main')!;
  const request: ActionRequest = {
    kind: 'action', transport: 'html', surfaceId: 'main', epoch: surface.epoch, nonce: surface.nonce, rev: surface.rev,
    action: 'form.submit', context: { name: `Aria ${i}`, personality: 'Brave.' }, idempotencyKey: `${tag}-${i}`,
  };
  const result = await s.service.applyAction(cid, request);
  if (!result.ok || result.replayed) throw new Error(`action ${i} was not applied: ${JSON.stringify(result.ok ? 'replayed' : result.error)}`);
  return result.next;
}

type Node = { url: string; port: number };
type Probe = { info(section?: string): Promise<string>; destroy(): void };

async function probes(nodes: readonly Node[]): Promise<Map<Node, Probe>> {
  const map = new Map<Node, Probe>();
  for (const node of nodes) {
    const client = createClient({ url: node.url });
    client.on('error', () => {});
    await client.connect();
    map.set(node, client);
  }
  return map;
}

async function cpuMs(probe: Probe): Promise<number> {
  const text = await probe.info('cpu');
  const read = (name: string): number => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(text)?.[1] ?? 0);
  return (read('used_cpu_user') + read('used_cpu_sys')) * 1000;
}

async function commands(probe: Probe): Promise<Map<string, number>> {
  const text = await probe.info('commandstats');
  const calls = new Map<string, number>();
  for (const match of text.matchAll(/^cmdstat_([a-z|]+):calls=(\d+)/gm)) calls.set(match[1]!, Number(match[2]));
  return calls;
}

async function role(probe: Probe): Promise<'primary' | 'replica'> {
  return /^role:master/m.test(await probe.info('replication')) ? 'primary' : 'replica';
}

async function sequential(s: Stack, probesOfPrimaries: readonly Probe[], label: string): Promise<string> {
  const { cid, ir: first } = await cardOpen(s);
  let ir = first;
  // Warm-up (scripts loaded, connections to every shard made).
  for (let i = 0; i < 10; i += 1) ir = await submit(s, cid, ir, i, `warm-${label}`);
  const before = await Promise.all(probesOfPrimaries.map(commands));
  const health0 = s.backend.status();
  const started = performance.now();
  for (let i = 0; i < SEQUENTIAL; i += 1) ir = await submit(s, cid, ir, i, `seq-${label}`);
  const ms = (performance.now() - started) / SEQUENTIAL;
  const health1 = s.backend.status();
  const after = await Promise.all(probesOfPrimaries.map(commands));
  const server = new Map<string, number>();
  after.forEach((calls, i) => {
    for (const [name, n] of calls) server.set(name, (server.get(name) ?? 0) + n - (before[i]!.get(name) ?? 0));
  });
  const total = [...server].filter(([name]) => name !== 'info').reduce((sum, [, n]) => sum + n, 0);
  const breakdown = [...server].filter(([name, n]) => n > 0 && name !== 'info').map(([name, n]) => `${name} ${(n / SEQUENTIAL).toFixed(2)}`).join(', ');
  const per = (a?: number, b?: number): string => (((a ?? 0) - (b ?? 0)) / SEQUENTIAL).toFixed(2);
  return `| ${label} | ${per(health1.roundTrips, health0.roundTrips)} | ${per(health1.commands, health0.commands)} | ${(total / SEQUENTIAL).toFixed(2)} (${breakdown}) | ${ms.toFixed(2)} ms |`;
}

/** WORKERS users on conversations of their own for SECONDS; actions per conversation. */
async function concurrent(s: Stack, tag: string): Promise<{ rps: number; p50: number; p99: number; perCid: Map<string, number> }> {
  const users = await Promise.all(Array.from({ length: WORKERS }, () => cardOpen(s)));
  const perCid = new Map<string, number>();
  const latencies: number[] = [];
  const until = performance.now() + SECONDS * 1000;
  await Promise.all(users.map(async (u, w) => {
    let ir = u.ir;
    for (let i = 0; performance.now() < until; i += 1) {
      const t0 = performance.now();
      ir = await submit(s, u.cid, ir, i, `${tag}-${w}`);
      latencies.push(performance.now() - t0);
      perCid.set(u.cid, (perCid.get(u.cid) ?? 0) + 1);
    }
  }));
  latencies.sort((a, b) => a - b);
  const q = (p: number): number => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!;
  return { rps: latencies.length / SECONDS, p50: q(0.5), p99: q(0.99), perCid };
}

async function onCluster(cluster: TestRedisCluster): Promise<void> {
  const all = await probes(cluster.nodes);
  try {
    const roles = new Map<Node, 'primary' | 'replica'>();
    for (const [node, probe] of all) roles.set(node, await role(probe));
    const primaries = cluster.nodes.filter((n) => roles.get(n) === 'primary');
    const primaryProbes = primaries.map((n) => all.get(n)!);

    process.stdout.write('Round trips per accepted action on the cluster (get + applyAction, one client, sequential):\n\n');
    process.stdout.write('| appends wait for | round trips (backend) | commands (backend) | commands (primaries\' commandstats) | latency / action |\n|---|---:|---:|---|---:|\n');
    for (const ack of [1, 0]) {
      const s = stack(cluster.url, `rtt${ack}:`, ack);
      try {
        process.stdout.write(`${await sequential(s, primaryProbes, ack === 1 ? '1 replica (default)' : 'no replica (ACK_REPLICAS=0)')}\n`);
      } finally { await s.backend.close(); }
    }

    process.stdout.write(`\nPer-shard CPU per action (${WORKERS} users on their own conversations, ${SECONDS} s, in this process):\n\n`);
    for (const ack of [1, 0]) {
      const s = stack(cluster.url, `load${ack}:`, ack);
      try {
        const cpu0 = new Map<Node, number>();
        for (const [node, probe] of all) cpu0.set(node, await cpuMs(probe));
        const process0 = process.cpuUsage();
        const r = await concurrent(s, `load${ack}`);
        const processUs = process.cpuUsage(process0);
        const cpu1 = new Map<Node, number>();
        for (const [node, probe] of all) cpu1.set(node, await cpuMs(probe));
        // Actions by shard: each conversation's actions go to the primary of its slot.
        const keys = redisKeys(`load${ack}:`, { cluster: true });
        const byPrimary = new Map<number, number>();
        for (const [cid, n] of r.perCid) {
          const port = (await cluster.primaryFor(keys.log(cid))).port;
          byPrimary.set(port, (byPrimary.get(port) ?? 0) + n);
        }
        const total = [...r.perCid.values()].reduce((a, b) => a + b, 0);
        process.stdout.write(`appends wait for ${ack} replica${ack === 1 ? '' : 's'}: ${r.rps.toFixed(0)} actions/s, p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms; `
          + `instance (this process) CPU ${(((processUs.user + processUs.system)) / total).toFixed(0)} µs / action\n\n`);
        process.stdout.write('| node | role | actions on its shard | CPU / action of its shard |\n|---|---|---:|---:|\n');
        for (const node of cluster.nodes) {
          const used = cpu1.get(node)! - cpu0.get(node)!;
          const isPrimary = roles.get(node) === 'primary';
          // A replica's shard is its primary's.
          const primaryPort = isPrimary ? node.port : Number(/^master_port:(\d+)/m.exec(await all.get(node)!.info('replication'))?.[1]);
          const actions = byPrimary.get(primaryPort) ?? 0;
          process.stdout.write(`| ${node.port} | ${isPrimary ? 'primary' : `replica of ${primaryPort}`} | ${actions} | ${actions > 0 ? `${((used * 1000) / actions).toFixed(0)} µs` : '—'} |\n`);
        }
        process.stdout.write('\n');
      } finally { await s.backend.close(); }
    }
  } finally {
    for (const probe of all.values()) probe.destroy();
  }
}

async function onReplicaPair(): Promise<void> {
  const primary: TestRedis = await startRedis();
  const replica: TestRedis = await startRedis({ args: ['--replicaof', '127.0.0.1', String(primary.port)] });
  const probe = createClient({ url: primary.url });
  await probe.connect();
  try {
    while (!/^slave0:.*state=online/m.test(await probe.info('replication'))) await new Promise((r) => setTimeout(r, 50));
    process.stdout.write('One Redis with one replica: what waiting for the replica costs\n\n');
    process.stdout.write('| appends wait for | round trips (backend) | commands (backend) | commands (primary\'s commandstats) | latency / action |\n|---|---:|---:|---|---:|\n');
    for (const ack of [1, 0]) {
      const s = stack(primary.url, `pair-rtt${ack}:`, ack);
      try {
        process.stdout.write(`${await sequential(s, [probe], ack === 1 ? '1 replica (default once a replica is seen)' : 'no replica (ACK_REPLICAS=0)')}\n`);
      } finally { await s.backend.close(); }
    }
    process.stdout.write(`\n| appends wait for | actions/s (${WORKERS} users, ${SECONDS} s) | p50 | p99 |\n|---|---:|---:|---:|\n`);
    for (const ack of [1, 0]) {
      const s = stack(primary.url, `pair-load${ack}:`, ack);
      try {
        const r = await concurrent(s, `pair${ack}`);
        process.stdout.write(`| ${ack} replica${ack === 1 ? '' : 's'} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(1)} ms | ${r.p99.toFixed(1)} ms |\n`);
      } finally { await s.backend.close(); }
    }
    process.stdout.write('\n');
  } finally {
    probe.destroy();
    await replica.stop();
    await primary.stop();
  }
}

export async function run(): Promise<void> {
  process.stdout.write(`${new Date().toISOString().slice(0, 10)} · ${os.cpus()[0]?.model ?? 'cpu'} (${os.cpus().length} vCPU) · node ${process.version} · redis-server ${'7.0'} with AOF, appendfsync always, on this machine\n\n`);
  const cluster = await startRedisCluster();
  try {
    await onCluster(cluster);
  } finally {
    await cluster.stop();
  }
  await onReplicaPair();
}
