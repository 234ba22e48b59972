import type { ConversationStore, LogEntry } from '../../src/conversation/index.ts';

/**
 * A store whose `append(cid, entry)` takes the next version itself, in call order, as a single
 * writer would: tests that are about what a store keeps, not about concurrent writers, stay short.
 * A failed append gives its version back.
 */
export function sequential<S extends ConversationStore>(store: S): Omit<S, 'append'> & { append(cid: string, entry: LogEntry): Promise<void> } {
  const versions = new Map<string, number>();
  return Object.assign(Object.create(store) as S, {
    append(cid: string, entry: LogEntry): Promise<void> {
      const version = versions.get(cid) ?? 0;
      versions.set(cid, version + 1);
      return store.append(cid, entry, version).catch((error: unknown) => {
        if (versions.get(cid) === version + 1) versions.set(cid, version);
        throw error;
      });
    },
  });
}
