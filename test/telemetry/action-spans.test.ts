import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newConversation, startE2e, type E2eServer } from '../e2e/support/stack.ts';
import { formOnPage } from '../scale/support/user.ts';
import { openSse } from '../support/sse-client.ts';
import { childrenOf, clientTrace, everything, only, parentOf, recordSpansForTestFile, serverSpan } from './support.ts';

/**
 * Issue 25: an action through the ingress is a `surfacer.action` span under its request's
 * server span, with its outcome and the canonical code the client got: accepted, replayed
 * (the same idempotency key again) and stale (an older rendering of the form).
 */
const recorded = recordSpansForTestFile();
let server: E2eServer;
beforeAll(async () => { server = await startE2e(); });
afterAll(async () => { await server.close(); });

const CARD = { name: 'Aria', personality: 'Brave and kind.', tags: 'brave, kind' };

function actionOf(traceId: string) {
  const spans = recorded.spans().filter((s) => s.spanContext().traceId === traceId);
  const http = serverSpan(spans, 'POST /c/:cid/actions', traceId);
  return { http, action: only(childrenOf(spans, http), (s) => s.name === 'surfacer.action', 'action span') };
}

describe('spans of actions through the ingress', () => {
  it('accepted, replayed and stale: one action span each, with outcome, status and canonical code', async () => {
    const client = server.client();
    const c = await newConversation(server, client, 'create a character card');
    const form = await formOnPage(client, c);
    const submit = (key: string, values: Record<string, string>, traceparent: string) =>
      client.post(`${c.base}/actions`, { ...form, _csrf: c.csrf, _idem: key, _action: 'form.submit', ...values }, { as: 'json', headers: { traceparent } });

    const accepted = clientTrace();
    expect((await submit('key-1', CARD, accepted.traceparent)).status).toBe(200);
    const first = actionOf(accepted.traceId);
    expect(parentOf(first.http)).toBe(accepted.spanId);
    expect(first.action.kind).toBe(SpanKind.INTERNAL);
    expect(first.action.attributes).toEqual({
      'surfacer.conversation.id': c.cid, 'surfacer.surface.id': 'main', 'surfacer.action.kind': 'action', 'surfacer.action.name': 'form.submit',
      'surfacer.action.transport': 'html', 'surfacer.action.outcome': 'applied', 'surfacer.action.status': 200,
    });

    // The same request again (same idempotency key): answered as the first time, applied once.
    const again = clientTrace();
    const replay = await submit('key-1', CARD, again.traceparent);
    expect(await replay.json()).toMatchObject({ replayed: true });
    expect(actionOf(again.traceId).action.attributes).toMatchObject({ 'surfacer.action.outcome': 'replayed', 'surfacer.action.status': 200 });

    // A new request from the form's old rendering (another tab): stale, 409.
    const stale = clientTrace();
    const refused = await submit('key-2', { ...CARD, name: 'Bea' }, stale.traceparent);
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ code: 'A2UI_C2S_SURFACE_STALE' });
    const rejected = actionOf(stale.traceId);
    expect(rejected.action.attributes).toMatchObject({
      'surfacer.action.outcome': 'rejected', 'surfacer.error.code': 'A2UI_C2S_SURFACE_STALE', 'surfacer.action.status': 409,
    });
    // A client's stale form is answered as designed: neither the action nor the request is an error span.
    expect(rejected.action.status.code).not.toBe(SpanStatusCode.ERROR);
    expect(rejected.http.attributes['http.response.status_code']).toBe(409);
    expect(rejected.http.status.code).not.toBe(SpanStatusCode.ERROR);
  });

  it('a request without traceparent starts a trace of its own', async () => {
    const client = server.client();
    const before = new Set(recorded.spans().map((s) => s.spanContext().traceId));
    await client.get('/healthz');
    const spans = recorded.spans().filter((s) => s.name === 'GET /healthz');
    expect(spans).toHaveLength(1);
    expect(spans[0]!.parentSpanContext).toBeUndefined();
    expect(before.has(spans[0]!.spanContext().traceId)).toBe(false);
    expect(spans[0]!.attributes).toMatchObject({ 'http.route': '/healthz', 'http.response.status_code': 200, 'url.path': '/healthz' });
  });

  it('a malformed traceparent is ignored, not an error', async () => {
    const response = await server.client().get('/healthz', { headers: { traceparent: '00-zz-not-a-trace-01' } });
    expect(response.status).toBe(200);
    const span = only(recorded.spans(), (s) => s.name === 'GET /healthz', 'health span');
    expect(span.parentSpanContext).toBeUndefined();
  });

  it('an A2UI stream opened with its token in the query: the route and the path are recorded, the token is not', async () => {
    const client = server.client();
    const c = await newConversation(server, client, 'create a character card');
    const conn = await openSse(`${server.url}${c.a2ui}/stream?token=${encodeURIComponent(c.token)}`);
    conn.close();
    const span = serverSpan(recorded.spans(), 'GET /a2ui/c/:cid/stream');
    expect(span.attributes).toMatchObject({ 'http.route': '/a2ui/c/:cid/stream', 'url.path': `${c.a2ui}/stream`, 'http.response.status_code': 200 });
    expect(everything(recorded.spans())).not.toContain(c.token);
  });
});
