import { DataModel as OfficialDataModel } from '@a2ui/web_core/v0_9';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { getData, setData } from '../../src/a2ui-v0_9-protocol/index.ts';
import { taggedJson } from '../clientsim/wc-oracle.ts';

/** Our copy-on-write data model against the official DataModel: same results, same refusals, inputs untouched. */
const SEGMENTS = ['a', 'b', '0', '1', '2', 'x~1y', '__proto__', 'constructor'];
const path = fc.oneof(fc.constantFrom('/', ''), fc.array(fc.constantFrom(...SEGMENTS), { minLength: 1, maxLength: 4 }).map((s) => `/${s.join('/')}`));
const value: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(undefined), fc.string({ maxLength: 2 }), fc.integer(), fc.boolean(),
  fc.array(fc.integer(), { maxLength: 3 }), fc.dictionary(fc.constantFrom('a', 'b', '0'), fc.integer(), { maxKeys: 2 }),
);

describe('a2ui-v0_9-protocol data model vs @a2ui/web_core DataModel', () => {
  it('agrees on every write sequence (3,000 runs)', () => {
    fc.assert(fc.property(fc.array(fc.tuple(path, value), { maxLength: 8 }), fc.array(path, { maxLength: 4 }), (writes, reads) => {
      const official = new OfficialDataModel({});
      let ours: unknown = {};
      for (const [p, v] of writes) {
        const before = JSON.stringify(ours);
        let threw = false;
        try { official.set(p, v === undefined ? undefined : structuredClone(v)); } catch { threw = true; }
        const result = setData(ours, p, v);
        expect(!result.ok, `${p} ${JSON.stringify(v)}`).toBe(threw);
        if (result.ok) ours = result.data;
        else expect(JSON.stringify(ours)).toBe(before);
        expect(taggedJson(ours)).toBe(taggedJson(official.get('/')));
      }
      for (const p of reads) {
        if (p.split('/').some((s) => s === '__proto__' || s === 'constructor')) continue;
        expect(taggedJson(getData(ours, p))).toBe(taggedJson(official.get(p)));
      }
    }), { numRuns: 3000 });
  });
});
