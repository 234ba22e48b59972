import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalSurface, compareHashes, createClientSim, replay, type HashOptions } from '../../src/clientsim/index.ts';
import { wellFormedStreamArb } from './arbitraries.ts';
import { br, column, del, dm, S, su, text } from './fixtures.ts';

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

// Comparing states reached along different server paths (per-change updates vs one coalesced
// update vs a fresh init; test/integration/coalescing.test.ts): key order and lingering
// components differ there without being visible, so the hash can be told to ignore them.
describe('relaxed hash options', () => {
  const sorted: HashOptions = { sortDataKeys: true };
  const reachable: HashOptions = { reachableOnly: true };
  const hashWith = (stream: unknown[], options: HashOptions): string | undefined => replay(stream, { hash: options }).hashes.get(S);

  it('sortDataKeys ignores insertion order at every level, of Maps and of parsed JSON objects', () => {
    const a = [su(text('a', 'hi')), dm([{ key: 'x', valueNumber: 1 }, { key: 'm', valueMap: [{ key: 'p', valueString: 'P' }, { key: 'q', valueBoolean: true }] }, { key: 'j', valueString: '{"u":1,"v":2}' }]), br('a')];
    const b = [su(text('a', 'hi')), dm([{ key: 'j', valueString: '{"v":2,"u":1}' }, { key: 'm', valueMap: [{ key: 'q', valueBoolean: true }, { key: 'p', valueString: 'P' }] }, { key: 'x', valueNumber: 1 }]), br('a')];
    expect(hashWith(a, sorted)).toBe(hashWith(b, sorted));
    expect(hashWith(a, {})).not.toBe(hashWith(b, {}));
    // The default (no options) stays order-sensitive: templates iterate Maps in insertion order.
    expect(hashOf(a)).toBe(hashWith(a, {}));
  });

  it('sortDataKeys still tells apart values, Map vs parsed JSON, and array order', () => {
    const base = [su(text('a', 'hi')), dm([{ key: 'x', valueNumber: 1 }, { key: 'y', valueNumber: 2 }]), br('a')];
    const variants = [
      base,
      [su(text('a', 'hi')), dm([{ key: 'x', valueNumber: 2 }, { key: 'y', valueNumber: 1 }]), br('a')],
      [su(text('a', 'hi')), dm([{ key: 'm', valueMap: [{ key: 'k', valueNumber: 1 }] }]), br('a')],
      [su(text('a', 'hi')), dm([{ key: 'm', valueString: '{"k":1}' }]), br('a')],
      [su(text('a', 'hi')), dm([{ key: 'm', valueString: '["p","q"]' }]), br('a')],
      [su(text('a', 'hi')), dm([{ key: 'm', valueString: '["q","p"]' }]), br('a')],
    ];
    expect(new Set(variants.map((v) => hashWith(v, sorted))).size).toBe(variants.length);
  });

  it('sortDataKeys: the hash is invariant under any permutation of the entries (100 runs)', () => {
    const entries = [{ key: 'b', valueNumber: 1 }, { key: '10', valueString: 'ten' }, { key: '2', valueBoolean: false }, { key: 'a', valueMap: [{ key: 'z', valueNumber: 0 }, { key: 'y', valueNumber: 1 }] }];
    const reference = hashWith([su(text('a', 'hi')), dm(entries), br('a')], sorted);
    fc.assert(fc.property(fc.shuffledSubarray(entries, { minLength: entries.length }), (shuffled) => {
      expect(hashWith([su(text('a', 'hi')), dm(shuffled), br('a')], sorted)).toBe(reference);
    }), { numRuns: 100 });
  });

  it('reachableOnly ignores components the rendered tree does not reach, but not reachable changes', () => {
    const fresh = [su(column('r', 'a'), text('a', 'hi')), br('r')];
    // An earlier view had `old`; the update re-sent the root without it, so `old` lingers.
    const updated = [su(column('r', 'old'), text('old', 'bye')), br('r'), su(column('r', 'a'), text('a', 'hi'))];
    expect(hashWith(updated, reachable)).toBe(hashWith(fresh, reachable));
    expect(hashWith(updated, {})).not.toBe(hashWith(fresh, {}));
    expect(hashWith([su(column('r', 'a'), text('a', 'hello')), br('r')], reachable)).not.toBe(hashWith(fresh, reachable));
    // Buffering: nothing is rendered yet, so every component counts.
    expect(hashWith([su(column('r', 'a'), text('a', 'hi'), text('x', 'y'))], reachable)).not.toBe(hashWith([su(column('r', 'a'), text('a', 'hi'))], reachable));
  });

  it('the ClientSim option is the default of hash()/hashes() and of the drivers; an explicit argument wins', () => {
    const stream = [su(text('a', 'hi')), dm([{ key: 'y', valueNumber: 2 }, { key: 'x', valueNumber: 1 }]), br('a')];
    const swapped = [su(text('a', 'hi')), dm([{ key: 'x', valueNumber: 1 }, { key: 'y', valueNumber: 2 }]), br('a')];
    const sim = createClientSim({ hash: sorted });
    sim.applyAll(stream);
    expect(sim.hash(S)).toBe(hashWith(swapped, sorted));
    expect(sim.hashes().get(S)).toBe(sim.hash(S));
    expect(sim.hash(S, {})).toBe(hashOf(stream));
    expect(compareHashes(replay(stream, { hash: sorted }).hashes, replay(swapped, { hash: sorted }).hashes)).toEqual([]);
    expect(replay([...stream, del()], { hash: sorted }).hashes.size).toBe(0);
  });
});

