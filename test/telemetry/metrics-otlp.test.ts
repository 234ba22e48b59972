import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { surfacerMetrics } from '../../src/telemetry/metrics.ts';
import { metricsSettings } from '../../src/telemetry/metrics-sdk.ts';
import { startTelemetry } from '../../src/telemetry/sdk.ts';

/*
 * OTEL_METRICS_EXPORTER=otlp: the SDK's OTLP/HTTP exporter pushes to the endpoint the standard
 * variables name — here a collector stand-in on a loopback port that keeps what it receives.
 */

let receiver: Server;
let url: string;
const received: Array<{ path: string; type: string; body: string }> = [];

beforeAll(async () => {
  receiver = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ path: req.url ?? '', type: req.headers['content-type'] ?? '', body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(async () => { await new Promise((resolve) => receiver.close(resolve)); });

describe('metrics over OTLP', () => {
  it('pushes the recorded metrics to OTEL_EXPORTER_OTLP_ENDPOINT/v1/metrics with the service name', async () => {
    const telemetry = await startTelemetry({
      env: { OTEL_METRICS_EXPORTER: 'otlp', OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: `${url}/`, OTEL_SERVICE_NAME: 'surfacer-otlp-test' },
    });
    try {
      expect(telemetry.tracing).toBe(false);
      expect(telemetry.metricsEndpoint).toBeUndefined();
      const metrics = surfacerMetrics(telemetry.meterProvider);
      metrics.action('rejected', 'A2UI_C2S_SURFACE_STALE');
      metrics.redisCommand(0.002);
      await telemetry.forceFlush();
    } finally {
      await telemetry.shutdown();
    }
    const pushed = received.filter((r) => r.path === '/v1/metrics');
    expect(pushed.length).toBeGreaterThan(0);
    const body = pushed.map((r) => r.body).join('\n');
    for (const text of ['surfacer.actions', 'A2UI_C2S_SURFACE_STALE', 'surfacer.redis.command.duration', 'surfacer-otlp-test']) expect(body).toContain(text);
  });

  it('settings: off unless asked; an OTLP endpoint alone means otlp; none wins; SDK disabled wins', () => {
    expect(metricsSettings({})).toMatchObject({ ok: true, settings: { exporters: [] } });
    expect(metricsSettings({ OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'http://127.0.0.1:4318/v1/metrics' }))
      .toMatchObject({ ok: true, settings: { exporters: ['otlp'], otlpMetricsUrl: 'http://127.0.0.1:4318/v1/metrics' } });
    expect(metricsSettings({ SURFACER_METRICS_PORT: '9464' })).toMatchObject({ ok: true, settings: { exporters: ['prometheus'], port: 9464 } });
    expect(metricsSettings({ OTEL_METRICS_EXPORTER: 'prometheus,none' })).toMatchObject({ ok: true, settings: { exporters: [] } });
    expect(metricsSettings({ OTEL_METRICS_EXPORTER: 'prometheus', OTEL_SDK_DISABLED: 'true' })).toMatchObject({ ok: true, settings: { exporters: [] } });
    expect(metricsSettings({ OTEL_METRIC_EXPORT_INTERVAL: '0' })).toMatchObject({ ok: false });
    expect(metricsSettings({ SURFACER_METRICS_PORT: '70000' })).toMatchObject({ ok: false });
  });
});
