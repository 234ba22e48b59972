import type { RedisClient, RedisDriver } from './driver.ts';

/** A node's replication as INFO replication states it. */
export interface Replication {
  /** `role:master`: a primary that was demoted (and now follows another) says `slave`. */
  readonly primary: boolean;
  /** `connected_slaves`. */
  readonly count: number;
  /** The connected replicas' addresses (`slaveN:ip=…,port=…`), as `host|port`. */
  readonly replicas: readonly string[];
  /** `master_replid`: the history this node's data belongs to (a replica shares its primary's). */
  readonly replid: string;
  /** `master_replid2`: the history it followed before it was promoted ('000…' when none). */
  readonly replid2: string;
}

export function parseReplication(info: string): Replication {
  const replicas: string[] = [];
  for (const m of info.matchAll(/^slave\d+:ip=([^,\r\n]+),port=(\d+)/gm)) replicas.push(`${m[1]}|${m[2]}`);
  return {
    primary: /^role:master\b/m.test(info),
    count: Number(/^connected_slaves:(\d+)/m.exec(info)?.[1] ?? '0'),
    replicas,
    replid: /^master_replid:(\w+)/m.exec(info)?.[1] ?? '',
    replid2: /^master_replid2:(\w+)/m.exec(info)?.[1] ?? '',
  };
}

/** How long a former replica gets to answer, its connection included; silent past it, it refuses the acknowledgement. */
export const PROBE_TIMEOUT_MS = 500;
/** How long "could not connect" is believed before that replica is asked again. */
const UNREACHABLE_TTL_MS = 1_000;

type Verdict = 'took-over' | 'not-over' | 'unreachable' | 'silent';

/**
 * Why a primary that has fewer replicas than configured may still acknowledge a write alone
 * (available ack mode): its replicas went away. But a replica also goes away when it is
 * **promoted over** its primary (that primary stalled past cluster-node-timeout): the primary
 * keeps answering as one until it hears of the new epoch, and a write it takes meanwhile is
 * dropped when it rejoins as the new primary's replica. Its own view (INFO: still `master`, no
 * replica) cannot tell the two apart; the replica's can. So before such a write is acknowledged
 * every replica the primary was seen with and no longer has is asked for its INFO replication:
 * one that is a primary whose previous history (`master_replid2`) is this primary's history
 * (`master_replid`) took its place, and refuses the acknowledgement (503, retried; by then, or
 * on a later try, the write goes to the promoted node). A primary of another history (moved to
 * another shard and promoted there, made a primary of something else) took no one's place here.
 * A replica that cannot be reached (its process or host gone) is no primary anyone writes to
 * through us; one that is reached and does not answer within PROBE_TIMEOUT_MS refuses (it cannot
 * be told apart). One question per former replica at a time: writes arriving meanwhile share it.
 */
export interface PromotionWatch {
  /** What INFO replication showed of the primary at `address`: its replicas are remembered. */
  saw(address: string, replication: Replication): void;
  /**
   * Why the primary at `address` (its replication `now`) may not acknowledge alone: a former
   * replica that took its place, or one that does not answer; undefined if none.
   */
  displacedBy(address: string, now: Replication): Promise<string | undefined>;
  close(): void;
}

export function createPromotionWatch(driver: Pick<RedisDriver, 'probeClient'>): PromotionWatch {
  const seen = new Map<string, Set<string>>();
  const clients = new Map<string, RedisClient>();
  const asking = new Map<string, Promise<Replication | 'unreachable' | 'silent'>>();
  const unreachableUntil = new Map<string, number>();
  let closed = false;

  /** Closes the replica's probe connection (only `client`, when given: a later question may have made another). */
  const drop = (replica: string, client = clients.get(replica)): void => {
    if (client === undefined || clients.get(replica) === client) clients.delete(replica);
    try { client?.destroy(); } catch { /* already closed */ }
  };

  /** The replica's INFO replication within PROBE_TIMEOUT_MS, its connection included. */
  async function ask(replica: string): Promise<Replication | 'unreachable' | 'silent'> {
    const until = unreachableUntil.get(replica);
    if (until !== undefined && performance.now() < until) return 'unreachable';
    let timer: NodeJS.Timeout | undefined;
    // After the timer, one turn of the event loop more: an answer (or a refused connection) that
    // arrived while the loop was busy past the deadline is read first.
    const late = new Promise<'silent'>((resolve) => { timer = setTimeout(() => setImmediate(() => resolve('silent')), PROBE_TIMEOUT_MS); });
    const answer = (async (): Promise<Replication | 'unreachable'> => {
      let client = clients.get(replica);
      if (client === undefined || !client.isReady) {
        drop(replica);
        const [host, port] = replica.split('|') as [string, string];
        client = driver.probeClient(host, Number(port), PROBE_TIMEOUT_MS);
        client.on('error', () => {});
        clients.set(replica, client);
        try {
          await client.connect();
        } catch {
          drop(replica, client);
          unreachableUntil.set(replica, performance.now() + UNREACHABLE_TTL_MS);
          return 'unreachable';
        }
      }
      return parseReplication(String(await client.sendCommand(['INFO', 'replication'])));
    })();
    try {
      const result = await Promise.race([answer, late]);
      // Silent: its connection holds a question nobody waits for; an error reply: nothing told.
      if (result === 'silent' || closed) drop(replica);
      return result;
    } catch {
      drop(replica);
      return 'silent';
    } finally {
      clearTimeout(timer);
      answer.catch(() => {});
    }
  }

  async function verdict(replica: string, primary: Replication): Promise<Verdict> {
    let pending = asking.get(replica);
    if (pending === undefined) {
      pending = ask(replica).finally(() => asking.delete(replica));
      asking.set(replica, pending);
    }
    const answer = await pending;
    if (typeof answer === 'string') return answer;
    return answer.primary && primary.replid !== '' && answer.replid2 === primary.replid ? 'took-over' : 'not-over';
  }

  return {
    saw(address, replication) {
      if (replication.replicas.length === 0) return;
      let replicas = seen.get(address);
      if (replicas === undefined) seen.set(address, (replicas = new Set()));
      for (const r of replication.replicas) replicas.add(r);
    },
    async displacedBy(address, now) {
      const former = [...(seen.get(address) ?? [])].filter((r) => !now.replicas.includes(r));
      if (former.length === 0) return undefined;
      const verdicts = await Promise.all(former.map((r) => verdict(r, now)));
      const i = verdicts.findIndex((v) => v === 'took-over' || v === 'silent');
      if (i < 0) return undefined;
      return `its former replica ${former[i]!.replace('|', ':')} ${verdicts[i] === 'took-over' ? 'took its place' : 'does not answer'}`;
    },
    close() {
      closed = true;
      for (const replica of [...clients.keys()]) drop(replica);
    },
  };
}
