import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalSurface, replay } from '../../src/clientsim/index.ts';
import { wellFormedStreamArb } from './arbitraries.ts';
import { br, column, dm, S, su, text } from './fixtures.ts';

const hashOf = (stream: unknown[]): string | undefined => replay(stream).hashes.get(S);

describe('per-surface state hash', () => {
  it('is a stable SHA-256 of the canonical surface (golden value)', () => {
    const stream = [su(column('r', 'a'), text('a', 'hi')), dm([{ key: 'b', valueNumber: 2 }, { key: 'a', valueString: 'x' }]), br('r', { styles: { primaryColor: '#00BFFF' } })];
    const surface = replay(stream).sim.state().surfaces.get(S)!;
    expect(canonicalSurface(surface)).toBe(
      '{"components":[["a",{"component":{"Text":{"text":{"literalString":"hi"}}},"id":"a"}],["r",{"component":{"Column":{"children":{"explicitList":["a"]}}},"id":"r"}]],'
      + '"dataModel":{"map":[["b",2],["a","x"]]},"rendering":true,"root":"r","styles":{"primaryColor":"#00BFFF"}}',
    );
    expect(hashOf(stream)).toBe('58bc2a5548142a35942be1d1c9c4ed2e69208c2ee3e75699c52e733c63c73f0b');
  });

  it('ignores component order, property order and how components were split across messages', () => {
    const a = hashOf([su(column('r', 'a'), text('a', 'hi')), br('r')]);
    const b = hashOf([su(text('a', 'hi')), su({ id: 'r', component: { Column: { children: { explicitList: ['a'] } } } }, text('a', 'hi')), br('r')]);
    const c = hashOf([su(text('a', 'hi'), { id: 'r', component: { Column: { children: { explicitList: ['a'] } } } }), br('r')]);
    expect(new Set([a, b, c]).size).toBe(1);
  });

  it('distinguishes data insertion order, Map vs parsed JSON, rendering flag, root and styles', () => {
    const base = [su(text('a', 'hi')), dm([{ key: 'x', valueNumber: 1 }, { key: 'y', valueNumber: 2 }]), br('a')];
    const variants = [
      base,
      [su(text('a', 'hi')), dm([{ key: 'y', valueNumber: 2 }, { key: 'x', valueNumber: 1 }]), br('a')],
      [su(text('a', 'hi')), dm([{ key: 'x', valueNumber: 1 }, { key: 'y', valueNumber: 2 }])],
      [...base, br('b')],
      [...base, br('a', { styles: { font: 'serif' } })],
      [su(text('a', 'hi')), dm([{ key: 'm', valueMap: [{ key: 'k', valueNumber: 1 }] }]), br('a')],
      [su(text('a', 'hi')), dm([{ key: 'm', valueString: '{"k":1}' }]), br('a')],
    ];
    expect(new Set(variants.map(hashOf)).size).toBe(variants.length);
  });

  it('is a function of the state only: replaying the same stream twice gives the same hashes (200 runs)', () => {
    fc.assert(fc.property(wellFormedStreamArb(), (stream) => {
      expect(replay(stream).hashes).toEqual(replay(structuredClone(stream)).hashes);
    }), { numRuns: 200 });
  });
});
