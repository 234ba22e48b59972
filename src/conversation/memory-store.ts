import type { LogEntry } from './log.ts';
import type { ConversationStore } from './store.ts';

/**
 * In-process store for tests and ephemeral runs. Entries are kept as their JSON text, like the
 * JSONL store's lines, so callers cannot alias them; serialising a small entry is several times
 * cheaper than structuredClone on every append, and reads (a fold on a cache miss) are rare.
 */
export function createMemoryStore(): ConversationStore & { readonly size: number } {
  const logs = new Map<string, string[]>();
  return {
    get size() { return logs.size; },
    async append(cid, entry) {
      const log = logs.get(cid);
      if (log === undefined && entry.type !== 'created') throw new Error(`conversation ${cid} has no created entry`);
      const line = JSON.stringify(entry);
      if (log === undefined) logs.set(cid, [line]);
      else log.push(line);
    },
    async read(cid) {
      return logs.get(cid)?.map((line) => JSON.parse(line) as LogEntry);
    },
    async close() {},
  };
}
