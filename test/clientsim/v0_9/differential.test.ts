import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { officialExamples } from '../../support/a2ui-v0_9-examples.ts';
import { errorIndexes, expectSameStateV09, hitsPartialApply, runBothV09 } from './compare.ts';
import { rawStreamArb } from './arbitraries.ts';

/** ClientSim v0.9 against the official v0.9 processor: the same decisions and the same final state. */
const examples = officialExamples();

describe('ClientSim v0.9 vs the official @a2ui/web_core v0.9 processor', () => {
  it.each(examples.map((e) => [e.name, e.messages] as const))('example %s: accepted by both, same final state and tree', (_name, stream) => {
    const { sim, violations, oracle, refused } = runBothV09(stream);
    expect(refused).toEqual([]);
    expect(errorIndexes(violations)).toEqual([]);
    expect(sim.endOfStream()).toEqual([]);
    expectSameStateV09(sim, oracle);
  });

  it('generated raw streams, valid and not: the same messages refused, the same final state (2,000 runs)', () => {
    fc.assert(fc.property(rawStreamArb, (stream) => {
      const run = runBothV09(stream);
      fc.pre(!hitsPartialApply(run));
      expect(errorIndexes(run.violations)).toEqual(run.refused);
      expectSameStateV09(run.sim, run.oracle);
    }), { numRuns: 2000 });
  }, 600_000);
});
