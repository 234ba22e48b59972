import { context, propagation, SpanStatusCode, trace, type TextMapGetter } from '@opentelemetry/api';
import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import { failSpan, SpanKind, tracer, tracingOff } from './tracing.ts';

const headers: TextMapGetter<Headers> = {
  get: (carrier, key) => carrier.get(key) ?? undefined,
  keys: (carrier) => {
    const keys: string[] = [];
    carrier.forEach((_value, key) => keys.push(key));
    return keys;
  },
};

/**
 * A SERVER span per HTTP request, continuing the caller's trace when it sends a W3C
 * `traceparent` (propagation.extract with the registered propagator), and active while the
 * routes run so that turns, actions and Redis batches nest beneath it. Named `{method} {route}`
 * once the route is known (the template, never the conversation id of the path).
 *
 * A streamed response (SSE) ends its span when the handler hands the stream over: the span
 * times the request up to its headers, not the life of the stream.
 */
export function httpServerSpans(): MiddlewareHandler {
  return async (c, next) => {
    // No SDK registered and no propagator: no span would record, no context would be carried.
    if (tracingOff() && propagation.fields().length === 0) return next();
    const method = c.req.method;
    const parent = propagation.fields().length === 0 ? context.active() : propagation.extract(context.active(), c.req.raw.headers, headers);
    // The path, never the query: an A2UI stream may carry its bearer token there (`?token=`).
    const span = tracer().startSpan(method, {
      kind: SpanKind.SERVER,
      attributes: { 'http.request.method': method, 'url.path': c.req.path, 'url.scheme': c.req.url.startsWith('https:') ? 'https' : 'http' },
    }, parent);
    // No SDK registered: nothing to record and no context to carry.
    if (!span.isRecording() && propagation.fields().length === 0) return next();
    try {
      await context.with(trace.setSpan(parent, span), next);
    } catch (error) {
      failSpan(span, error);
      throw error;
    } finally {
      const route = routePath(c);
      const status = c.res.status;
      if (route !== '' && route !== '*' && route !== '/*') {
        span.updateName(`${method} ${route}`);
        span.setAttribute('http.route', route);
      }
      span.setAttribute('http.response.status_code', status);
      // Server spans: only 5xx are errors (a 4xx is the client's mistake, answered as designed).
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
  };
}
