import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { httpServerSpans } from '../../src/telemetry/http-span.ts';
import { inSpan } from '../../src/telemetry/tracing.ts';
import { clientTrace, recordSpansForTestFile } from './support.ts';

/** The server-span middleware alone, on a Hono app of its own (app.request: no socket needed). */
const recorded = recordSpansForTestFile();

function app(): Hono {
  const hono = new Hono();
  hono.use('*', httpServerSpans());
  hono.get('/items/:id', (c) => inSpan('work', {}, async () => c.text(`item ${c.req.param('id')}`)));
  hono.get('/boom', () => { throw new Error('kaput'); });
  hono.onError((_error, c) => c.text('failed', 500));
  return hono;
}

describe('httpServerSpans', () => {
  it('names the span by method and route template; the path keeps the real id; work inside is its child', async () => {
    const response = await app().request('http://example.test/items/42?secret=x');
    expect(response.status).toBe(200);
    const [work, server] = recorded.spans();
    expect(server!.name).toBe('GET /items/:id');
    expect(server!.kind).toBe(SpanKind.SERVER);
    expect(server!.attributes).toEqual({
      'http.request.method': 'GET', 'url.path': '/items/42', 'url.scheme': 'http', 'http.route': '/items/:id', 'http.response.status_code': 200,
    });
    expect(work!.name).toBe('work');
    expect(work!.parentSpanContext?.spanId).toBe(server!.spanContext().spanId);
  });

  it('a 5xx makes the server span an error; a 404 does not', async () => {
    expect((await app().request('http://example.test/boom')).status).toBe(500);
    expect((await app().request('http://example.test/nowhere')).status).toBe(404);
    const [boom, nowhere] = recorded.spans();
    expect(boom!.name).toBe('GET /boom');
    expect(boom!.status.code).toBe(SpanStatusCode.ERROR);
    // No route matched: the name stays the method alone (never the raw path).
    expect(nowhere!.name).toBe('GET');
    expect(nowhere!.attributes['http.response.status_code']).toBe(404);
    expect(nowhere!.status.code).not.toBe(SpanStatusCode.ERROR);
  });

  it('a client trace that is not sampled stays unsampled: nothing of the request is recorded', async () => {
    const client = clientTrace();
    const unsampled = client.traceparent.replace(/-01$/, '-00');
    expect((await app().request('http://example.test/items/7', { headers: { traceparent: unsampled } })).status).toBe(200);
    expect(recorded.spans()).toEqual([]);
    // Sampled, the same request is recorded in the client's trace.
    await app().request('http://example.test/items/7', { headers: { traceparent: client.traceparent } });
    expect(recorded.spans().map((s) => s.spanContext().traceId)).toEqual([client.traceId, client.traceId]);
  });
});
