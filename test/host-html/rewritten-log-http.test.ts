import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryStore, LogRewrittenError, type ConversationStore, type LogEntry } from '../../src/conversation/index.ts';
import { startHarness, type Harness } from './support/harness.ts';
import { openConversation, parse, sendMessage } from './support/page.ts';
import { sseReader } from './support/sse.ts';

/**
 * A store shared with other writers, whose log a failover can rewrite: the last entry, written
 * but never acknowledged, is gone, and the next read past it says so (as the Redis store does
 * when the entry it read at that version is no longer there).
 */
function failoverStore(): ConversationStore & { loseLast(cid: string): void } {
  const inner = createMemoryStore();
  const watchers = new Map<string, Set<() => void>>();
  const lost = new Map<string, number>();
  const dropped = new Map<string, number>();
  return {
    writers: 'many',
    append: (cid, entry, version) => inner.append(cid, entry, version),
    async read(cid, after = 0) {
      const all = await inner.read(cid);
      if (all === undefined) return undefined;
      const kept = all.slice(0, all.length - (dropped.get(cid) ?? 0));
      const at = lost.get(cid);
      if (at !== undefined && after >= at) {
        lost.delete(cid);
        throw new LogRewrittenError(cid, after);
      }
      return kept.slice(after) as LogEntry[];
    },
    watch(cid, changed) {
      const set = watchers.get(cid) ?? new Set();
      set.add(changed);
      watchers.set(cid, set);
      return () => set.delete(changed);
    },
    countOwnedBy: (owner) => inner.countOwnedBy(owner),
    close: () => inner.close(),
    loseLast(cid) {
      void inner.read(cid).then((all) => {
        lost.set(cid, all!.length);
        dropped.set(cid, (dropped.get(cid) ?? 0) + 1);
        for (const changed of watchers.get(cid) ?? []) changed();
      });
    },
  };
}

let h: Harness;
const store = failoverStore();
beforeAll(async () => { h = await startHarness({ store }); });
afterAll(async () => { await h?.close(); });

describe('htmx page when a failover loses an entry it was shown', () => {
  it('the open page gets a whole refresh to the log as it is, not a patch from the lost state', async () => {
    const client = h.client();
    const c = await openConversation(client);
    await sendMessage(client, c, 'create a character card');
    const cid = c.base.split('/').at(-1)!;
    const shown = (await h.service.get(cid))!.version;
    const stream = sseReader(await client.get(`${c.base}/events?page=shownlost1&v=${shown}`));
    try {
      store.loseLast(cid);
      const event = await stream.next();
      expect(event.event).toBe('update');
      expect(event.id).toBe(String(shown - 1));
      const $ = parse(event.data);
      // The turn that was lost is not on the page any more: the transcript is replaced, not appended to.
      expect($('#transcript[hx-swap-oob="innerHTML"]').length).toBe(1);
      expect($('#transcript li').length).toBe(0);
      expect($('#surfaces[hx-swap-oob="innerHTML"]').length).toBe(1);
      expect($('section#surface-main').length).toBe(0);
    } finally {
      await stream.close();
    }
  });
});
