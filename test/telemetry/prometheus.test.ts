import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDemoApp } from '../../src/app/index.ts';
import { run } from '../../src/cli/commands/serve.ts';
import { createMemoryStore } from '../../src/conversation/index.ts';
import type { RunningServer } from '../../src/host-html/index.ts';
import { createSurfacer } from '../../src/server/index.ts';
import { createPrometheusEndpoint } from '../../src/telemetry/prometheus.ts';
import { formFields, openConversation, pageOf, sendMessage, submitForm } from '../host-html/support/page.ts';
import { memoryIo } from '../support/cli-io.ts';
import { HttpClient } from '../support/http-client.ts';
import { missingCommand, startPrometheus, type TestPrometheus } from '../support/prometheus-server.ts';
import { parsePrometheusText, sampleSum } from '../support/prometheus-text.ts';
import { skipUnless } from '../support/skip-reason.ts';
import { RULES_FILE, alertNames, exportedSeries, readRules, unknownReferences } from './alert-rules.ts';

/*
 * Debian's prometheus on a free loopback port (1 s scrapes and rule evaluations), with the alert
 * rules operators copy, scraping two servers as operators run them: one in-process with
 * GET /metrics on its main port, and `surfacer serve` with SURFACER_METRICS_PORT. Traffic goes
 * over HTTP; the counters are read back through Prometheus's query API.
 */

const TOKEN = 'prometheus-test-token-0123456789';
const SECRET = 'prometheus-test-secret-0123456789';
const CHARACTER = { name: 'Aria', personality: 'Brave and kind.', tags: 'brave, kind' };
const MESSAGES = ['create a character card', 'thanks'];

interface Instance { job: string; url: string; metricsUrl: string }

async function eventually<T>(read: () => Promise<T | undefined>, what: string, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('a real Prometheus scraping Surfacer, with the alert rules', skipUnless(missingCommand('prometheus')), () => {
  let prometheus: TestPrometheus | undefined;
  let inProcess: { server: RunningServer; provider: MeterProvider } | undefined;
  const stopServe = new AbortController();
  let served: Promise<number> | undefined;
  let dataDir: string | undefined;
  const instances: Instance[] = [];

  beforeAll(async () => {
    const endpoint = createPrometheusEndpoint();
    const provider = new MeterProvider({ readers: [endpoint.reader] });
    const surfacer = createSurfacer({
      app: createDemoApp(), store: createMemoryStore(), sessionSecret: SECRET,
      env: { SURFACER_API_TOKENS: TOKEN }, meterProvider: provider, metricsEndpoint: endpoint,
    });
    const server = await surfacer.listen({ port: 0 });
    inProcess = { server, provider };
    instances.push({ job: 'surfacer-main-port', url: server.url, metricsUrl: `${server.url}/metrics` });

    const io = memoryIo({
      env: { OTEL_METRICS_EXPORTER: 'prometheus', SURFACER_METRICS_PORT: '0', SURFACER_API_TOKENS: TOKEN, SURFACER_SESSION_SECRET: SECRET },
    });
    dataDir = mkdtempSync(join(tmpdir(), 'surfacer-prometheus-serve-'));
    served = run(['--port', '0', '--data', dataDir], io, stopServe.signal);
    const printed = (pattern: RegExp) => eventually(async () => pattern.exec(io.out())?.[1], `${pattern}`);
    const url = await printed(/listening on (http:\/\/\S+)/);
    const metricsUrl = await printed(/Metrics for Prometheus at (http:\/\/\S+)/);
    instances.push({ job: 'surfacer-metrics-port', url, metricsUrl });

    prometheus = await startPrometheus({
      jobs: instances.map((i) => ({ job: i.job, target: new URL(i.metricsUrl).host, bearerToken: TOKEN })),
      ruleFiles: [RULES_FILE],
    });
  });

  afterAll(async () => {
    await prometheus?.stop();
    await inProcess?.server.close(1000);
    await inProcess?.provider.shutdown();
    stopServe.abort();
    await served;
    if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
  });

  it('scrapes both servers, each on its own port, with the bearer token', async () => {
    expect(new URL(instances[1]!.metricsUrl).port).not.toBe(new URL(instances[1]!.url).port);
    interface Target { labels: { job: string }; health: string; lastError: string; scrapeUrl: string }
    const targets = await eventually(async () => {
      const { activeTargets } = await prometheus!.api<{ activeTargets: Target[] }>('targets');
      return activeTargets.length === instances.length && activeTargets.every((t) => t.health !== 'unknown') ? activeTargets : undefined;
    }, 'first scrapes');
    for (const instance of instances) {
      const target = targets.find((t) => t.labels.job === instance.job);
      expect(target, instance.job).toMatchObject({ health: 'up', lastError: '', scrapeUrl: instance.metricsUrl });
    }
    expect((await prometheus!.query('up')).map((s) => [s.metric.job, s.value]).sort()).toEqual(instances.map((i) => [i.job, 1]).sort());
  });

  for (const [index, variant] of ['on the main port', 'on SURFACER_METRICS_PORT'].entries()) {
    it(`counts turns and actions ${variant} as they happened`, async () => {
      const { job, url, metricsUrl } = instances[index]!;
      const client = new HttpClient(url);
      const c = await openConversation(client);
      for (const text of MESSAGES) expect((await sendMessage(client, c, text)).status).toBe(200);
      const tabA = await pageOf(client, c);
      const tabB = await pageOf(client, c);
      expect((await submitForm(client, c, { ...formFields(tabA, 'main'), ...CHARACTER }, 'form.submit', 'json')).status).toBe(200);
      expect((await submitForm(client, c, { ...formFields(tabB, 'main'), ...CHARACTER, name: 'Brin' }, 'form.submit', 'json')).status).toBe(409);
      const doneAt = Date.now() / 1000;

      // Samples carry their scrape's start time: one after the traffic holds all of it.
      const selector = `{job="${job}"}`;
      await eventually(async () => {
        const [latest] = await prometheus!.query(`max(timestamp(surfacer_actions_total${selector}))`);
        return latest !== undefined && latest.value > doneAt ? true : undefined;
      }, `a scrape of ${job} after the traffic`);
      const byLabels = async (promql: string, labels: string[]) =>
        Object.fromEntries((await prometheus!.query(promql)).map((s) => [labels.map((l) => s.metric[l] ?? '').join(' '), s.value]));

      expect(await byLabels(`surfacer_turns_total${selector}`, ['surfacer_turn_outcome', 'surfacer_turn_repaired', 'error_type']))
        .toEqual({ 'applied false ': MESSAGES.length });
      expect(await byLabels(`surfacer_turn_duration_count${selector}`, ['surfacer_turn_outcome'])).toEqual({ applied: MESSAGES.length });
      expect(await byLabels(`surfacer_actions_total${selector}`, ['surfacer_action_outcome', 'error_type']))
        .toEqual({ 'applied ': 1, 'rejected A2UI_C2S_SURFACE_STALE': 1 });
      // Every series Prometheus holds is the server's own number, as GET /metrics shows it now.
      const direct = await fetch(metricsUrl, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(direct.status).toBe(200);
      const exported = parsePrometheusText(await direct.text());
      const appends = await byLabels(`surfacer_log_appends_total${selector}`, ['surfacer_log_outcome', 'surfacer_log_entry']);
      expect(appends['ok action']).toBe(1);
      expect(appends['ok turn']).toBe(MESSAGES.length);
      for (const [key, value] of Object.entries(appends)) {
        const [outcome, entry] = key.split(' ');
        expect(value, key).toBe(sampleSum(exported, 'surfacer_log_appends_total', { surfacer_log_outcome: outcome!, surfacer_log_entry: entry! }));
      }
    });
  }

  it('evaluates every alert of the rules file healthy on the scraped series', async () => {
    const startedAt = Date.now();
    interface Rule { name: string; query: string; type: string; health: string; lastError?: string; lastEvaluation: string; labels: Record<string, string> }
    const rules = await eventually(async () => {
      const { groups } = await prometheus!.api<{ groups: Array<{ file: string; rules: Rule[] }> }>('rules');
      const all = groups.flatMap((g) => g.rules.map((r) => ({ ...r, file: g.file })));
      return all.length > 0 && all.every((r) => Date.parse(r.lastEvaluation) > startedAt) ? all : undefined;
    }, 'an evaluation of every rule');
    expect(rules.map((r) => r.name)).toEqual(alertNames(readRules()));
    const exported = await exportedSeries();
    for (const rule of rules) {
      expect(rule, rule.name).toMatchObject({ file: RULES_FILE, type: 'alerting', health: 'ok' });
      expect(['critical', 'warning'], rule.name).toContain(rule.labels.severity);
      // Prometheus's own reading of the expression names the same series as the file's text.
      expect(unknownReferences(rule.query, exported), rule.name).toEqual([]);
    }
  });
});
