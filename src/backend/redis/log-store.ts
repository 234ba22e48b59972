import { createHash } from 'node:crypto';
import {
  AppendConflictError, LogEntrySchema, LogRewrittenError, silentLogger, type ConversationStore, type LogEntry, type Logger,
} from '../../conversation/index.ts';
import { NotReplicatedError, type RedisConnection } from './connection.ts';
import type { RedisKeys } from './keys.ts';
import { redisScript } from './script.ts';

/*
 * A conversation's log is one Redis Stream whose entry ids are the log versions: entry n has id
 * `n-0`. The append script compares the stream's last id with the version the writer folded and
 * appends only when they are equal, so the check and the write are one atomic step on the
 * server. The new version is then announced on the conversation's channel (the fan-out:
 * instances with clients on the conversation follow it): by the script itself when appends wait
 * for no replica, else once the replicas acknowledged it, so that no instance is told of an entry
 * a failover can still lose. The script touches only the keys it is given, log and channel, which
 * share the conversation's slot; in a cluster the notice is a sharded one (SPUBLISH), sent to the
 * subscribers of that slot's shard only.
 *
 * Reads are not told apart: a reader (a request's catch-up) can still see an entry in the
 * moment between its append and its acknowledgement, and a failover can then lose it, while the
 * log may since hold other entries at those versions. So this store remembers the digest of the
 * last entry it read or wrote for each conversation: the append script refuses to build on a
 * different entry at that version, a catch-up reads from that entry on, checking it, and
 * `confirm` checks it and waits for the replicas before a reader acknowledges anything on the
 * strength of what it read; each of them: LogRewrittenError (the reader reloads).
 *
 * A `created` entry's conversation is added to its owner's set (the per-session cap) just before:
 * that set hashes elsewhere in a cluster. Added first, a crash in between counts a conversation
 * that never started against the cap (never the reverse: an uncounted one).
 */
const appendScript = (publish: 'PUBLISH' | 'SPUBLISH') => redisScript(`
local top = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
local have = 0
if #top > 0 then have = tonumber(string.match(top[1][1], '^(%d+)')) end
if have ~= tonumber(ARGV[1]) then return {0, have} end
if ARGV[3] ~= '' and #top > 0 and redis.sha1hex(top[1][2][2]) ~= ARGV[3] then return {2, have} end
redis.call('XADD', KEYS[1], (have + 1) .. '-0', 'e', ARGV[2])
if ARGV[4] == '1' then redis.call('${publish}', KEYS[2], tostring(have + 1)) end
return {1, have + 1}
`);
const APPEND = appendScript('PUBLISH');
const APPEND_SHARDED = appendScript('SPUBLISH');
/** Entry ARGV[1] is there with digest ARGV[2] (or any, when ''); then a write, which the WAIT after it covers, and all before it. */
const CONFIRM = redisScript(`
local e = redis.call('XRANGE', KEYS[1], ARGV[1] .. '-0', ARGV[1] .. '-0')
if #e == 0 then return 0 end
if ARGV[2] ~= '' and redis.sha1hex(e[1][2][2]) ~= ARGV[2] then return 0 end
redis.call('SET', KEYS[2], ARGV[1], 'PX', 60000)
return 1
`);

/** Tries of a change notice that could not be sent (its connection away a moment), this far apart. */
const NOTICE_RETRY_MS = [100, 400, 1_600];
/**
 * An append whose replicas answered after its deadline (503) usually is kept all the same, and
 * its retry may never come: it is announced once they hold it, looked at this far apart.
 */
const LATE_NOTICE_MS = [250, 500, 1_000, 2_000, 4_000, 8_000];

/** Conversations whose last entry's digest is remembered (the oldest are forgotten: then unchecked). */
const MAX_REMEMBERED = 100_000;
const digestOf = (text: string): string => createHash('sha1').update(text).digest('hex');

export function createRedisLogStore(connection: RedisConnection, keys: RedisKeys, logger: Logger = silentLogger): ConversationStore {
  /** Per conversation: the version and digest of the last entry this store read or wrote. */
  const seen = new Map<string, { version: number; digest: string }>();
  const see = (cid: string, version: number, text: string): void => {
    seen.delete(cid);
    seen.set(cid, { version, digest: digestOf(text) });
    if (seen.size > MAX_REMEMBERED) seen.delete(seen.keys().next().value!);
  };
  /** Per conversation: the callbacks of this process's watchers, sharing one subscription and its listener. */
  const watchers = new Map<string, { callbacks: Set<() => void>; listener: () => void }>();
  connection.onResubscribed(() => {
    for (const { listener } of watchers.values()) listener();
  });

  const append = connection.cluster ? APPEND_SHARDED : APPEND;
  const changes = connection.cluster ? 'sharded' : 'broadcast';

  /** Tells the watchers of `cid` (every instance) that its log reached `version`, held by the replicas. */
  const announce = (cid: string, version: number, attempt = 0): void => {
    const notice = String(version);
    connection.call((client) => (connection.cluster ? client.sPublish(keys.channel(cid), notice) : client.publish(keys.channel(cid), notice)), { key: keys.channel(cid) })
      .catch((error: unknown) => {
        const delay = NOTICE_RETRY_MS[attempt];
        if (delay !== undefined) setTimeout(() => announce(cid, version, attempt + 1), delay).unref();
        else logger.warn('a change notice could not be sent: other instances show the change with the next one', { cid, version, error });
      });
  };
  /** Entry `version` (digest `digest`) once its replicas hold it; nothing if it is not there (not written, or lost). */
  const confirmed = (cid: string, version: number, digest: string): Promise<unknown> =>
    connection.durable(keys.log(cid), (node) => CONFIRM.run(node, [keys.log(cid), keys.confirmed(cid)], [String(version), digest]), { span: { name: 'log.confirm', command: 'EVALSHA' } });
  const announceLate = (cid: string, version: number, digest: string, attempt = 0): void => {
    const delay = LATE_NOTICE_MS[attempt];
    if (delay === undefined) {
      logger.warn('an append its replicas did not acknowledge is not announced: other instances show it with the next change', { cid, version });
      return;
    }
    setTimeout(() => {
      confirmed(cid, version, digest).then(
        (found) => { if (found === 1) announce(cid, version); },
        () => announceLate(cid, version, digest, attempt + 1),
      );
    }, delay).unref();
  };

  return {
    writers: 'many',

    // One hash per conversation, in its slot: the head and each full chunk a field, written by
    // one HSET (atomic). Not waited on by replicas: a checkpoint a failover loses (or one of an
    // entry it lost, which no longer matches the log) only costs a longer load.
    checkpoints: {
      async read(cid) {
        const text = await connection.call((client) => client.hGet(keys.checkpoint(cid), 'head'), { key: keys.checkpoint(cid), span: { name: 'log.checkpoint-read', command: 'HGET' } });
        return text ?? undefined;
      },
      async readChunks(cid, count) {
        if (count === 0) return [];
        const fields = Array.from({ length: count }, (_, i) => `c${i}`);
        const texts = await connection.call((client) => client.hmGet(keys.checkpoint(cid), fields), { key: keys.checkpoint(cid), span: { name: 'log.checkpoint-read', command: 'HMGET' } });
        return texts.map((text) => text ?? undefined);
      },
      async write(cid, head, chunks) {
        const fields: Record<string, string> = {};
        for (const { index, text } of chunks) fields[`c${index}`] = text;
        fields['head'] = head;
        await connection.call((client) => client.hSet(keys.checkpoint(cid), fields), { key: keys.checkpoint(cid), span: { name: 'log.checkpoint-write', command: 'HSET' } });
      },
    },

    async append(cid, entry, version) {
      const json = JSON.stringify(LogEntrySchema.parse(entry));
      if (entry.type === 'created') await connection.call((client) => client.sAdd(keys.owner(entry.ownerSessionId), cid), { key: keys.owner(entry.ownerSessionId), span: { name: 'log.owner', command: 'SADD' } });
      // Acknowledged once on the primary's AOF and on the replicas the connection waits for.
      const known = seen.get(cid);
      const expected = version > 0 && known?.version === version ? known.digest : '';
      let announceAfter = false;
      let reply: [number, number];
      try {
        reply = await connection.durable(keys.log(cid), (node, waits) => {
          announceAfter = waits;
          return append.run(node, [keys.log(cid), keys.channel(cid)], [String(version), json, expected, waits ? '' : '1']);
        }, { span: { name: 'log.append', command: 'EVALSHA' } }) as [number, number];
      } catch (error) {
        if (error instanceof NotReplicatedError) announceLate(cid, version + 1, digestOf(json));
        throw error;
      }
      if (reply[0] === 2) {
        seen.delete(cid);
        throw new LogRewrittenError(cid, version);
      }
      if (reply[0] !== 1) throw new AppendConflictError(cid, version, Number(reply[1]));
      see(cid, version + 1, json);
      // Not waited for: the entry is acknowledged whatever happens to its notice.
      if (announceAfter) announce(cid, version + 1);
    },

    async confirm(cid, version) {
      if (connection.ackReplicas() === 0) return;
      const known = seen.get(cid);
      const digest = known?.version === version ? known.digest : '';
      if (await confirmed(cid, version, digest) !== 1) {
        seen.delete(cid);
        throw new LogRewrittenError(cid, version);
      }
      // Its own append may have gone unannounced (its replicas answered late): now they hold it.
      announce(cid, version);
    },

    async read(cid, after = 0) {
      const known = seen.get(cid);
      const check = after > 0 && known?.version === after;
      const start = after === 0 ? '-' : `${check ? after : after + 1}-0`;
      const items = (await connection.call((client) => client.xRange(keys.log(cid), start, '+'), { key: keys.log(cid), span: { name: 'log.read', command: 'XRANGE' } })) ?? [];
      if (check) {
        const first = items.shift();
        if (first?.id !== `${after}-0` || typeof first.message['e'] !== 'string' || digestOf(first.message['e']) !== known!.digest) {
          seen.delete(cid);
          throw new LogRewrittenError(cid, after);
        }
      }
      if (items.length === 0 && after === 0) return undefined;
      const last = items.at(-1)?.message['e'];
      if (typeof last === 'string') see(cid, after + items.length, last);
      return items.map((item, i): LogEntry => {
        const text = item.message['e'];
        if (item.id !== `${after + i + 1}-0` || typeof text !== 'string') {
          throw new Error(`conversation log ${cid} entry ${item.id} is not where a version belongs`);
        }
        return LogEntrySchema.parse(JSON.parse(text));
      });
    },

    watch(cid, changed) {
      let entry = watchers.get(cid);
      if (entry === undefined) {
        const callbacks = new Set<() => void>();
        const listener = (): void => { for (const c of callbacks) c(); };
        entry = { callbacks, listener };
        watchers.set(cid, entry);
        void connection.subscriber(changes).then((sub) => sub.subscribe(keys.channel(cid), listener)).then(
          // Anything appended before the subscription took effect would be missed: look once.
          listener,
          () => { /* Redis is away: the resubscription after it returns catches up */ },
        );
      }
      entry.callbacks.add(changed);
      return () => {
        const current = watchers.get(cid);
        if (current === undefined || !current.callbacks.delete(changed) || current.callbacks.size > 0) return;
        watchers.delete(cid);
        // With its listener, so node-redis marks the channel as leaving: a watch of the same
        // conversation before the UNSUBSCRIBE is answered subscribes again instead of joining
        // a listener set the answer then clears.
        void connection.subscriber(changes).then((sub) => sub.unsubscribe(keys.channel(cid), current.listener)).catch(() => {});
      };
    },

    async countOwnedBy(owner) {
      return connection.call((client) => client.sCard(keys.owner(owner)), { key: keys.owner(owner), span: { name: 'log.count-owned', command: 'SCARD' } });
    },

    close: async () => {},
  };
}
