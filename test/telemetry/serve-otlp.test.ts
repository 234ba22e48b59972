import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { trace } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/commands/serve.ts';
import { memoryIo } from '../support/cli-io.ts';

/**
 * `surfacer serve` with the standard OTEL_* variables: the SDK is started, spans go to the
 * OTLP/HTTP endpoint named (a collector stand-in on loopback that records what it is sent),
 * and the last ones are flushed on shutdown.
 */
interface Received { path: string; contentType: string; body: string }

async function startCollector(): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    received.push({ path: req.url ?? '', contentType: req.headers['content-type'] ?? '', body: Buffer.concat(chunks).toString('utf8') });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, received, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => { for (const c of cleanup.splice(0).reverse()) await c(); });

async function serveUntil(env: NodeJS.ProcessEnv, during: (url: string) => Promise<void>): Promise<{ code: number; err: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'surfacer-otel-serve-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  const io = memoryIo({ env: { SURFACER_SESSION_SECRET: 'a-long-enough-secret-for-tests', ...env } });
  const stop = new AbortController();
  const running = run(['--port', '0', '--data', dir], io, stop.signal);
  let url: string | undefined;
  for (let i = 0; i < 200 && url === undefined; i++) {
    url = /listening on (http:\/\/\S+)/.exec(io.out())?.[1];
    if (url === undefined) {
      const done = await Promise.race([running.then(() => true), new Promise<false>((resolve) => setTimeout(() => resolve(false), 25))]);
      if (done) break;
    }
  }
  if (url !== undefined) await during(url);
  stop.abort();
  return { code: await running, err: io.err() };
}

describe('surfacer serve: the OpenTelemetry SDK from the OTEL_* variables', () => {
  it('OTEL_EXPORTER_OTLP_ENDPOINT: request spans reach the collector over OTLP/HTTP, flushed at shutdown', async () => {
    const collector = await startCollector();
    cleanup.push(() => collector.close());
    const { code } = await serveUntil({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_SERVICE_NAME: 'surfacer-otlp-test' }, async (url) => {
      expect(trace.getTracer('probe').startSpan('probe').isRecording()).toBe(true);
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
    });
    // Shut down with the server: the API is a no-op again.
    expect(trace.getTracer('probe').startSpan('probe').isRecording()).toBe(false);
    expect(code).toBe(0);
    const traces = collector.received.filter((r) => r.path === '/v1/traces');
    expect(traces.length).toBeGreaterThan(0);
    const spans = traces.flatMap((t) => (JSON.parse(t.body) as { resourceSpans: Array<{ resource: { attributes: Array<{ key: string; value: { stringValue?: string } }> }; scopeSpans: Array<{ scope: { name: string }; spans: Array<{ name: string; kind: number }> }> }> }).resourceSpans);
    const service = spans[0]!.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue;
    expect(service).toBe('surfacer-otlp-test');
    const names = spans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans.map((span) => `${s.scope.name}: ${span.name}`)));
    expect(names).toContain('surfacer: GET /healthz');
  });

  it('without any OTEL_* variable nothing is exported (the API stays a no-op)', async () => {
    const collector = await startCollector();
    cleanup.push(() => collector.close());
    const { code } = await serveUntil({}, async (url) => {
      expect(trace.getTracer('probe').startSpan('probe').isRecording()).toBe(false);
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
    });
    expect(code).toBe(0);
    expect(collector.received).toEqual([]);
  });

  it('an exporter it does not know is a usage error, before anything listens', async () => {
    const { code, err } = await serveUntil({ OTEL_TRACES_EXPORTER: 'zipkin' }, async () => {
      throw new Error('must not listen');
    });
    expect(code).toBe(2);
    expect(err).toContain('OTEL_TRACES_EXPORTER must be otlp, console or none (got "zipkin")');
  });

  it('SURFACER_OTEL_TRACE_URL without {trace_id} is a usage error', async () => {
    const { code, err } = await serveUntil({ SURFACER_OTEL_TRACE_URL: 'http://127.0.0.1:16686/trace/' }, async () => {
      throw new Error('must not listen');
    });
    expect(code).toBe(2);
    expect(err).toContain('SURFACER_OTEL_TRACE_URL must be an http(s) URL with {trace_id}');
  });
});
