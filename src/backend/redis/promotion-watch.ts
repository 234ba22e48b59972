import type { RedisClient, RedisDriver } from './driver.ts';

/** A primary's replication as INFO replication states it. */
export interface Replication {
  /** `role:master`: a primary that was demoted (and now follows another) says `slave`. */
  readonly primary: boolean;
  /** `connected_slaves`. */
  readonly count: number;
  /** The connected replicas' addresses (`slaveN:ip=…,port=…`). */
  readonly replicas: readonly string[];
}

export function parseReplication(info: string): Replication {
  const replicas: string[] = [];
  for (const m of info.matchAll(/^slave\d+:ip=([^,\r\n]+),port=(\d+)/gm)) replicas.push(`${m[1]}|${m[2]}`);
  return {
    primary: /^role:master\b/m.test(info),
    count: Number(/^connected_slaves:(\d+)/m.exec(info)?.[1] ?? '0'),
    replicas,
  };
}

/** How long a former replica's connection may take before it counts as gone (a host that is down). */
const CONNECT_TIMEOUT_MS = 500;
/** How long "could not connect" is believed before that replica is asked again. */
const UNREACHABLE_TTL_MS = 1_000;

/**
 * Why a primary that has fewer replicas than configured may still acknowledge a write alone
 * (available ack mode): its replicas went away. But a replica also goes away when it is
 * **promoted over** its primary (that primary stalled past cluster-node-timeout): the primary
 * keeps answering as one until it hears of the new epoch, and a write it takes meanwhile is
 * dropped when it rejoins as the new primary's replica. Its own view (INFO: still `master`, no
 * replica) cannot tell the two apart; the replica's can. So before such a write is acknowledged
 * every replica the primary was seen with and no longer has is asked for its ROLE: one that is
 * now a primary refuses the acknowledgement (503, retried; by then, or on a later try, the
 * write goes to the promoted node). A replica that cannot be reached (its process or host gone)
 * is not a primary anyone writes to through us; one that is reached and does not answer in time
 * refuses too (it cannot be told apart).
 */
export interface PromotionWatch {
  /** What INFO replication showed of `primary` (at `address`): its replicas are remembered. */
  saw(address: string, replication: Replication): void;
  /**
   * Why the primary at `address` may not acknowledge alone: a former replica (not among `now`'s)
   * that is a primary now, or that does not answer within `timeoutMs`; undefined if none.
   */
  promotedOver(address: string, now: Replication, timeoutMs: number): Promise<string | undefined>;
  close(): void;
}

export function createPromotionWatch(driver: Pick<RedisDriver, 'probeClient'>): PromotionWatch {
  const seen = new Map<string, Set<string>>();
  const probes = new Map<string, { client?: RedisClient; unreachableUntil?: number }>();
  let closed = false;

  async function roleOf(replica: string, timeoutMs: number): Promise<'primary' | 'replica' | 'unreachable' | 'silent'> {
    const probe = probes.get(replica) ?? {};
    probes.set(replica, probe);
    if (probe.unreachableUntil !== undefined && performance.now() < probe.unreachableUntil) return 'unreachable';
    if (probe.client === undefined || !probe.client.isOpen) {
      const [host, port] = replica.split('|') as [string, string];
      const client = driver.probeClient(host, Number(port), CONNECT_TIMEOUT_MS);
      client.on('error', () => {});
      probe.client = client;
      try {
        await client.connect();
      } catch {
        probe.client = undefined;
        probe.unreachableUntil = performance.now() + UNREACHABLE_TTL_MS;
        return 'unreachable';
      }
      if (closed) client.destroy();
    }
    const client = probe.client;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'silent'>((resolve) => { timer = setTimeout(() => resolve('silent'), timeoutMs); });
    try {
      const answer = await Promise.race([client.sendCommand(['ROLE']).then((r) => ((r as unknown as unknown[])[0] === 'master' ? 'primary' as const : 'replica' as const)), late]);
      if (answer === 'silent') {
        // Its queue holds a question nobody waits for: a new connection next time.
        client.destroy();
        probe.client = undefined;
      }
      return answer;
    } catch {
      probe.client = undefined;
      return 'unreachable';
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    saw(address, replication) {
      if (replication.replicas.length === 0) return;
      let replicas = seen.get(address);
      if (replicas === undefined) seen.set(address, (replicas = new Set()));
      for (const r of replication.replicas) replicas.add(r);
    },
    async promotedOver(address, now, timeoutMs) {
      const former = [...(seen.get(address) ?? [])].filter((r) => !now.replicas.includes(r));
      if (former.length === 0) return undefined;
      const roles = await Promise.all(former.map((r) => roleOf(r, timeoutMs)));
      const i = roles.findIndex((role) => role === 'primary' || role === 'silent');
      if (i < 0) return undefined;
      return `its former replica ${former[i]!.replace('|', ':')} ${roles[i] === 'primary' ? 'is a primary now' : 'does not answer'}`;
    },
    close() {
      closed = true;
      for (const p of probes.values()) {
        try { p.client?.destroy(); } catch { /* closed */ }
      }
      probes.clear();
    },
  };
}
