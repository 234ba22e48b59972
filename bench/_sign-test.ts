/**
 * Whether one build's rounds beat the other's more often than chance would have it: the exact
 * two-sided sign test over paired rounds (round i of A against round i of B, run minutes apart).
 * A median over rounds hides how the rounds split; this says whether a gap between two medians is
 * resolved by the run at all, or is what rounds of equal builds would show.
 */
export interface SignTest {
  /** Rounds where A's value was the higher. */
  readonly aHigher: number;
  readonly bHigher: number;
  readonly ties: number;
  /** The chance of a split at least this uneven if neither build tended higher (ties left out). */
  readonly p: number;
}

export function signTest(a: readonly number[], b: readonly number[]): SignTest {
  if (a.length !== b.length) throw new Error(`sign test: ${a.length} rounds against ${b.length}`);
  let aHigher = 0;
  let bHigher = 0;
  for (let i = 0; i < a.length; i++) {
    if (a[i]! > b[i]!) aHigher += 1;
    else if (b[i]! > a[i]!) bHigher += 1;
  }
  const n = aHigher + bHigher;
  const fewer = Math.min(aHigher, bHigher);
  // P(X ≤ fewer) for X ~ Binomial(n, ½), doubled for both tails.
  let tail = 0;
  let choose = 1;
  for (let k = 0; k <= fewer; k++) {
    tail += choose;
    choose = (choose * (n - k)) / (k + 1);
  }
  return { aHigher, bHigher, ties: a.length - n, p: n === 0 ? 1 : Math.min(1, (2 * tail) / 2 ** n) };
}

/** "A higher in 9 of 12 paired rounds, B in 2, 1 level (p = 0.065)". */
export function describeSignTest(t: SignTest): string {
  const rounds = t.aHigher + t.bHigher + t.ties;
  return `A higher in ${t.aHigher} of ${rounds} paired rounds, B in ${t.bHigher}${t.ties > 0 ? `, ${t.ties} level` : ''} (sign test p = ${t.p.toFixed(3)})`;
}
