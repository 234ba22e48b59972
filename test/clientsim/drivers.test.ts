import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareHashes, cutAndReconnect, cutAtEveryPoint, replay, type CutPoint } from '../../src/clientsim/index.ts';
import { wellFormedStreamArb } from './arbitraries.ts';
import { br, dm, S, su, text } from './fixtures.ts';
import { EXAMPLES_SKIP } from '../support/shared-examples.ts';
import { readExampleStreams } from './wc-oracle.ts';

const examples = await readExampleStreams();
// Empty when the official streams are not here; the test that uses it is skipped then.
const flight = examples.find((e) => e.name.endsWith('01_flight-status.json'))?.stream ?? [];

/** Resume: the server sends what the client missed. */
const resume = (stream: readonly unknown[]) => (cut: CutPoint) => stream.slice(cut.cutIndex);
/** Re-initialise: delete every surface the client knows, then send the full state again. */
const reinit = (stream: readonly unknown[]) => (cut: CutPoint) => [...[...cut.hashes.keys()].map((surfaceId) => ({ deleteSurface: { surfaceId } })), ...stream];

describe('drivers', () => {
  it('replay gives snapshots, hashes and all violations including end of stream', () => {
    const result = replay([su(text('a', 'x')), { bad: 1 }]);
    expect([...result.hashes.keys()]).toEqual([S]);
    expect(result.surfaces.get(S)).toMatchObject({ rendering: false, root: null, hash: result.hashes.get(S) });
    expect(result.violations.map((v) => v.code)).toEqual(['CLIENTSIM_UNKNOWN_FIELD', 'CLIENTSIM_MESSAGE_KEY_COUNT', 'CLIENTSIM_STUCK_BUFFERING']);
  });

  it('replay snapshots describe the end of the replay even if the caller drives the client on', () => {
    const result = replay([su(text('a', 'x')), br('a')]);
    const hash = result.hashes.get(S);
    result.sim.apply(su(text('a', 'changed')));
    expect(result.sim.hash(S)).not.toBe(hash);
    expect(result.surfaces.get(S)?.hash).toBe(hash);
  });

  it('compareHashes reports changed and one-sided surfaces, sorted', () => {
    const a = new Map([['x', '1'], ['y', '2'], ['z', '3']]);
    const b = new Map([['y', '2'], ['z', '4'], ['w', '5']]);
    expect(compareHashes(a, b)).toEqual([
      { surfaceId: 'w', a: undefined, b: '5' }, { surfaceId: 'x', a: '1', b: undefined }, { surfaceId: 'z', a: '3', b: '4' },
    ]);
    expect(compareHashes(a, new Map(a))).toEqual([]);
  });

  describe('over an official v0.8 example stream', EXAMPLES_SKIP, () => {
    it('cutting an official example at every point and resuming, or re-initialising, ends in the uninterrupted state', () => {
      for (const reconnect of [resume(flight), reinit(flight)]) {
        const reports = cutAtEveryPoint(flight, reconnect);
        expect(reports.map((r) => r.cutIndex)).toEqual([0, 1, 2, 3]);
        expect(reports.flatMap((r) => r.diffs)).toEqual([]);
      }
    });
  });

  it('a reconnect that loses messages is caught at the cuts where it matters', () => {
    const stream = [su(text('a', 'x')), dm([{ key: 'k', valueNumber: 1 }]), br('a')];
    const lossy = (cut: CutPoint) => stream.slice(cut.cutIndex + 1);
    const bad = cutAtEveryPoint(stream, lossy).filter((r) => r.diffs.length > 0).map((r) => r.cutIndex);
    expect(bad).toEqual([0, 1, 2]);
  });

  it('reload drops client state at the cut: only a full re-init recovers', () => {
    const stream = [su(text('a', 'x')), br('a'), dm([{ key: 'k', valueNumber: 1 }])];
    const reference = replay(stream).hashes;
    expect(compareHashes(reference, cutAndReconnect(stream, 2, resume(stream), { reload: true }).hashes)).not.toEqual([]);
    expect(compareHashes(reference, cutAndReconnect(stream, 2, reinit(stream), { reload: true }).hashes)).toEqual([]);
  });

  it('property: cutAtEveryPoint (one walk, forked states) reports exactly what cutAndReconnect does at each index', () => {
    // Lossy on purpose, and over any message (valid or not): diffs and violations must agree too.
    const lossy = (stream: readonly unknown[]) => (cut: CutPoint) => stream.slice(cut.cutIndex + 1);
    const anyMessage = fc.oneof(wellFormedStreamArb().map((s) => s[0] ?? {}), fc.constant({ bad: 1 }));
    fc.assert(fc.property(fc.oneof(wellFormedStreamArb(), fc.array(anyMessage, { maxLength: 6 })), fc.boolean(), (stream, reload) => {
      for (const reconnect of [resume(stream), reinit(stream), lossy(stream)]) {
        const reports = cutAtEveryPoint(stream, reconnect, { reload });
        expect(reports.map((r) => r.cutIndex)).toEqual([...stream.keys(), stream.length]);
        for (const report of reports) {
          const alone = cutAndReconnect(stream, report.cutIndex, reconnect, { reload });
          expect([...report.result.hashes]).toEqual([...alone.hashes]);
          expect(report.result.violations).toEqual(alone.violations);
          expect(report.result.surfaces).toEqual(alone.surfaces);
          expect(report.diffs).toEqual(compareHashes(replay(stream).hashes, alone.hashes));
        }
      }
    }), { numRuns: 60 });
  });

  it('metamorphic: for generated valid streams, re-initialising after any cut equals no cut (100 runs)', () => {
    fc.assert(fc.property(wellFormedStreamArb(), fc.nat(), (stream, n) => {
      const cut = n % (stream.length + 1);
      const result = cutAndReconnect(stream, cut, reinit(stream));
      expect(compareHashes(replay(stream).hashes, result.hashes)).toEqual([]);
    }), { numRuns: 100 });
  });
});
