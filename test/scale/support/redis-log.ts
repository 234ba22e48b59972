import { createClient, createCluster } from 'redis';
import { redisKeys } from '../../../src/backend/redis/keys.ts';
import { LogEntrySchema, type LogEntry } from '../../../src/conversation/index.ts';

/**
 * A conversation's log as Redis holds it, read with a connection of the test's own (not through
 * any instance): what was acknowledged must be there, exactly once. Several comma-separated URLs:
 * the seeds of a Redis Cluster.
 */
export async function readRedisLog(url: string, prefix: string, cid: string): Promise<LogEntry[]> {
  const seeds = url.split(',');
  const client = seeds.length > 1 ? createCluster({ rootNodes: seeds.map((u) => ({ url: u })) }) : createClient({ url });
  client.on('error', () => {});
  await client.connect();
  try {
    const items = (await client.xRange(redisKeys(prefix).log(cid), '-', '+')) ?? [];
    return items.map((item, i) => {
      if (item.id !== `${i + 1}-0`) throw new Error(`log entry ${item.id} where version ${i + 1} belongs`);
      return LogEntrySchema.parse(JSON.parse(String(item.message['e'])));
    });
  } finally {
    client.destroy();
  }
}

/**
 * How many action entries carry each key the client sent (an accepted submit appears exactly
 * once). The HTML ingress logs `<_idem> <action>` (one `_idem` serves a render's buttons).
 */
export function actionKeyCounts(entries: readonly LogEntry[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const entry of entries) {
    if (entry.type !== 'action' || entry.request.idempotencyKey === undefined) continue;
    const key = clientKey(entry.request.idempotencyKey, entry.request.transport);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** The key a client sent, from the one the ingress logged. */
export function clientKey(logged: string, transport: 'a2ui' | 'html'): string {
  return transport === 'html' ? logged.slice(0, logged.lastIndexOf(' ')) : logged;
}

/**
 * The versions an htmx page opened at `from` must receive an event for: every later entry that
 * changed the IR (its recorded hash differs from the one before). `own` says whether the page
 * caused it (then the event carries only its id).
 */
export function changedVersions(entries: readonly LogEntry[], from: number, pageId: string): Array<{ version: number; own: boolean }> {
  const out: Array<{ version: number; own: boolean }> = [];
  let previous: string | undefined;
  entries.forEach((entry, i) => {
    if (entry.type === 'created') return;
    const version = i + 1;
    if (version > from && entry.irHash !== previous) out.push({ version, own: entry.origin === pageId });
    previous = entry.irHash;
  });
  return out;
}

/**
 * The rev of `surfaceId` that the log's entries lead to, in a log where only accepted submits
 * change it after the turn that showed it (each one from rev n to n + 1, as the action entry's
 * request.rev says): the rev an up-to-date renderer holds.
 */
export function submittedRev(entries: readonly LogEntry[], surfaceId: string, initialRev = 0): number {
  let rev = initialRev;
  for (const entry of entries) {
    if (entry.type === 'action' && entry.request.surfaceId === surfaceId && typeof entry.request.rev === 'number') rev = Math.max(rev, entry.request.rev + 1);
  }
  return rev;
}
