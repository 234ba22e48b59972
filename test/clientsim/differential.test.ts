import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validStreamArb, wellFormedStreamArb } from './arbitraries.ts';
import { errorsOf, expectSameState, runBoth } from './compare.ts';
import { EXAMPLES_SKIP } from '../support/shared-examples.ts';
import { readExampleStreams } from './wc-oracle.ts';

const examples = await readExampleStreams();

describe('ClientSim vs the official @a2ui/web_core processor', () => {
  describe('over the official v0.8 example streams', EXAMPLES_SKIP, () => {
    it('finds all 25 official example streams', () => {
      expect(examples).toHaveLength(25);
    });

    it.each(examples.map((e) => [e.name, e.stream] as const))('example %s: same final state as WC, no errors', (_name, stream) => {
      const { sim, violations, wc } = runBoth(stream);
      expect(wc.threw).toEqual([]);
      expect(errorsOf(violations)).toEqual([]);
      expect(sim.stuckBuffering()).toEqual([]);
      expect(sim.endOfStream()).toEqual([]);
      expectSameState(sim, wc);
    });
  });

  it('generated valid streams (any order, several surfaces): same final state as WC (500 runs)', () => {
    fc.assert(fc.property(validStreamArb(), (stream) => {
      const { sim, violations, wc } = runBoth(stream);
      expect(wc.threw).toEqual([]);
      expect(errorsOf(violations)).toEqual([]);
      expectSameState(sim, wc);
    }), { numRuns: 500 });
  });

  it('generated well-formed streams (rendered roots, templates): same state and tree as WC (500 runs)', () => {
    fc.assert(fc.property(wellFormedStreamArb(), (stream) => {
      const { sim, violations, wc } = runBoth(stream);
      expect(wc.threw).toEqual([]);
      expect(errorsOf(violations)).toEqual([]);
      expectSameState(sim, wc);
    }), { numRuns: 500 });
  });
});
