import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addedItems } from '../../src/host-html/fragments.ts';

type Item = { id: string };

describe('addedItems (the toasts an answer appends)', () => {
  it('property: the items of the new list whose id the old one lacks, in order, whatever the lists', () => {
    const byId = (prev: readonly Item[], next: readonly Item[]): Item[] => {
      const known = new Set(prev.map((p) => p.id));
      return next.filter((n) => !known.has(n.id));
    };
    const pool = fc.array(fc.record({ id: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g') }), { maxLength: 8 });
    // Lists as transitions make them (the old one's tail, then new items) and as they do not (shuffled, shared objects anywhere).
    const pair = fc.oneof(
      fc.tuple(pool, fc.nat(8), pool).map(([prev, drop, extra]) => [prev, [...prev.slice(Math.min(drop, prev.length)), ...extra]] as const),
      fc.tuple(pool, pool, fc.array(fc.nat(15), { maxLength: 10 })).map(([prev, extra, picks]) => {
        const all = [...prev, ...extra];
        return [prev, all.length === 0 ? [] : picks.map((i) => all[i % all.length]!)] as const;
      }),
    );
    fc.assert(fc.property(pair, ([prev, next]) => {
      const got = addedItems(prev, next);
      const want = byId(prev, next);
      expect(got.length).toBe(want.length);
      expect(got.every((item, i) => item === want[i])).toBe(true);
    }), { numRuns: 2000 });
  });
});
