import { describe, expect, it } from 'vitest';
import { SurfacerErrorSchema } from '../../src/errors/index.ts';
import { DEFAULT_INGRESS_LIMITS, parseHtmlFormAction, type ActionRequest, type HtmlFormFields, type ParseResult } from '../../src/ingress/index.ts';
import { buildIr, htmlFields, surfaceOf } from './fixtures.ts';

const main = surfaceOf(buildIr());

function expectRejected(result: ParseResult<ActionRequest>, code: string, status: number): void {
  expect(result.ok).toBe(false);
  if (result.ok) return;
  expect([result.error.code, result.status]).toEqual([code, status]);
  expect(SurfacerErrorSchema.safeParse(result.error).success).toBe(true);
}
const envelope = (r: ParseResult<ActionRequest>) => expectRejected(r, 'A2UI_C2S_ENVELOPE_INVALID', 400);
const tooLarge = (r: ParseResult<ActionRequest>) => expectRejected(r, 'A2UI_C2S_CONTEXT_TOO_LARGE', 413);

describe('parseHtmlFormAction: accepted', () => {
  it('reads hidden fields and keeps the rest as sent', () => {
    const result = parseHtmlFormAction(htmlFields(main, { age: '42', agree: 'on', tags: ['a', 'b'], _csrf: 'tok' }));
    expect(result).toEqual({
      ok: true,
      request: {
        kind: 'action', transport: 'html', surfaceId: 'main', epoch: 0, nonce: main.nonce, rev: 0, action: 'form.submit',
        idempotencyKey: 'render-1 form.submit', context: { name: 'Grace', age: '42', agree: 'on', tags: ['a', 'b'], _csrf: 'tok' },
      },
    });
  });

  it('treats _idem as optional', () => {
    const result = parseHtmlFormAction(htmlFields(main, { _idem: undefined }));
    expect(result.ok && 'idempotencyKey' in result.request).toBe(false);
  });
});

describe('parseHtmlFormAction: A2UI_C2S_ENVELOPE_INVALID 400', () => {
  it.each(['_surface', '_epoch', '_nonce', '_rev', '_action'])('without %s', (name) => {
    const result = parseHtmlFormAction(htmlFields(main, { [name]: undefined }));
    envelope(result);
    expect(!result.ok && result.error.pointer).toBe(`/${name}`);
  });

  it.each([
    ['two _action values', { _action: ['form.submit', 'form.cancel'] }],
    ['empty _action', { _action: '' }],
    ['_action over 128', { _action: 'a'.repeat(129) }],
    ['_surface with bad characters', { _surface: 'Main!' }],
    ['_surface over the id length', { _surface: 'm'.repeat(200) }],
    ['_surface twice', { _surface: ['main', 'side'] }],
    ['_epoch not a number', { _epoch: 'one' }],
    ['_epoch negative', { _epoch: '-1' }],
    ['_rev fractional', { _rev: '1.5' }],
    ['_rev empty', { _rev: '' }],
    ['_nonce with spaces', { _nonce: 'a b c d e f' }],
    ['_nonce empty', { _nonce: '' }],
    ['_idem empty', { _idem: '' }],
    ['_idem twice', { _idem: ['a', 'b'] }],
    ['a field name that is not a data key', { 'tags[]': 'a' }],
    ['a field named like an ingress key', { nonce: 'x' }],
  ])('%s', (_label, patch) => envelope(parseHtmlFormAction(htmlFields(main, patch as Record<string, string | string[]>))));

  it('a field named __proto__ (as an own property, the way a parser may produce it)', () => {
    const fields = JSON.parse(`{"__proto__":"x","_surface":"main","_epoch":"0","_nonce":"${main.nonce}","_rev":"0","_action":"form.submit"}`);
    envelope(parseHtmlFormAction(fields));
  });

  it('non-string values and non-object input', () => {
    envelope(parseHtmlFormAction({ ...htmlFields(main), age: 42 } as unknown as HtmlFormFields));
    envelope(parseHtmlFormAction({ ...htmlFields(main), tags: ['a', 1] } as unknown as HtmlFormFields));
    envelope(parseHtmlFormAction(null as unknown as HtmlFormFields));
    envelope(parseHtmlFormAction([] as unknown as HtmlFormFields));
  });
});

describe('parseHtmlFormAction: A2UI_C2S_CONTEXT_TOO_LARGE 413', () => {
  it('too many fields or values', () => {
    const many: Record<string, string> = {};
    for (let i = 0; i < DEFAULT_INGRESS_LIMITS.maxEntries; i++) many[`f${i}`] = '';
    tooLarge(parseHtmlFormAction(htmlFields(main, many)));
    tooLarge(parseHtmlFormAction(htmlFields(main, { tags: Array(300).fill('a') })));
  });

  it('a value or a name over the string limit', () => {
    const long = 'a'.repeat(DEFAULT_INGRESS_LIMITS.maxStringLength + 1);
    const result = parseHtmlFormAction(htmlFields(main, { name: long }));
    tooLarge(result);
    expect(!result.ok && result.error.pointer).toBe('/name');
    tooLarge(parseHtmlFormAction(htmlFields(main, { [long]: 'x' })));
  });

  it('total size over the body limit', () => {
    const chunk = 'é'.repeat(8000); // 16,000 bytes each
    tooLarge(parseHtmlFormAction(htmlFields(main, { a: chunk, b: chunk, c: chunk, d: chunk, e: chunk })));
    tooLarge(parseHtmlFormAction(htmlFields(main), { limits: { maxBodyBytes: 32 } }));
  });
});

describe('limits', () => {
  it('merge overrides, reuse resolved objects and refuse nonsense', async () => {
    const { resolveLimits } = await import('../../src/ingress/index.ts');
    expect(resolveLimits()).toBe(DEFAULT_INGRESS_LIMITS);
    const custom = resolveLimits({ maxEntries: 10 });
    expect(custom).toEqual({ ...DEFAULT_INGRESS_LIMITS, maxEntries: 10 });
    expect(resolveLimits(custom)).toBe(custom);
    expect(() => resolveLimits({ maxBodyBytes: 0 })).toThrow(RangeError);
    expect(() => resolveLimits({ maxDepth: 1.5 } as never)).not.toThrow();
    expect(() => resolveLimits({ maxContextDepth: 1.5 })).toThrow(RangeError);
  });
});
