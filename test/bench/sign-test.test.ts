import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { signTest } from '../../bench/_sign-test.ts';

describe('the benchmark comparison\'s sign test', () => {
  it('gives the exact binomial tail: 9 of 10 is p = 22/1024, ties left out, an even split is p = 1', () => {
    expect(signTest([2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 5], [1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 5])).toEqual({ aHigher: 9, bHigher: 1, ties: 1, p: 22 / 1024 });
    expect(signTest([1, 2, 3, 4], [2, 1, 4, 3]).p).toBe(1);
    expect(signTest([3, 3], [3, 3])).toEqual({ aHigher: 0, bHigher: 0, ties: 2, p: 1 });
    expect(() => signTest([1], [1, 2])).toThrow(/1 rounds against 2/);
  });

  it('is symmetric in the builds, and p is a probability that shrinks as the split grows more uneven', () => {
    fc.assert(fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 5 })), { maxLength: 40 }), (pairs) => {
      const a = pairs.map(([x]) => x);
      const b = pairs.map(([, y]) => y);
      const t = signTest(a, b);
      const swapped = signTest(b, a);
      expect(swapped).toEqual({ aHigher: t.bHigher, bHigher: t.aHigher, ties: t.ties, p: t.p });
      expect(t.p).toBeGreaterThan(0);
      expect(t.p).toBeLessThanOrEqual(1);
      // One more round where the already-higher build is higher again can only lower p.
      if (t.aHigher > t.bHigher) expect(signTest([...a, 1], [...b, 0]).p).toBeLessThanOrEqual(t.p);
    }));
  });
});
