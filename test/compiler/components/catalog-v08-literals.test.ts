import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createComponentRegistry, defineComponent } from '../../../src/app-kit/index.ts';
import { appCatalogV08, wireSchemaV08 } from '../../../src/compiler/components/index.ts';
import { GUARD_MARK } from '../../../src/compiler/a2ui-v0_8/text.ts';

/*
 * The published v0.8 app catalogue (/a2ui/catalog/v0.8.json) refuses the literal values the
 * server refuses (review finding: literals were `.refine(...)` in the zod encoding, so their
 * enum, length, pattern and range were lost in the JSON Schema, and the document accepted
 * values the server's validator refuses). Checked with ajv against the server's own zod schema.
 */
const Badge = defineComponent({
  name: 'Badge',
  description: 'A badge with a link.',
  props: z.object({
    tone: z.enum(['calm', 'loud']),
    text: z.string().min(2).max(12),
    href: z.string().regex(/^https:\/\//).optional(),
    count: z.number().int().min(0).max(10).optional(),
    on: z.boolean().optional(),
    tags: z.array(z.string().max(8)).max(3).optional(),
    ratio: z.number().min(0).max(1).default(0.5),
  }),
  bindable: ['href', 'count'],
  html: '<span><%= it.props.text %></span>',
  fallback: () => [],
});

const document = appCatalogV08(createComponentRegistry([Badge]), 'https://example.com/badge/catalog.json');
const ajv = new Ajv2020({ allErrors: true, strict: false });
const published = ajv.compile(document.components.Badge!);
const server = wireSchemaV08(Badge);

const base = { tone: { literalString: 'calm' }, text: { literalString: 'hello' } };

describe('the v0.8 app catalogue holds each literal\'s own schema', () => {
  it('a valid component passes both; a binding where the property is bindable too', () => {
    const ok = { ...base, href: { literalString: 'https://example.com' }, count: { path: '/committed/n' }, tags: { literalArray: ['a', 'b'] }, ratio: { literalNumber: 0.2 } };
    expect(server.safeParse(ok).success).toBe(true);
    expect(published(ok)).toBe(true);
  });

  it.each([
    ['an enum value it does not have', { tone: { literalString: 'quiet' } }],
    ['text too long', { text: { literalString: 'x'.repeat(13) } }],
    ['text too short', { text: { literalString: 'x' } }],
    ['a javascript: URL', { href: { literalString: 'javascript:alert(1)' } }],
    ['a number out of range', { count: { literalNumber: 11 } }],
    ['a fraction where an integer is asked', { count: { literalNumber: 2.5 } }],
    ['a list too long', { tags: { literalArray: ['a', 'b', 'c', 'd'] } }],
    ['a list entry too long', { tags: { literalArray: ['toolongtag'] } }],
    ['a ratio over 1', { ratio: { literalNumber: 2 } }],
    ['a binding where the property is not bindable', { text: { path: '/committed/t' } }],
  ])('refused by both: %s', (_why, patch) => {
    const value = { ...base, ...patch };
    expect(server.safeParse(value).success).toBe(false);
    expect(published(value)).toBe(false);
  });

  it('property: for literals without the guard mark, the catalogue accepts exactly what the server accepts', () => {
    const text = fc.oneof(fc.string({ maxLength: 16 }), fc.constantFrom('calm', 'loud', 'https://a.example', 'javascript:x')).filter((s) => !s.includes(GUARD_MARK));
    const literal = fc.oneof(
      text.map((s) => ({ literalString: s })),
      fc.oneof(fc.integer({ min: -2, max: 12 }), fc.double({ noNaN: true, noDefaultInfinity: true, min: -2, max: 12 })).map((n) => ({ literalNumber: n })),
      fc.boolean().map((b) => ({ literalBoolean: b })),
      fc.array(text, { maxLength: 5 }).map((a) => ({ literalArray: a })),
      fc.constant({ path: '/committed/x' }),
    );
    const keys = Object.keys(Badge.props.shape);
    // Over a valid component, so that each changed property decides.
    fc.assert(fc.property(fc.dictionary(fc.constantFrom(...keys), literal, { maxKeys: 3 }), (patch) => {
      const props = { ...base, ...patch };
      expect(published(props), JSON.stringify(props)).toBe(server.safeParse(props).success);
    }), { numRuns: 400 });
  });
});
