/**
 * A page (the htmx page, the A2UI pages) shows the recent messages, so that it stays light
 * however long the conversation is (issue 36): PAGE_MESSAGES of them, and PAGE_MESSAGES more
 * each time the person asks for earlier ones (the htmx page's `?messages=N`, a plain link: it
 * works without JavaScript).
 */
export const PAGE_MESSAGES = 50;

/** The last `shown` entries (PAGE_MESSAGES when the query says nothing usable), and how many come before them. */
export function recentTranscript<T>(entries: readonly T[], asked?: string): { entries: readonly T[]; earlier: number; shown: number } {
  const wanted = asked !== undefined && /^\d{1,7}$/.test(asked) ? Math.max(PAGE_MESSAGES, Number(asked)) : PAGE_MESSAGES;
  const shown = Math.min(wanted, entries.length);
  return { entries: entries.slice(entries.length - shown), earlier: entries.length - shown, shown };
}
