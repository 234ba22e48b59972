import { Hono, type Context, type Handler } from 'hono';
import type { Logger } from '../conversation/index.ts';
import { makeError } from '../errors/index.ts';
import { admitCaller, type Authenticate } from '../hosting/index.ts';

/*
 * GET /metrics, on the main app (createSurfacer) or on a port of its own (SURFACER_METRICS_PORT).
 * The API side only: what collects the text (prometheus.ts, the SDK's exporter) is injected.
 */

/** Where Prometheus scrapes. */
export const METRICS_PATH = '/metrics';

/** The Prometheus text exposition format (what the OTel serializer writes). */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** What `GET /metrics` answers with: the current metrics in the Prometheus text format. */
export interface MetricsEndpoint {
  collect(): Promise<string>;
}

export interface MetricsRouteOptions {
  endpoint: MetricsEndpoint;
  authenticate: Authenticate;
  /** No tokens: loopback callers only (as the agent endpoints). */
  open: boolean;
  logger: Logger;
}

/** `GET /metrics`: bearer token (or loopback only when open), then the text; every refusal is canonical JSON. */
export function metricsHandler(options: MetricsRouteOptions): Handler {
  return async (c: Context) => {
    const admitted = await admitCaller(c, options);
    if (admitted instanceof Response) return admitted;
    let text: string;
    try {
      text = await options.endpoint.collect();
    } catch (error) {
      options.logger.error('metrics collection failed', { error: error instanceof Error ? error.message : String(error) });
      c.header('Cache-Control', 'no-store');
      return c.json(makeError('INTERNAL_ERROR', 'metrics collection failed'), 500);
    }
    return c.body(text, 200, { 'Content-Type': PROMETHEUS_CONTENT_TYPE, 'Cache-Control': 'no-store' });
  };
}

/**
 * The metrics alone, for SURFACER_METRICS_PORT: a scraper reaches them on a port of their own
 * (an internal network) while the main port faces users. Anything else is the canonical 404.
 */
export function createMetricsApp(options: MetricsRouteOptions): Hono {
  const app = new Hono();
  app.get(METRICS_PATH, metricsHandler(options));
  app.notFound((c) => {
    c.header('Cache-Control', 'no-store');
    return c.json(makeError('HTTP_NOT_FOUND', `no route ${c.req.method} ${c.req.path}`), 404);
  });
  app.onError((error, c) => {
    options.logger.error('metrics request failed', { error: error instanceof Error ? error.message : String(error) });
    return c.json(makeError('INTERNAL_ERROR', 'unhandled error'), 500);
  });
  return app;
}
