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

/** How far back from its end a grown array's predecessor is looked for (a turn adds a few entries). */
const GROWTH_LOOKBACK = 16;

/**
 * A value remembered per array that only ever grows by appends (a transcript: each version is a
 * new array holding the same entry objects, then new ones), and the remembered array a new one
 * grew from. Work on the transcript (its hash, its check) then continues from the version before
 * instead of starting over: its cost is the new entries' (plus a pointer comparison), whatever
 * the conversation's length. Weak throughout: old versions go with the IRs that held them.
 */
export interface GrowthMemo<V> {
  get(array: readonly unknown[]): V | undefined;
  set(array: readonly unknown[], value: V): void;
  /**
   * A remembered array that `array` starts with (the same objects, in order): `hint` when it is
   * one, else the newest remembered one ending within GROWTH_LOOKBACK entries of `array`'s end.
   */
  grownFrom(array: readonly unknown[], hint?: readonly unknown[]): { array: readonly unknown[]; value: V } | undefined;
}

export function createGrowthMemo<V>(): GrowthMemo<V> {
  const values = new WeakMap<readonly unknown[], V>();
  const endingWith = new WeakMap<object, WeakRef<readonly unknown[]>>();
  const prefixOf = (before: readonly unknown[] | undefined, array: readonly unknown[]): { array: readonly unknown[]; value: V } | undefined => {
    if (before === undefined || before.length > array.length || !values.has(before)) return undefined;
    for (let i = 0; i < before.length; i += 1) if (before[i] !== array[i]) return undefined;
    return { array: before, value: values.get(before)! };
  };
  return {
    get: (array) => values.get(array),
    set(array, value) {
      values.set(array, value);
      const last: unknown = array.at(-1);
      if (last !== null && typeof last === 'object') endingWith.set(last, new WeakRef(array));
    },
    grownFrom(array, hint) {
      const hinted = prefixOf(hint, array);
      if (hinted !== undefined) return hinted;
      for (let end = array.length; end > 0 && end >= array.length - GROWTH_LOOKBACK; end -= 1) {
        const last: unknown = array[end - 1];
        if (last === null || typeof last !== 'object') continue;
        const before = endingWith.get(last)?.deref();
        const found = before !== undefined && before.length === end ? prefixOf(before, array) : undefined;
        if (found !== undefined) return found;
      }
      return undefined;
    },
  };
}
