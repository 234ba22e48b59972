import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileSurfaceToA2uiV09 } from '../../src/compiler/index.ts';
import {
  DATE_REGEX, EMAIL_REGEX, failedRule, NOT_BLANK_REGEX, NUMBER_REGEX, patternProblem, URL_REGEX,
  type FieldBlock, type FieldControl,
} from '../../src/ui-ir/index.ts';
import { open, only, view } from '../compiler/a2ui-v0_9/fixtures.ts';
import { feed, newOracle, officialInput, officialValidity } from '../support/a2ui-v0_9-oracle.ts';

/*
 * Issue 32 item 1: a field's rules read alike by every reader. Patterns first: HTML compiles
 * them with the `v` flag, A2UI's web_core with none; the subset patternProblem takes must give
 * one verdict for every string in both. Then the invariant in words: for any field rules and any
 * value, the v0.9 checks as the official web_core evaluates them say what the server says (the
 * same first message, and the submit button disabled exactly when the server would refuse).
 */

const whole = (regex: string, flags: string) => new RegExp(`^(?:${regex})$`, flags);

/** Patterns from the portable subset's own pieces (and some it refuses, which must be refused). */
const atom: fc.Arbitrary<string> = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom('a', 'b', 'Z', '0', '7', ' ', '@', '_', '\\-', '\\.', '\\d', '\\w', '\\s', '[a-z]', '[0-9A-F]', '[\\w.]', '[ab\\-]', 'é', '\\b') },
  { weight: 1, arbitrary: fc.constantFrom('.', '[^a]', '\\S', '\\D', '\\W', '\\u0041', '[[a]]', '[a--b]', '(?<=a)', '\\p{L}', '😀') },
);
const quantified = fc.tuple(atom, fc.constantFrom('', '', '?', '*', '+', '{2}', '{1,3}', '{0,}')).map(([a, q]) => `${a}${q}`);
const sequence = fc.array(quantified, { minLength: 1, maxLength: 4 }).map((xs) => xs.join(''));
const pattern: fc.Arbitrary<string> = fc.oneof(
  sequence,
  fc.tuple(sequence, sequence).map(([a, b]) => `(?:${a}|${b})`),
  fc.tuple(sequence, sequence).map(([a, b]) => `(?=${a})${b}`),
  fc.tuple(sequence, sequence).map(([a, b]) => `(${a})+${b}`),
);
/** Any text: every code point, lone surrogates, and the characters patterns name. */
const text: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.string({ unit: fc.constantFrom('a', 'b', 'Z', '0', '7', ' ', '@', '_', '-', '.', 'é', '😀', '\ud800', '\n', 'x'), maxLength: 8 }),
);

describe('field patterns', () => {
  it('a pattern the subset takes matches the same strings with and without the v flag', () => {
    let taken = 0;
    fc.assert(fc.property(pattern, fc.array(text, { minLength: 1, maxLength: 20 }), (source, values) => {
      if (patternProblem(source) !== undefined) return;
      taken += 1;
      const plain = whole(source, '');
      const v = whole(source, 'v');
      for (const value of values) expect(plain.test(value), `${source} on ${JSON.stringify(value)}`).toBe(v.test(value));
    }), { numRuns: 3_000 });
    expect(taken).toBeGreaterThan(500);
  });

  it('the fixed patterns (email, link, number, date, not blank) agree in both modes too', () => {
    for (const regex of [EMAIL_REGEX, URL_REGEX, NUMBER_REGEX, DATE_REGEX, NOT_BLANK_REGEX]) {
      fc.assert(fc.property(fc.oneof(text, fc.constantFrom('a@b.co', 'http://x.y/😀', 'https://e.com/a b', '-1.5e3', '2026-02-30', ' \u00a0')), (value) => {
        expect(whole(regex, '').test(value), `${regex} on ${JSON.stringify(value)}`).toBe(whole(regex, 'v').test(value));
      }), { numRuns: 1_000 });
    }
  });

  it('refuses what the two modes read apart, saying what', () => {
    for (const [source, words] of [
      ['a.b', '"."'], ['[^a]', 'negated'], ['\\S+', '\\S'], ['\\u0041', '\\u'], ['[[a]]', 'inside a class'], ['[a--b]', '--'],
      ['(?<=a)b', 'look-behind'], ['😀', 'Basic Multilingual Plane'], ['(', 'not a valid regular expression'], ['[a-]', 'HTML (v flag)'],
    ] as const) {
      expect(patternProblem(source), source).toContain(words);
    }
    for (const source of ['[A-Z]{3}-\\d{4}', '(?:yes|no)', '\\w+@\\w+', '(?=\\w*\\d)\\w{8,}']) expect(patternProblem(source), source).toBeUndefined();
  });
});

/** A field with any rules its control can carry on v0.9 (a number's step and a choice's options are left to the controls). */
const CONTROLS: FieldControl[] = ['text', 'textarea', 'secret', 'email', 'url', 'tags', 'number', 'checkbox'];
const portablePattern = pattern.filter((p) => patternProblem(p) === undefined);
const field: fc.Arbitrary<FieldBlock> = fc.record({
  control: fc.constantFrom(...CONTROLS),
  required: fc.boolean(),
  minLength: fc.option(fc.integer({ min: 1, max: 6 }), { nil: undefined }),
  maxLength: fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined }),
  pattern: fc.option(fc.record({ regex: portablePattern, message: fc.constantFrom('Use the form shown.', 'Not like that.') }), { nil: undefined }),
  min: fc.option(fc.integer({ min: -50, max: 50 }), { nil: undefined }),
  span: fc.option(fc.integer({ min: 0, max: 100 }), { nil: undefined }),
}).map((r): FieldBlock => {
  const base: FieldBlock = { kind: 'field', name: 'answer', label: 'Answer', control: r.control, required: r.required };
  if (r.control === 'number') {
    if (r.min !== undefined) base.min = r.min;
    if (r.span !== undefined) base.max = (r.min ?? 0) + r.span;
  } else if (r.control !== 'checkbox') {
    if (r.minLength !== undefined) base.minLength = r.minLength;
    if (r.maxLength !== undefined) base.maxLength = Math.max(r.maxLength, r.minLength ?? 0);
    if (r.pattern !== undefined) base.pattern = r.pattern;
  }
  return base;
});
const valueFor = (f: FieldBlock): fc.Arbitrary<unknown> => {
  if (f.control === 'checkbox') return fc.boolean();
  // What a number control can hold: a number, nothing, or a number's text (an <input type=number>
  // gives no other). Other text in a number field only a forged stream writes: the server refuses
  // it ("must be a number"), and web_core's numeric reports an expression error for it.
  if (f.control === 'number') {
    const n = fc.oneof(fc.integer({ min: -200, max: 200 }), fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }));
    return fc.oneof(n, n.map(String), fc.constant(''));
  }
  return fc.oneof(text, fc.constantFrom('', '   ', 'a@b.co', 'https://example.com/x', 'ABC-1234', 'yes'));
};

describe('v0.9 checks, as the official web_core evaluates them', () => {
  it('say what the server says, for any field rules and any value: the first message, and the submit button', () => {
    const verdicts = { accepted: 0, refused: 0 };
    fc.assert(fc.property(field.chain((f) => fc.tuple(fc.constant(f), valueFor(f))), ([f, value]) => {
      const { ir } = open('main', view([f]));
      const batch = only(compileSurfaceToA2uiV09(ir.surfaces[0]!));
      const oracle = newOracle();
      const input = `main.f-answer.${f.control === 'checkbox' ? 'CheckBox' : 'TextField'}`;
      // A renderer binds each component as it arrives, before the data model message: no error then either.
      feed(oracle, batch.messages.filter((m) => !('updateDataModel' in m)));
      expect(officialValidity(oracle, 'main--e0', input).errors).toEqual([]);
      expect(officialValidity(oracle, 'main--e0', 'main.a0-form_submit.Button').errors).toEqual([]);
      feed(oracle, batch.messages.filter((m) => 'updateDataModel' in m));
      officialInput(oracle, 'main--e0', input, value);
      const seen = officialValidity(oracle, 'main--e0', input);
      const button = officialValidity(oracle, 'main--e0', 'main.a0-form_submit.Button');
      const refused = failedRule(f, value);
      const label = `${JSON.stringify(f)} with ${JSON.stringify(value)}`;
      expect(seen.validationErrors[0], label).toBe(refused?.message);
      expect([...seen.errors, ...button.errors], label).toEqual([]);
      expect(button.isValid ?? true, label).toBe(refused === undefined);
      verdicts[refused === undefined ? 'accepted' : 'refused'] += 1;
    }), { numRuns: 1_500 });
    // Both verdicts were put to the test, often.
    expect(verdicts.accepted).toBeGreaterThan(200);
    expect(verdicts.refused).toBeGreaterThan(200);
  });
});
