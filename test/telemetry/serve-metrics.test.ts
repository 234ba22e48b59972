import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/commands/serve.ts';
import { nodeEndOfLifeWarning } from '../../src/hosting/index.ts';
import { memoryIo } from '../support/cli-io.ts';
import { HttpClient } from '../support/http-client.ts';
import { parsePrometheusText, sampleSum, sampleValue } from '../support/prometheus-text.ts';
import { redisForTestFile } from '../support/redis-server.ts';
import { openConversation, sendMessage } from '../host-html/support/page.ts';

/*
 * `surfacer serve` as operators run it: OTEL_METRICS_EXPORTER=prometheus with
 * SURFACER_METRICS_PORT (GET /metrics alone on its own port, behind the bearer token), shared
 * state on a real redis-server, JSON log lines on stderr. Live streams of both transports are
 * counted while open and uncounted when they end; Redis commands and the A2UI fan-out are timed.
 */

const TOKEN = 'serve-metrics-token-0123456789';
const { redis } = redisForTestFile();
const stops: AbortController[] = [];
afterAll(() => { for (const stop of stops) stop.abort(); });

async function waitFor<T>(read: () => T | undefined, what: string, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('surfacer serve with metrics', () => {
  it('serves /metrics on its own port: streams by transport and version, Redis latency, fan-out; the token never in the log', async () => {
    const t = memoryIo({
      env: {
        OTEL_METRICS_EXPORTER: 'prometheus', SURFACER_METRICS_PORT: '0', SURFACER_API_TOKENS: TOKEN,
        SURFACER_SESSION_SECRET: 'serve-metrics-secret-0123456789',
      },
    });
    const stop = new AbortController();
    stops.push(stop);
    const exit = run(['--port', '0', '--redis', redis().url], t, stop.signal);
    const url = await waitFor(() => /listening on (http:\/\/\S+)/.exec(t.out())?.[1], 'listening');
    const metricsUrl = await waitFor(() => /Metrics for Prometheus at (http:\/\/\S+)/.exec(t.out())?.[1], 'metrics url');
    expect(new URL(metricsUrl).port).not.toBe(new URL(url).port);
    const scrape = async () => {
      const res = await fetch(metricsUrl, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(res.status).toBe(200);
      return parsePrometheusText(await res.text());
    };

    // Not on the main port; without the token not on its own.
    expect((await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}`, accept: 'application/json' } })).status).toBe(404);
    const refused = await fetch(metricsUrl);
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ code: 'HTTP_UNAUTHORIZED' });
    const elsewhere = await fetch(metricsUrl.replace(/\/metrics$/, '/other'));
    expect(elsewhere.status).toBe(404);
    expect(await elsewhere.json()).toMatchObject({ code: 'HTTP_NOT_FOUND' });

    const client = new HttpClient(url);
    const c = await openConversation(client);
    expect((await sendMessage(client, c, 'create a character card')).status).toBe(200);
    const abort = new AbortController();
    const htmx = await client.get(`${c.base}/events?page=metricspage1&v=0`);
    expect(htmx.headers.get('content-type')).toContain('text/event-stream');
    const a2ui = await fetch(`${url}/a2ui${c.base}/stream?v=0.9`, { headers: { cookie: client.cookieHeader(), accept: 'text/event-stream' }, signal: abort.signal });
    expect(a2ui.status).toBe(200);
    const a2uiReader = a2ui.body!.getReader();
    await a2uiReader.read();

    let m = await scrape();
    expect(m.get('surfacer_streams_active')?.type).toBe('gauge');
    expect(sampleValue(m, 'surfacer_streams_active', { surfacer_transport: 'htmx' })).toBe(1);
    expect(sampleValue(m, 'surfacer_streams_active', { surfacer_transport: 'a2ui', surfacer_a2ui_version: '0.9' })).toBe(1);
    expect(sampleSum(m, 'surfacer_redis_command_duration_count')).toBeGreaterThan(0);
    expect(m.has('surfacer_redis_command_errors_total')).toBe(false);

    // A change while the v0.9 stream is open is compiled and handed to it: one fan-out.
    const fanoutsBefore = sampleSum(m, 'surfacer_fanout_duration_count', { surfacer_a2ui_version: '0.9' });
    expect((await sendMessage(client, c, 'scene settings')).status).toBe(200);
    m = await scrape();
    expect(sampleSum(m, 'surfacer_fanout_duration_count', { surfacer_a2ui_version: '0.9' })).toBeGreaterThan(fanoutsBefore);

    // Streams that end are no longer counted.
    abort.abort();
    await htmx.body?.cancel();
    const settled = async () => {
      for (let i = 0; i < 250; i += 1) {
        const now = await scrape();
        if (sampleSum(now, 'surfacer_streams_active') === 0) return now;
        await new Promise((r) => setTimeout(r, 20));
      }
      throw new Error('streams still counted');
    };
    m = await settled();
    expect(sampleValue(m, 'surfacer_streams_active', { surfacer_transport: 'htmx' })).toBe(0);

    stop.abort();
    expect(await exit).toBe(0);
    expect(t.err()).not.toContain(TOKEN);
  });

  it('logs JSON lines on a pipe, readable lines with SURFACER_LOG_FORMAT=pretty', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'surfacer-serve-log-'));
    try {
      for (const format of ['json', 'pretty'] as const) {
        // No session secret and no tokens: two warnings at start-up (and a third on a Node past its end of life).
        const t = memoryIo({ env: format === 'pretty' ? { SURFACER_LOG_FORMAT: 'pretty' } : {} });
        const stop = new AbortController();
        const exit = run(['--port', '0', '--data', dir], t, stop.signal);
        await waitFor(() => /listening on/.exec(t.out()) ?? undefined, 'listening');
        stop.abort();
        expect(await exit).toBe(0);
        const lines = t.err().split('\n').filter((l) => l.trim() !== '');
        if (format === 'json') {
          const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
          const pastEndOfLife = nodeEndOfLifeWarning(process.version, new Date());
          expect(parsed.map((l) => [l.level, l.msg])).toEqual([
            ['warn', 'SURFACER_SESSION_SECRET not set (or under 16 characters): using a random one; sessions end when the server stops'],
            ['warn', 'agent endpoints open without SURFACER_API_TOKENS: loopback callers only, as one local principal; a request that sends a token is refused (401)'],
            ...(pastEndOfLife === undefined ? [] : [['warn', pastEndOfLife]]),
          ]);
          expect(parsed[1]).toMatchObject({ hostname: '127.0.0.1' });
          for (const line of parsed) expect(typeof line.time).toBe('string');
        } else {
          expect(lines.some((l) => /WARN.*SURFACER_SESSION_SECRET not set/.test(l))).toBe(true);
          expect(() => JSON.parse(lines[0]!)).toThrow();
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('bad settings are usage errors', async () => {
    for (const env of [{ OTEL_METRICS_EXPORTER: 'statsd' }, { SURFACER_METRICS_PORT: 'x' }, { SURFACER_LOG_FORMAT: 'xml' }, { OTEL_METRICS_EXPORTER: 'otlp', SURFACER_METRICS_PORT: '9464' }]) {
      const t = memoryIo({ env });
      expect(await run(['--port', '0'], t), JSON.stringify(env)).toBe(2);
      expect(t.err()).toMatch(/surfacer serve: /);
    }
    // Open (no tokens) on a port beyond loopback: refused.
    const t = memoryIo({ env: { OTEL_METRICS_EXPORTER: 'prometheus', SURFACER_METRICS_PORT: '0', SURFACER_METRICS_HOST: '0.0.0.0' } });
    expect(await run(['--port', '0', '--data', '/tmp/surfacer-serve-metrics-unused'], t)).toBe(2);
    expect(t.err()).toMatch(/SURFACER_API_TOKENS/);
  });
});
