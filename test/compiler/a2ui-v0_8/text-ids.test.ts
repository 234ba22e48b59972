import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  COMPONENT_ID_SHAPE, decodeA2uiSurfaceId, encodeA2uiSurfaceId, GUARD_MARK, guardA2uiString, unguardA2uiString,
} from '../../../src/compiler/index.ts';
import { escapeMarkdown } from '../../../src/compiler/index.ts';
import { ADVERSARIAL_TEXT } from '../../support/arbitraries-ir.ts';

/** WC's JSON-string test (a2ui-v0.8.md §4.4 F6), verbatim in behaviour. */
function wcWouldParse(s: string): boolean {
  const t = s.trim();
  return (t.startsWith('{') && t.endsWith('}')) || (t.startsWith('[') && t.endsWith(']'));
}

const arbRisky = fc.oneof(
  fc.string(),
  fc.constantFrom(...ADVERSARIAL_TEXT),
  fc.tuple(fc.constantFrom('[', '{', ' [', '{ '), fc.string(), fc.constantFrom(']', '}', '] ', '}\u2060', ']\u2060\u2060')).map((p) => p.join('')),
  fc.tuple(fc.constantFrom('main', 'side', 'x'), fc.constantFrom('.root', '.f-a', '.b0-1.label'), fc.constantFrom('.Text', '.Card', '.Slider', '.Nope'), fc.constantFrom('', '\u2060', '\u2060\u2060'))
    .map((p) => p.join('')),
);

describe('guarding user strings (JSON-looking and id-shaped text)', () => {
  it('is a bijection: unguard(guard(s)) === s for every string', () => {
    fc.assert(fc.property(arbRisky, (s) => {
      expect(unguardA2uiString(guardA2uiString(s))).toBe(s);
    }), { numRuns: 5000 });
  });

  it('leaves nothing WC would parse as JSON or could take for one of our component ids', () => {
    fc.assert(fc.property(arbRisky, (s) => {
      const g = guardA2uiString(s);
      expect(wcWouldParse(g)).toBe(false);
      expect(COMPONENT_ID_SHAPE.test(g)).toBe(false);
    }), { numRuns: 5000 });
  });

  it('changes only risky strings, by appending one invisible U+2060', () => {
    expect(guardA2uiString('Ada')).toBe('Ada');
    expect(guardA2uiString('a.b')).toBe('a.b');
    expect(guardA2uiString('[1,2]')).toBe(`[1,2]${GUARD_MARK}`);
    expect(guardA2uiString(' {"a":1} ')).toBe(` {"a":1} ${GUARD_MARK}`);
    expect(guardA2uiString('main.root.Card')).toBe(`main.root.Card${GUARD_MARK}`);
    expect(guardA2uiString(`[1]${GUARD_MARK}`)).toBe(`[1]${GUARD_MARK}${GUARD_MARK}`);
    expect(guardA2uiString(`plain${GUARD_MARK}`)).toBe(`plain${GUARD_MARK}`);
    expect(unguardA2uiString(`plain${GUARD_MARK}`)).toBe(`plain${GUARD_MARK}`);
  });
});

describe('Markdown escaping of Text content', () => {
  it('escapes inline and line-start syntax', () => {
    expect(escapeMarkdown('*a* _b_ `c` [d](e) <f> # g ~h~ |i| !j &k; \\')).toBe('\\*a\\* \\_b\\_ \\`c\\` \\[d\\](e) \\<f\\> \\# g \\~h\\~ \\|i\\| \\!j \\&k; \\\\');
    expect(escapeMarkdown('- one\n+ two\n  = three\n12. four\n3) five')).toBe('\\- one\n\\+ two\n  \\= three\n12\\. four\n3\\) five');
    expect(escapeMarkdown('plain text, 3.5 apples - ok')).toBe('plain text, 3.5 apples - ok');
  });
});

describe('A2UI surface id ↔ (IR surface id, epoch)', () => {
  const arbId = fc.tuple(
    fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz'),
    fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789_-e'), maxLength: 39 }),
  ).map(([a, b]) => a + b);

  it('round-trips for every valid id and epoch, including ids that contain "--e<digits>"', () => {
    fc.assert(fc.property(fc.oneof(arbId, fc.constantFrom('x--e1', 'a--e0--e', 'main--e', 'b-', 'c--')), fc.nat({ max: Number.MAX_SAFE_INTEGER }), (id, epoch) => {
      const encoded = encodeA2uiSurfaceId(id, epoch);
      expect(encoded).toMatch(/^[a-z0-9_-]+$/);
      expect(decodeA2uiSurfaceId(encoded)).toEqual({ id, epoch });
    }), { numRuns: 2000 });
    expect(encodeA2uiSurfaceId('main', 0)).toBe('main--e0');
    expect(decodeA2uiSurfaceId('x--e1--e2')).toEqual({ id: 'x--e1', epoch: 2 });
  });

  it('rejects anything that is not a canonical encoding', () => {
    for (const s of ['main', 'main--e', 'main--e01', 'main--e-1', 'Main--e0', 'main--e0 ', '--e0', 'main-e0', 'main--e1.5',
      `${'a'.repeat(41)}--e0`, 'main--e99999999999999999', 'main:e0', '@default']) {
      expect(decodeA2uiSurfaceId(s), s).toBeUndefined();
    }
    expect(() => encodeA2uiSurfaceId('Main', 0)).toThrow(RangeError);
    expect(() => encodeA2uiSurfaceId('main', -1)).toThrow(RangeError);
    expect(() => encodeA2uiSurfaceId('main', 1.5)).toThrow(RangeError);
  });
});
