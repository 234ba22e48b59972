import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createClient } from 'redis';
import { startRedis, type TestRedis } from './redis-server.ts';

const run = promisify(execFile);

/**
 * A local Redis Cluster of Debian redis-server processes for one test file: 3 primaries and 3
 * replicas on free loopback ports, AOF with `appendfsync always` on every node (startRedis), a
 * short cluster-node-timeout so a killed primary's replica is promoted within about a second.
 * Made with `redis-cli --cluster create`; stopped (every process, every directory) by stop(),
 * and killed by the worker's exit hook in redis-server.ts if a test dies first.
 */
export interface TestRedisCluster {
  readonly nodes: readonly TestRedis[];
  /** Comma-separated seed URLs (every node), as SURFACER_REDIS_URL takes them. */
  readonly url: string;
  /** The node serving `key`'s slot now (asked of a live node). */
  primaryFor(key: string): Promise<TestRedis>;
  /**
   * Once `victim` was killed: the primary that took its slot for `key`, polled until there is one
   * (just after the kill a node's slot map may name none). Throws after `timeoutMs`.
   */
  promotedOver(victim: TestRedis, key: string, timeoutMs?: number): Promise<TestRedis>;
  /** The slot of `key`. */
  slotOf(key: string): Promise<number>;
  /** Until every slot is served by a live primary that has a connected replica, and every live node agrees. */
  waitHealthy(timeoutMs?: number): Promise<void>;
  /** Moves `slot` to `to` (a primary) while it is served: SETSLOT IMPORTING/MIGRATING, MIGRATE in batches, SETSLOT NODE. */
  moveSlot(slot: number, to: TestRedis): Promise<void>;
  /**
   * Brings a killed node back as a replica of `primary`, the way a failed node is replaced: its
   * data and cluster config wiped, its old id forgotten by every node, then CLUSTER MEET and
   * CLUSTER REPLICATE. (Restarted with its old files it would first believe it still serves its
   * old slots, with its old data, until the cluster corrects it: a client that has not yet learnt
   * of the promotion would read and write there.)
   */
  rejoinAsReplica(node: TestRedis, primary: TestRedis): Promise<void>;
  /** Every node's log lines from `fromMs` to `toMs` (wall clock, Date.now()), merged in time order: what the cluster did around a moment. */
  logBetween(fromMs: number, toMs: number): string;
  /** A command on one node, on a connection of the harness's own. */
  command(node: TestRedis, args: string[]): Promise<unknown>;
  stop(): Promise<void>;
}

export const CLUSTER_NODE_TIMEOUT_MS = 1_000;

export async function startRedisCluster(): Promise<TestRedisCluster> {
  const nodes: TestRedis[] = [];
  const clients = new Map<TestRedis, ReturnType<typeof createClient>>();
  const stop = async (): Promise<void> => {
    for (const c of clients.values()) c.destroy();
    clients.clear();
    await Promise.all(nodes.map((n) => n.stop()));
  };
  const command = async (node: TestRedis, args: string[]): Promise<unknown> => {
    let client = clients.get(node);
    if (client === undefined || !client.isReady) {
      client?.destroy();
      client = createClient({ url: node.url, socket: { reconnectStrategy: false, connectTimeout: 1_000 } });
      client.on('error', () => {});
      clients.set(node, client);
      try {
        await client.connect();
      } catch (error) {
        clients.delete(node);
        throw error;
      }
    }
    return client.sendCommand(args);
  };
  const alive = async (node: TestRedis): Promise<boolean> => {
    try { return (await command(node, ['PING'])) === 'PONG'; } catch { return false; }
  };
  const byPort = (port: number): TestRedis | undefined => nodes.find((n) => n.port === port);

  /** Slot ranges → primary port and replica ports, as one live node sees them. */
  async function slots(): Promise<Array<{ from: number; to: number; primary: number; replicas: number[] }>> {
    for (const node of nodes) {
      if (!(await alive(node))) continue;
      const reply = await command(node, ['CLUSTER', 'SLOTS']) as Array<[number, number, ...Array<[string, number, string]>]>;
      return reply.map(([from, to, primary, ...replicas]) => ({ from, to, primary: primary![1], replicas: replicas.map((r) => r[1]) }));
    }
    throw new Error('no live cluster node');
  }

  try {
    for (let i = 0; i < 6; i += 1) {
      nodes.push(await startRedis({
        args: ['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', String(CLUSTER_NODE_TIMEOUT_MS), '--loglevel', 'notice',
          // A promoted replica must not refuse writes because its own replica is not back yet.
          '--cluster-replica-validity-factor', '0', '--cluster-require-full-coverage', 'no', '--cluster-allow-reads-when-down', 'no',
          // Stopped at once at the end (every write is on disk already): no wait for lagging replicas.
          '--shutdown-on-sigterm', 'now',
          // A rejoining replica's full sync starts at once (default: 5 s to wait for others).
          '--repl-diskless-sync-delay', '0'],
      }));
    }
    await run('redis-cli', ['--cluster', 'create', ...nodes.map((n) => `127.0.0.1:${n.port}`), '--cluster-replicas', '1', '--cluster-yes'], { timeout: 30_000 });
  } catch (error) {
    await stop();
    throw error;
  }

  const cluster: TestRedisCluster = {
    nodes,
    url: nodes.map((n) => n.url).join(','),
    command,
    async slotOf(key) {
      for (const node of nodes) if (await alive(node)) return Number(await command(node, ['CLUSTER', 'KEYSLOT', key]));
      throw new Error('no live cluster node');
    },
    async primaryFor(key) {
      const slot = await cluster.slotOf(key);
      const range = (await slots()).find((r) => r.from <= slot && slot <= r.to);
      const node = range && byPort(range.primary);
      if (!node) throw new Error(`no primary for slot ${slot}`);
      return node;
    },
    async promotedOver(victim, key, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const primary = await cluster.primaryFor(key).catch(() => victim);
        if (primary !== victim) return primary;
        if (Date.now() > deadline) throw new Error(`no replica of ${victim.port} promoted within ${timeoutMs} ms; as the live nodes see the cluster:\n${await describe()}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async waitHealthy(timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      let last = '';
      for (;;) {
        try {
          last = await unhealthy();
          if (last === '') return;
        } catch (error) {
          last = String(error);
        }
        if (Date.now() > deadline) throw new Error(`cluster not healthy after ${timeoutMs} ms: ${last}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async moveSlot(slot, to) {
      const ranges = await slots();
      const from = byPort(ranges.find((r) => r.from <= slot && slot <= r.to)!.primary)!;
      if (from === to) throw new Error(`slot ${slot} is already on ${to.port}`);
      const id = async (node: TestRedis): Promise<string> => String(await command(node, ['CLUSTER', 'MYID']));
      const [fromId, toId] = [await id(from), await id(to)];
      await command(to, ['CLUSTER', 'SETSLOT', String(slot), 'IMPORTING', fromId]);
      await command(from, ['CLUSTER', 'SETSLOT', String(slot), 'MIGRATING', toId]);
      for (;;) {
        const keys = await command(from, ['CLUSTER', 'GETKEYSINSLOT', String(slot), '100']) as string[];
        if (keys.length === 0) break;
        await command(from, ['MIGRATE', '127.0.0.1', String(to.port), '', '0', '5000', 'KEYS', ...keys]);
      }
      // The target first (it stops answering ASK-only), then the source, then every other primary.
      await command(to, ['CLUSTER', 'SETSLOT', String(slot), 'NODE', toId]);
      await command(from, ['CLUSTER', 'SETSLOT', String(slot), 'NODE', toId]);
      for (const node of nodes) {
        if (node === to || node === from || !(await alive(node))) continue;
        await command(node, ['CLUSTER', 'SETSLOT', String(slot), 'NODE', toId]).catch(() => undefined);
      }
    },
    async rejoinAsReplica(node, primary) {
      const nodesOf = async (n: TestRedis): Promise<string> => String(await command(n, ['CLUSTER', 'NODES']));
      const idAt = (table: string, port: number): string | undefined => table.split('\n').find((line) => line.includes(`127.0.0.1:${port}@`))?.split(' ')[0];
      const oldId = idAt(await nodesOf(primary), node.port);
      clients.get(node)?.destroy();
      clients.delete(node);
      await node.start({ fresh: true });
      if (oldId !== undefined) {
        for (const other of nodes) {
          if (other !== node && (await alive(other))) await command(other, ['CLUSTER', 'FORGET', oldId]).catch(() => undefined);
        }
      }
      // Met by every live node, not only its primary: a node learns of another only from a
      // MEET or from the gossip of nodes it knows, and ignores what an unknown node sends. Met
      // by the primary alone, a primary killed before its gossip reached the others left a
      // replica that no other primary knew, so none would vote for it, and it was never promoted.
      for (const other of nodes) {
        if (other !== node && (await alive(other))) await command(node, ['CLUSTER', 'MEET', '127.0.0.1', String(other.port)]);
      }
      const primaryId = String(await command(primary, ['CLUSTER', 'MYID']));
      const deadline = Date.now() + 20_000;
      for (;;) {
        const replicated = await command(node, ['CLUSTER', 'REPLICATE', primaryId]).then(() => true, () => false);
        if (replicated) return;
        if (Date.now() > deadline) throw new Error(`${node.port} could not replicate ${primary.port}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    logBetween(fromMs, toMs) {
      // Redis stamps its lines "03 Dec 2026 04:08:33.998" in local time, as Date parses them.
      const lines: Array<{ at: number; text: string }> = [];
      for (const node of nodes) {
        for (const line of node.recentLog().split('\n')) {
          const stamp = /^\d+:[A-Z] (\d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2}\.\d{3})/.exec(line)?.[1];
          const at = stamp === undefined ? Number.NaN : Date.parse(stamp.replace(/^(\d{2}) (\w{3}) (\d{4}) /, '$2 $1 $3 '));
          if (at >= fromMs && at <= toMs) lines.push({ at, text: `${node.port} ${line}` });
        }
      }
      return lines.sort((a, b) => a.at - b.at).map((l) => l.text).join('\n');
    },
    stop,
  };

  /** Each live node's CLUSTER NODES and replication state: what a failed promotion needs to be explained. */
  async function describe(): Promise<string> {
    const parts: string[] = [];
    for (const node of nodes) {
      if (!(await alive(node))) { parts.push(`${node.port}: not answering`); continue; }
      const table = String(await command(node, ['CLUSTER', 'NODES']).catch((e) => e));
      const replication = String(await command(node, ['INFO', 'replication']).catch((e) => e))
        .split('\n').filter((l) => /^(role|master_port|master_link_status|master_link_down_since_seconds|master_sync_in_progress|connected_slaves|slave0)/.test(l)).join(' ');
      parts.push(`${node.port}: ${replication.replace(/\r/g, '')}\n${table.trim()}`);
    }
    // Elections and failure reports are logged at notice level.
    for (const node of nodes) parts.push(`${node.port} log:\n${node.recentLog().trim().split('\n').slice(-15).join('\n')}`);
    return parts.join('\n');
  }

  /** What is not yet healthy ('' when all is). */
  async function unhealthy(): Promise<string> {
    const live: TestRedis[] = [];
    for (const node of nodes) if (await alive(node)) live.push(node);
    for (const node of live) {
      const info = String(await command(node, ['CLUSTER', 'INFO']));
      if (!/cluster_state:ok/.test(info)) return `${node.port}: cluster_state not ok`;
      if (!/cluster_slots_assigned:16384/.test(info)) return `${node.port}: not every slot assigned`;
      if (!/cluster_slots_fail:0\b/.test(info) || !/cluster_slots_pfail:0\b/.test(info)) return `${node.port}: slots failing`;
    }
    const ranges = await slots();
    for (const range of ranges) {
      const primary = byPort(range.primary);
      if (!primary || !live.includes(primary)) return `slot ${range.from}: primary ${range.primary} not live`;
      const replication = String(await command(primary, ['INFO', 'replication']));
      if (!/^connected_slaves:[1-9]/m.test(replication)) return `primary ${range.primary}: no connected replica`;
      // A replica that is connected but still syncing has not acknowledged anything yet.
      if (!/^slave0:.*state=online/m.test(replication)) return `primary ${range.primary}: replica not online`;
    }
    for (const node of live) {
      const replication = String(await command(node, ['INFO', 'replication']));
      if (/^role:slave/m.test(replication) && !/^master_link_status:up/m.test(replication)) return `replica ${node.port}: link down`;
    }
    // Every live node knows every other as a healthy member: an election needs the votes of
    // primaries that know the replica asking for them.
    const tables = new Map<TestRedis, string[]>();
    for (const node of live) tables.set(node, String(await command(node, ['CLUSTER', 'NODES'])).split('\n'));
    // A node's own id is on its own table's `myself` line.
    const ids = new Map([...tables].map(([node, table]) => [node, table.find((l) => l.split(' ')[2]?.split(',').includes('myself'))?.split(' ')[0]]));
    for (const node of live) {
      const table = tables.get(node)!;
      for (const other of live) {
        const line = table.find((l) => l.startsWith(`${ids.get(other)} `));
        if (line === undefined) return `${node.port} does not know ${other.port}`;
        const flags = (line.split(' ')[2] ?? '').split(',');
        if (flags.some((f) => f === 'fail' || f === 'fail?' || f === 'handshake' || f === 'noaddr')) return `${node.port} sees ${other.port} as ${flags.join(',')}`;
      }
    }
    return '';
  }

  try {
    await cluster.waitHealthy();
  } catch (error) {
    await stop();
    throw error;
  }
  return cluster;
}
