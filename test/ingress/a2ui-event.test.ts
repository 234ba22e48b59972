import { describe, expect, it } from 'vitest';
import { DEFAULT_INGRESS_LIMITS, parseA2uiClientEvent, type A2uiEventOptions, type ParseResult, type IngressRequest } from '../../src/ingress/index.ts';
import { a2uiBody, buildIr, decodeSurfaceId, expectRejected, surfaceOf, userAction } from './fixtures.ts';

const ir = buildIr();
const main = surfaceOf(ir);
const opts: A2uiEventOptions = { decodeSurfaceId };
const parse = (body: string | Uint8Array, extra: Partial<A2uiEventOptions> = {}) => parseA2uiClientEvent(body, { ...opts, ...extra });

const envelope = (r: ParseResult<IngressRequest>) => expectRejected(r, 'A2UI_C2S_ENVELOPE_INVALID', 400);
const tooLarge = (r: ParseResult<IngressRequest>) => expectRejected(r, 'A2UI_C2S_CONTEXT_TOO_LARGE', 413);
const withUserAction = (patch: Record<string, unknown>, drop: string[] = []) => {
  const ua: Record<string, unknown> = { ...userAction(main).userAction, ...patch };
  for (const k of drop) delete ua[k];
  return JSON.stringify({ userAction: ua });
};
const withContext = (context: Record<string, unknown>) => a2uiBody(main, { context });

describe('parseA2uiClientEvent: accepted', () => {
  it('normalises a stock userAction', () => {
    const result = parse(a2uiBody(main, { sourceComponentId: 'btn:row-1' }), { idempotencyKey: 'k-1' });
    expect(result).toEqual({
      ok: true,
      request: {
        kind: 'action', transport: 'a2ui', surfaceId: 'main', epoch: 0, nonce: main.nonce, rev: 0, action: 'form.submit',
        context: { name: 'Grace' }, sourceComponentId: 'btn:row-1', timestamp: '2026-01-01T00:00:10.000Z', idempotencyKey: 'k-1',
      },
    });
  });

  it('takes rev as a number or numeric string, bytes, a BOM, and a timestamp with offset', () => {
    const body = a2uiBody(main, { timestamp: '2026-01-01T01:00:00+01:00', context: { nonce: main.nonce, rev: '0' } });
    const bytes = new TextEncoder().encode(`\uFEFF${body}`);
    const result = parse(bytes);
    expect(result.ok && result.request.kind === 'action' && result.request.rev).toBe(0);
  });

  it('leaves the idempotency key out when the header is absent', () => {
    const result = parse(a2uiBody(main), { idempotencyKey: null });
    expect(result.ok && 'idempotencyKey' in result.request).toBe(false);
  });

  it('accepts a v0.9-like error event leniently', () => {
    const long = 'x'.repeat(2000);
    const result = parse(JSON.stringify({ error: { code: 'VALIDATION_FAILED', surfaceId: 'main--e0', path: '/draft/x', message: long, extra: 1 } }));
    expect(result.ok).toBe(true);
    if (!result.ok || result.request.kind !== 'client_error') return;
    expect(result.request).toMatchObject({ surfaceId: 'main', epoch: 0, clientCode: 'VALIDATION_FAILED', path: '/draft/x' });
    expect(result.request.message).toHaveLength(500);
    const sparse = parse(JSON.stringify({ error: { surfaceId: 'main--e0', code: 42, path: false } }));
    expect(sparse.ok && sparse.request).toEqual({ kind: 'client_error', transport: 'a2ui', surfaceId: 'main', epoch: 0, clientCode: 'UNKNOWN' });
  });
});

describe('parseA2uiClientEvent: A2UI_C2S_ENVELOPE_INVALID 400', () => {
  it.each([
    ['not JSON', '{"userAction":'],
    ['empty body', ''],
    ['a JSON array', '[]'],
    ['a JSON string', '"userAction"'],
    ['null', 'null'],
    ['no key', '{}'],
    ['both keys', JSON.stringify({ ...userAction(main), error: { surfaceId: 'main--e0' } })],
    ['an extra top-level key', JSON.stringify({ ...userAction(main), clientUiCapabilities: {} })],
    ['an unknown key', JSON.stringify({ request: {} })],
    ['userAction not an object', JSON.stringify({ userAction: 'go' })],
    ['error not an object', JSON.stringify({ error: ['x'] })],
    ['error without surfaceId', JSON.stringify({ error: { code: 'X' } })],
  ])('%s', (_label, body) => envelope(parse(body)));

  it.each(['name', 'surfaceId', 'sourceComponentId', 'timestamp', 'context'])('userAction without %s', (field) => {
    envelope(parse(withUserAction({}, [field])));
  });

  it.each([
    ['empty name', { name: '' }],
    ['name over 128', { name: 'a'.repeat(129) }],
    ['numeric name', { name: 7 }],
    ['timestamp not ISO', { timestamp: '01/01/2026' }],
    ['timestamp a number', { timestamp: 1767225600000 }],
    ['context an array', { context: [] }],
    ['context null', { context: null }],
    ['surfaceId with a space', { surfaceId: 'main --e0' }],
    ['surfaceId with a slash', { surfaceId: 'main/--e0' }],
    ['surfaceId over 128', { surfaceId: `${'m'.repeat(125)}--e0` }],
    ['surfaceId without epoch', { surfaceId: 'main' }],
    ['surfaceId with a negative epoch', { surfaceId: 'main--e-1' }],
    ['sourceComponentId with <', { sourceComponentId: '<b>' }],
    ['sourceComponentId over 128', { sourceComponentId: 'b'.repeat(129) }],
    ['sourceComponentId empty', { sourceComponentId: '' }],
  ])('%s', (_label, patch) => envelope(parse(withUserAction(patch))));

  it('points at the offending field', () => {
    const result = parse(withUserAction({ sourceComponentId: 'b c' }));
    expect(!result.ok && result.error.pointer).toBe('/userAction/sourceComponentId');
  });

  it.each([
    ['nonce missing', { rev: 0 }],
    ['nonce empty', { nonce: '', rev: 0 }],
    ['nonce a number', { nonce: 12345678, rev: 0 }],
    ['nonce with bad characters', { nonce: 'abc def!', rev: 0 }],
    ['rev missing', { nonce: 'n' }],
    ['rev negative', { nonce: 'n', rev: -1 }],
    ['rev fractional', { nonce: 'n', rev: 1.5 }],
    ['rev "3.0"', { nonce: 'n', rev: '3.0' }],
    ['rev " 3"', { nonce: 'n', rev: ' 3' }],
    ['rev "0x1"', { nonce: 'n', rev: '0x1' }],
    ['rev huge', { nonce: 'n', rev: '99999999999999999' }],
    ['rev boolean', { nonce: 'n', rev: true }],
  ])('context %s', (_label, context) => envelope(parse(withContext(context))));

  it.each([
    ['__proto__', '{"__proto__":"x"}'],
    ['a.b', '{"a.b":"x"}'],
    ['tags[]', '{"tags[]":"x"}'],
    ['nested __proto__', '{"m":{"__proto__":{"polluted":true}}}'],
    ['nested constructor', '{"m":[{"constructor":"x"}]}'],
  ])('context key %s', (_label, extra) => {
    const body = `{"userAction":{"name":"form.submit","surfaceId":"main--e0","sourceComponentId":"s","timestamp":"2026-01-01T00:00:00Z","context":{"nonce":"${main.nonce}","rev":0,"x":${extra}}}}`;
    envelope(parse(body));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('a top-level __proto__ context key cannot give the context a prototype', () => {
    const body = `{"userAction":{"name":"form.submit","surfaceId":"main--e0","sourceComponentId":"s","timestamp":"2026-01-01T00:00:00Z","context":{"nonce":"${main.nonce}","rev":0,"__proto__":{"name":"Evil","polluted":true}}}}`;
    const result = parse(body);
    envelope(result);
    expect(!result.ok && result.error.pointer).toBe('/userAction/context/__proto__');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('a decoder that throws or returns nonsense', () => {
    envelope(parse(a2uiBody(main), { decodeSurfaceId: () => { throw new Error('boom'); } }));
    envelope(parse(a2uiBody(main), { decodeSurfaceId: () => ({ id: 'Main!', epoch: 0 }) }));
    envelope(parse(a2uiBody(main), { decodeSurfaceId: () => ({ id: 'main', epoch: -1 }) }));
    envelope(parse(a2uiBody(main), { decodeSurfaceId: () => ({ id: 'main', epoch: 0.5 }) }));
  });

  it('invalid UTF-8 and a bad Idempotency-Key', () => {
    envelope(parse(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d])));
    envelope(parse(a2uiBody(main), { idempotencyKey: '' }));
    envelope(parse(a2uiBody(main), { idempotencyKey: 'has space' }));
    envelope(parse(a2uiBody(main), { idempotencyKey: 'k'.repeat(129) }));
  });
});

describe('parseA2uiClientEvent: A2UI_C2S_CONTEXT_TOO_LARGE 413', () => {
  const max = DEFAULT_INGRESS_LIMITS.maxBodyBytes;

  it('refuses a body over the byte limit before parsing it (even when it is not JSON)', () => {
    tooLarge(parse('x'.repeat(max + 1)));
    tooLarge(parse(new Uint8Array(max + 1)));
    tooLarge(parse(a2uiBody(main), { contentLength: max + 1 }));
    expect(parse('x'.repeat(max)).ok).toBe(false);
    envelope(parse('x'.repeat(max)));
  });

  it('counts UTF-8 bytes, not characters', () => {
    const chars = Math.floor(max / 3) + 1; // each "€" is 3 bytes
    tooLarge(parse(withContext({ nonce: main.nonce, rev: 0, name: '€'.repeat(chars) }), { limits: { maxStringLength: max } }));
  });

  it('honours a smaller configured body limit', () => {
    tooLarge(parse(a2uiBody(main), { limits: { maxBodyBytes: 64 } }));
  });

  it('refuses deep nesting without recursing (scan before parse)', () => {
    const deep = `{"userAction":{"context":{"a":${'['.repeat(30_000)}${']'.repeat(30_000)}}}}`;
    tooLarge(parse(deep));
    const unbalanced = '['.repeat(max);
    tooLarge(parse(unbalanced));
    const five = withContext({ nonce: main.nonce, rev: 0, a: [[[['x']]]] });
    tooLarge(parse(five));
    const four = withContext({ nonce: main.nonce, rev: 0, a: [[['x']]] });
    expect(parse(four).ok).toBe(true);
  });

  it('ignores brackets inside strings when scanning depth', () => {
    const body = withContext({ nonce: main.nonce, rev: 0, name: '[[[[[[[[[[{{{{{{{{\\"' });
    expect(parse(body).ok).toBe(true);
  });

  it('refuses too many keys or items', () => {
    const many: Record<string, unknown> = { nonce: main.nonce, rev: 0 };
    for (let i = 0; i < DEFAULT_INGRESS_LIMITS.maxEntries; i++) many[`k${i}`] = '';
    tooLarge(parse(withContext(many)));
    tooLarge(parse(withContext({ nonce: main.nonce, rev: 0, tags: Array(300).fill('a') })));
  });

  it('refuses long strings and long keys', () => {
    const long = 'a'.repeat(DEFAULT_INGRESS_LIMITS.maxStringLength + 1);
    const result = parse(withContext({ nonce: main.nonce, rev: 0, name: long }));
    tooLarge(result);
    expect(!result.ok && result.error.pointer).toBe('/userAction/context/name');
    tooLarge(parse(withContext({ nonce: main.nonce, rev: 0, [long]: 'x' })));
    tooLarge(parse(JSON.stringify({ error: { surfaceId: 'main--e0', message: long } })));
  });
});
