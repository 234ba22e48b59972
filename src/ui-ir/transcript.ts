import type { TranscriptEntry } from './schema.ts';

/**
 * The entries `next` adds to `prev`, in order. Transitions only append to a transcript (a new
 * array holding the same entry objects, then the new ones), so when `next` still holds `prev`'s
 * last entry at the same place the answer is its tail, whatever the conversation's length;
 * otherwise every entry whose id `prev` lacks (the same answer for an appended transcript).
 */
export function addedTranscriptEntries<T extends Pick<TranscriptEntry, 'id'>>(prev: readonly T[], next: readonly T[]): T[] {
  if (next === prev) return [];
  const n = prev.length;
  if (next.length >= n && (n === 0 || next[n - 1] === prev[n - 1])) return next.slice(n);
  const known = new Set(prev.map((entry) => entry.id));
  return next.filter((entry) => !known.has(entry.id));
}
