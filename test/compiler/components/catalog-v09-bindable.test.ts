import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Catalog } from '@a2ui/web_core/v0_9';
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createComponentRegistry, defineComponent } from '../../../src/app-kit/index.ts';
import { appCatalogFromDocumentV09, appCatalogV09, wireSchemaV09 } from '../../../src/compiler/components/index.ts';

/*
 * The published v0.9 app catalogue refuses what the server refuses for a bindable property too:
 * it was the protocol's dynamic type alone (any string, binding or function call), so a literal
 * the property's schema refuses (a javascript: URL where https is asked) passed it. Now the
 * dynamic type (which the official loader reads to resolve bindings) and, beside it, the
 * property's own schema or a binding. Checked with ajv (the official common types loaded)
 * against the server's zod schema, and read back by our loader and the official one.
 */
const Link = defineComponent({
  name: 'Link',
  description: 'A link.',
  props: z.object({
    href: z.string().regex(/^https:\/\//).max(200).optional(),
    count: z.number().int().min(0).max(10).optional(),
    tone: z.enum(['calm', 'loud']).optional(),
    text: z.string().min(1).max(20),
  }),
  bindable: ['href', 'count', 'tone'],
  html: '<a href="<%= it.props.href ?? "#" %>"><%= it.props.text %></a>',
  fallback: () => [],
});
const CATALOG_ID = 'https://example.com/link/catalog.json';
const document = appCatalogV09(createComponentRegistry([Link]), CATALOG_ID);
const commonTypes = JSON.parse(readFileSync(path.join(path.dirname(createRequire(import.meta.url).resolve('@a2ui/web_core/v0_9')),
  'schemas', 'common_types.json'), 'utf8')) as Record<string, unknown>;
const ajv = new Ajv2020({ allErrors: true, strict: false });
ajv.addSchema(commonTypes);
// common_types names the functions of the catalogue in use as `catalog.json`: the app catalogue has none.
ajv.addSchema({ $id: 'https://a2ui.org/specification/v0_9/catalog.json', $defs: { anyFunction: false } });
ajv.addSchema(JSON.parse(JSON.stringify(document)) as Record<string, unknown>);
const published = ajv.getSchema(`${CATALOG_ID}#/components/Link`)!;
const server = wireSchemaV09(Link);
const loaded = appCatalogFromDocumentV09(JSON.parse(JSON.stringify(document)));
if (!loaded.ok) throw new Error(loaded.message);
const readBack = loaded.catalog.components.get('Link')!;

const base = { id: 'l1', component: 'Link', text: 'Docs' };
const all = (value: Record<string, unknown>): boolean[] => [server.safeParse(value).success, published(value) as boolean, readBack.safeParse(value).success];

describe('the v0.9 app catalogue: a bindable property is its own schema or a binding', () => {
  it('a literal that passes, and a binding, pass everywhere', () => {
    expect(all({ ...base, href: 'https://example.com', count: 3, tone: 'calm' })).toEqual([true, true, true]);
    expect(all({ ...base, href: { path: '/committed/url' }, count: { path: '/committed/n' } })).toEqual([true, true, true]);
  });

  it.each([
    ['a javascript: URL', { href: 'javascript:alert(1)' }],
    ['a number out of range', { count: 11 }],
    ['an enum value it does not have', { tone: 'quiet' }],
    ['a function call (the server emits none)', { href: { call: 'formatString', args: { value: 'x' }, returnType: 'string' } }],
  ])('refused everywhere: %s', (_why, patch) => {
    expect(all({ ...base, ...patch })).toEqual([false, false, false]);
  });

  it('the official loader still reads each bindable property as the protocol\'s dynamic type (it resolves bindings by it)', () => {
    const official = Catalog.fromSchema(JSON.parse(JSON.stringify(document)) as never);
    const link = official.components.get('Link') as unknown as { schema: z.ZodObject };
    const described = (key: string): string => String((link.schema.shape[key] as z.ZodType | undefined)?.description ?? '');
    expect(described('href')).toContain('DynamicString');
    expect(described('count')).toContain('DynamicNumber');
    expect(described('tone')).toContain('DynamicString');
  });

  it('property: the catalogue (ajv) and its read-back accept exactly what the server accepts', () => {
    const value = fc.oneof(
      fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('calm', 'loud', 'https://a.example', 'javascript:x')),
      fc.oneof(fc.integer({ min: -2, max: 12 }), fc.double({ noNaN: true, noDefaultInfinity: true, min: -2, max: 12 })),
      fc.boolean(),
      fc.constant({ path: '/committed/x' }),
      fc.constant({ call: 'now', returnType: 'string' }),
    );
    fc.assert(fc.property(fc.dictionary(fc.constantFrom('href', 'count', 'tone', 'text'), value, { maxKeys: 3 }), (patch) => {
      const props = { ...base, ...patch };
      const expected = server.safeParse(props).success;
      expect([published(props), readBack.safeParse(props).success], JSON.stringify(props)).toEqual([expected, expected]);
    }), { numRuns: 300 });
  });
});
