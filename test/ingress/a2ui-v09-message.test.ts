import { describe, expect, it } from 'vitest';
import {
  DEFAULT_INGRESS_LIMITS, parseA2uiClientEvent, parseA2uiV09ClientMessage, type A2uiEventOptions, type IngressRequest, type ParseResult,
} from '../../src/ingress/index.ts';
import { buildIr, decodeSurfaceId, expectRejected, surfaceOf, userAction } from './fixtures.ts';

/** v0.9 client messages through the same ingress as v0.8 events: same request, same codes and statuses. */
const main = surfaceOf(buildIr());
const opts: A2uiEventOptions = { decodeSurfaceId };
const parse = (body: string | Uint8Array, extra: Partial<A2uiEventOptions> = {}): ParseResult<IngressRequest> =>
  parseA2uiV09ClientMessage(body, { ...opts, ...extra });
const action = (patch: Record<string, unknown> = {}): Record<string, unknown> => ({ ...userAction(main).userAction, ...patch });
const message = (body: Record<string, unknown>, version: unknown = 'v0.9'): string => JSON.stringify({ version, ...body });


describe('parseA2uiV09ClientMessage: accepted', () => {
  it.each(['v0.9', 'v0.9.1'])('an action (%s) gives the request its v0.8 userAction gives', (version) => {
    const v09 = parse(message({ action: action() }, version), { idempotencyKey: 'k-1' });
    const v08 = parseA2uiClientEvent(JSON.stringify(userAction(main)), { ...opts, idempotencyKey: 'k-1' });
    // The same request, which also says the wire it came in (its rejections point into `/action/…`).
    expect(v08.ok && v09).toEqual({ ...v08, request: { ...(v08.ok ? v08.request : {}), dialect: version } });
    expect(v09).toMatchObject({ ok: true, request: { kind: 'action', surfaceId: 'main', epoch: 0, nonce: main.nonce, rev: 0, context: { name: 'Grace' } } });
  });

  it('an error (VALIDATION_FAILED with a pointer, or any other code) becomes a client error', () => {
    expect(parse(message({ error: { code: 'VALIDATION_FAILED', surfaceId: 'main--e0', path: '/components/0/text', message: 'bad' } })))
      .toEqual({ ok: true, request: { kind: 'client_error', transport: 'a2ui', surfaceId: 'main', epoch: 0, clientCode: 'VALIDATION_FAILED', path: '/components/0/text', message: 'bad' } });
    expect(parse(message({ error: { code: 'EXPRESSION_ERROR', surfaceId: 'main--e0', message: 'x' } })))
      .toMatchObject({ ok: true, request: { kind: 'client_error', clientCode: 'EXPRESSION_ERROR' } });
  });

  it('takes rev as the number a v0.9 context carries', () => {
    const result = parse(message({ action: action({ context: { nonce: main.nonce, rev: 0, name: 'x' } }) }));
    expect(result.ok && result.request.kind === 'action' && result.request.rev).toBe(0);
  });
});

describe('parseA2uiV09ClientMessage: A2UI_C2S_ENVELOPE_INVALID 400', () => {
  it.each([
    ['no version', JSON.stringify({ action: action() })],
    ['version v0.8', message({ action: action() }, 'v0.8')],
    ['version a number', message({ action: action() }, 0.9)],
    ['both action and error', message({ action: action(), error: { surfaceId: 'main--e0' } })],
    ['neither', message({})],
    ['an extra top-level key', message({ action: action(), metadata: {} })],
    ['a v0.8 body', JSON.stringify(userAction(main))],
    ['action not an object', message({ action: 'go' })],
    ['an action without surfaceId', message({ action: { ...action(), surfaceId: undefined } })],
    ['a surfaceId without epoch', message({ action: action({ surfaceId: 'main' }) })],
    ['a context without nonce', message({ action: action({ context: { rev: 0 } }) })],
    ['a context with a __proto__ key', `{"version":"v0.9","action":${JSON.stringify(action()).replace('"context":{', '"context":{"__proto__":{"x":1},')}}`],
    ['not JSON', '{"version":'],
  ])('%s', (_label, body) => expectRejected(parse(body), 'A2UI_C2S_ENVELOPE_INVALID', 400));

  it('points into the action', () => {
    expectRejected(parse(message({ action: action({ sourceComponentId: 'b c' }) })), 'A2UI_C2S_ENVELOPE_INVALID', 400, '/action/sourceComponentId');
    expectRejected(parse(message({ action: action({ context: { nonce: main.nonce } }) })), 'A2UI_C2S_ENVELOPE_INVALID', 400, '/action/context/rev');
  });

  it('refuses a malformed Idempotency-Key', () => {
    expectRejected(parse(message({ action: action() }), { idempotencyKey: 'has space' }), 'A2UI_C2S_ENVELOPE_INVALID', 400);
  });
});

describe('parseA2uiV09ClientMessage: A2UI_C2S_CONTEXT_TOO_LARGE 413', () => {
  it('by declared length, by size, by nesting, by a long string', () => {
    expectRejected(parse(message({ action: action() }), { contentLength: DEFAULT_INGRESS_LIMITS.maxBodyBytes + 1 }), 'A2UI_C2S_CONTEXT_TOO_LARGE', 413);
    expectRejected(parse(message({ action: action({ context: { nonce: main.nonce, rev: 0, big: 'x'.repeat(DEFAULT_INGRESS_LIMITS.maxBodyBytes) } }) })),
      'A2UI_C2S_CONTEXT_TOO_LARGE', 413);
    let deep: unknown = 'x';
    for (let i = 0; i < 40; i += 1) deep = { d: deep };
    expectRejected(parse(message({ action: action({ context: { nonce: main.nonce, rev: 0, deep } }) })), 'A2UI_C2S_CONTEXT_TOO_LARGE', 413);
    expectRejected(parse(message({ action: action({ context: { nonce: main.nonce, rev: 0, s: 'y'.repeat(DEFAULT_INGRESS_LIMITS.maxStringLength + 1) } }) })),
      'A2UI_C2S_CONTEXT_TOO_LARGE', 413);
  });
});
