import type { LogEntry } from './log.ts';
import { AppendConflictError, type ConversationStore } from './store.ts';

/**
 * In-process store for tests and ephemeral runs. Entries are kept as their JSON text, like the
 * JSONL store's lines, so callers cannot alias them; serialising a small entry is several times
 * cheaper than structuredClone on every append, and reads (a fold on a cache miss) are rare.
 */
export function createMemoryStore(): ConversationStore & { readonly size: number } {
  const logs = new Map<string, string[]>();
  const owned = new Map<string, number>();
  const checkpoints = new Map<string, { head?: string; chunks: Map<number, string> }>();
  return {
    writers: 'single',
    checkpoints: {
      async read(cid) { return checkpoints.get(cid)?.head; },
      async readChunks(cid, count) { return Array.from({ length: count }, (_, i) => checkpoints.get(cid)?.chunks.get(i)); },
      async write(cid, head, chunks) {
        const stored = checkpoints.get(cid) ?? { chunks: new Map<number, string>() };
        for (const { index, text } of chunks) stored.chunks.set(index, text);
        stored.head = head;
        checkpoints.set(cid, stored);
      },
    },
    get size() { return logs.size; },
    async append(cid, entry, version) {
      const log = logs.get(cid);
      if ((log?.length ?? 0) !== version) throw new AppendConflictError(cid, version, log?.length ?? 0);
      const line = JSON.stringify(entry);
      if (log !== undefined) {
        log.push(line);
      } else if (entry.type === 'created') {
        logs.set(cid, [line]);
        owned.set(entry.ownerSessionId, (owned.get(entry.ownerSessionId) ?? 0) + 1);
      } else {
        throw new Error(`conversation ${cid} has no created entry`);
      }
    },
    async read(cid, after = 0) {
      return logs.get(cid)?.slice(after).map((line) => JSON.parse(line) as LogEntry);
    },
    async countOwnedBy(owner) {
      return owned.get(owner) ?? 0;
    },
    async close() {},
  };
}
