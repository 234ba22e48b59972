import { request as httpRequest } from 'node:http';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDemoApp } from '../../src/app/index.ts';
import { isErrorCode } from '../../src/errors/index.ts';
import type { RunningServer } from '../../src/host-html/index.ts';
import { createSurfacer, SurfacerConfigError } from '../../src/server/index.ts';
import { createPrometheusEndpoint } from '../../src/telemetry/prometheus.ts';
import { parsePrometheusText } from '../support/prometheus-text.ts';

/*
 * Who may read GET /metrics: the agent endpoints' rule (src/hosting/agent-gate.ts admitCaller).
 * With SURFACER_API_TOKENS, a bearer token; without, loopback callers under a loopback name
 * only, and no bind beyond loopback. Then junk (methods, headers, paths, queries) never crashes
 * and every refusal is the canonical error.
 */

const TOKEN = 'metrics-auth-token-0123456789';

function startWith(env: Record<string, string>) {
  const endpoint = createPrometheusEndpoint();
  const provider = new MeterProvider({ readers: [endpoint.reader] });
  const surfacer = createSurfacer({ app: createDemoApp(), env, meterProvider: provider, metricsEndpoint: endpoint });
  return { surfacer, provider };
}

/** A raw request (node:http: fetch would not send a Host header of our choosing). */
function raw(url: string, options: { method?: string; headers?: Record<string, string>; path?: string }): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: target.hostname, port: target.port, method: options.method ?? 'GET', path: options.path ?? '/metrics', headers: options.headers ?? {},
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('GET /metrics with SURFACER_API_TOKENS', () => {
  let server: RunningServer;
  let provider: MeterProvider;
  beforeAll(async () => {
    const started = startWith({ SURFACER_API_TOKENS: `other-token-abcdefghij, ${TOKEN}` });
    provider = started.provider;
    server = await started.surfacer.listen({ port: 0 });
  });
  afterAll(async () => {
    await server.close(1000);
    await provider.shutdown();
  });

  it('no token, a wrong one, another scheme: 401, canonical, with the scheme to use; the right token: the text', async () => {
    for (const headers of [{} as Record<string, string>, { authorization: 'Bearer nope' }, { authorization: `Basic ${TOKEN}` }, { authorization: `Bearer ${TOKEN}x` }, { authorization: 'Bearer' }]) {
      const res = await fetch(`${server.url}/metrics`, { headers });
      expect(res.status, JSON.stringify(headers)).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="surfacer"');
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(await res.json()).toMatchObject({ code: 'HTTP_UNAUTHORIZED', category: 'session', recovery_path: 'reauthenticate' });
    }
    const ok = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('cache-control')).toBe('no-store');
    const families = parsePrometheusText(await ok.text());
    expect(families.get('target_info')?.type).toBe('gauge');
  });

  it('fuzz: methods, Authorization and Accept headers, paths and query junk never crash; refusals are canonical', async () => {
    const method = fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS');
    const authorization = fc.oneof(
      fc.constant(undefined), fc.constant(`Bearer ${TOKEN}`), fc.constant(`bearer   ${TOKEN}  `),
      fc.string({ maxLength: 60 }).map((s) => `Bearer ${s}`), fc.string({ maxLength: 60 }),
    );
    const path = fc.constantFrom('/metrics', '/metrics/', '/METRICS', '/metrics/x', '/metrics.txt', '//metrics');
    const query = fc.oneof(fc.constant(''), fc.string({ maxLength: 40 }).map((s) => `?${encodeURIComponent(s)}`), fc.constant('?name[]=%00&format=protobuf'));
    const accept = fc.constantFrom(undefined, 'application/json', 'text/html', 'application/openmetrics-text; version=1.0.0', '*/*');
    await fc.assert(fc.asyncProperty(method, authorization, path, query, accept, async (m, auth, p, q, acc) => {
      const headers: Record<string, string> = {};
      // Header values with characters HTTP forbids are the client library's business, not ours.
      if (auth !== undefined && /^[\t\x20-\x7e]*$/.test(auth)) headers.authorization = auth;
      if (acc !== undefined) headers.accept = acc;
      const res = await raw(server.url, { method: m, headers, path: `${p}${q}` });
      expect(res.status, `${m} ${p}${q}`).toBeLessThan(500);
      const admitted = (m === 'GET' || m === 'HEAD') && p === '/metrics' && headers.authorization !== undefined
        && /^Bearer +metrics-auth-token-0123456789\s*$/i.test(headers.authorization);
      if (admitted) {
        expect(res.status).toBe(200);
        if (m === 'GET') parsePrometheusText(res.body);
        return;
      }
      expect(res.status).not.toBe(200);
      if (m === 'HEAD') return;
      const type = String(res.headers['content-type'] ?? '');
      // The canonical error: as JSON, or (a browser asking for a page) the error page carrying its code.
      const code = type.startsWith('application/json')
        ? (JSON.parse(res.body) as { code?: string }).code
        : /data-code="([A-Z0-9_]+)"/.exec(res.body)?.[1];
      expect(isErrorCode(code ?? ''), `${m} ${p}${q} → ${res.status} ${res.body.slice(0, 200)}`).toBe(true);
    }), { numRuns: 300 });
  });
});

describe('GET /metrics without tokens (open)', () => {
  it('answers loopback callers under a loopback name only; a rebound host name is refused', async () => {
    const { surfacer, provider } = startWith({});
    const server = await surfacer.listen({ port: 0 });
    try {
      const ok = await fetch(`${server.url}/metrics`);
      expect(ok.status).toBe(200);
      parsePrometheusText(await ok.text());
      const rebound = await raw(server.url, { headers: { host: `attacker.example:${new URL(server.url).port}` } });
      expect(rebound.status).toBe(401);
      expect(JSON.parse(rebound.body)).toMatchObject({ code: 'HTTP_UNAUTHORIZED' });
    } finally {
      await server.close(1000);
      await provider.shutdown();
    }
  });

  it('refuses to listen beyond loopback, even with the agent endpoints off', async () => {
    const endpoint = createPrometheusEndpoint();
    const surfacer = createSurfacer({ app: createDemoApp(), env: {}, agents: { agui: false, a2a: false }, metricsEndpoint: endpoint });
    await expect(surfacer.listen({ port: 0, hostname: '0.0.0.0' })).rejects.toThrow(SurfacerConfigError);
    await surfacer.close();
  });
});
