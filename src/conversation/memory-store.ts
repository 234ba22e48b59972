import type { LogEntry } from './log.ts';
import type { ConversationStore } from './store.ts';

/** In-process store for tests and ephemeral runs. Entries are copied so callers cannot alias them. */
export function createMemoryStore(): ConversationStore & { readonly size: number } {
  const logs = new Map<string, LogEntry[]>();
  return {
    get size() { return logs.size; },
    async append(cid, entry) {
      const log = logs.get(cid) ?? [];
      if (log.length === 0 && entry.type !== 'created') throw new Error(`conversation ${cid} has no created entry`);
      log.push(structuredClone(entry));
      logs.set(cid, log);
    },
    async read(cid) {
      const log = logs.get(cid);
      return log ? structuredClone(log) : undefined;
    },
    async close() {},
  };
}
