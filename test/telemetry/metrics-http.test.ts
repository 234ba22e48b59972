import { request as httpRequest, type IncomingMessage } from 'node:http';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { afterEach, describe, expect, it } from 'vitest';
import { createDemoApp } from '../../src/app/index.ts';
import { createMemoryStore, type ConversationStore } from '../../src/conversation/index.ts';
import type { RunningServer } from '../../src/host-html/index.ts';
import { PlannerError } from '../../src/llm/index.ts';
import type { Planner } from '../../src/planner/types.ts';
import { createSurfacer } from '../../src/server/index.ts';
import { createPrometheusEndpoint } from '../../src/telemetry/prometheus.ts';
import { makeError } from '../../src/errors/index.ts';
import { formFields, openConversation, pageOf, sendMessage, submitForm } from '../host-html/support/page.ts';
import { HttpClient } from '../support/http-client.ts';
import { parsePrometheusText, sampleSum, sampleValue } from '../support/prometheus-text.ts';

/*
 * GET /metrics after real traffic over real HTTP: a turn, an accepted action, a stale one
 * (409), a model planner with a repair and token usage. The text is read by a strict
 * Prometheus text-format parser (test/support/prometheus-text.ts) and its numbers are checked
 * against what the traffic did and what the log holds.
 */

const TOKEN = 'metrics-test-token-0123456789';
const CHARACTER = { name: 'Aria', personality: 'Brave and kind.', tags: 'brave, kind' };

let running: { server: RunningServer; provider: MeterProvider } | undefined;
afterEach(async () => {
  await running?.server.close(1000);
  await running?.provider.shutdown();
  running = undefined;
});

async function start(options: { planner?: Planner; store?: ConversationStore; queueMessages?: number } = {}) {
  const endpoint = createPrometheusEndpoint();
  const provider = new MeterProvider({ readers: [endpoint.reader] });
  const app = createDemoApp();
  const surfacer = createSurfacer({
    app, store: options.store ?? createMemoryStore(), sessionSecret: 'metrics-secret-0123456789',
    env: { SURFACER_API_TOKENS: TOKEN }, meterProvider: provider, metricsEndpoint: endpoint,
    ...(options.planner ? { planner: options.planner } : {}),
    ...(options.queueMessages !== undefined ? { a2ui: { hubOptions: { limits: { queueMessages: options.queueMessages } } } } : {}),
  });
  const server = await surfacer.listen({ port: 0 });
  running = { server, provider };
  const scrape = async () => {
    const response = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    return parsePrometheusText(await response.text());
  };
  return { server, app, surfacer, scrape, client: new HttpClient(server.url) };
}

describe('GET /metrics after real traffic', () => {
  it('counts the turn, the accepted action and the stale one (409) by outcome and code; log appends match the log', async () => {
    const store = createMemoryStore();
    const { client, scrape } = await start({ store });
    const c = await openConversation(client);
    expect((await sendMessage(client, c, 'create a character card')).status).toBe(200);
    const tabA = await pageOf(client, c);
    const tabB = await pageOf(client, c);
    expect((await submitForm(client, c, { ...formFields(tabA, 'main'), ...CHARACTER }, 'form.submit', 'json')).status).toBe(200);
    const stale = await submitForm(client, c, { ...formFields(tabB, 'main'), ...CHARACTER, name: 'Brin' }, 'form.submit', 'json');
    expect(stale.status).toBe(409);
    expect(await stale.json()).toMatchObject({ code: 'A2UI_C2S_SURFACE_STALE' });

    const m = await scrape();
    expect(m.get('surfacer_turns_total')?.type).toBe('counter');
    expect(sampleValue(m, 'surfacer_turns_total', { surfacer_turn_outcome: 'applied', surfacer_turn_repaired: 'false' })).toBe(1);
    expect(sampleSum(m, 'surfacer_turns_total')).toBe(1);
    expect(sampleValue(m, 'surfacer_actions_total', { surfacer_action_outcome: 'applied' })).toBe(1);
    expect(sampleValue(m, 'surfacer_actions_total', { surfacer_action_outcome: 'rejected', error_type: 'A2UI_C2S_SURFACE_STALE' })).toBe(1);
    expect(sampleSum(m, 'surfacer_actions_total')).toBe(2);
    expect(sampleValue(m, 'surfacer_turn_duration_count', { surfacer_turn_outcome: 'applied' })).toBe(1);
    // The offline planner is no model: no GenAI operation was recorded.
    expect(m.has('gen_ai_client_operation_duration')).toBe(false);

    // Every entry of the log was one successful append, of its type.
    const log = (await store.read(c.cid))!;
    const byType = new Map<string, number>();
    for (const entry of log) byType.set(entry.type, (byType.get(entry.type) ?? 0) + 1);
    expect(byType.get('action')).toBe(1);
    for (const [type, count] of byType) {
      expect(sampleValue(m, 'surfacer_log_appends_total', { surfacer_log_outcome: 'ok', surfacer_log_entry: type }), type).toBe(count);
    }
    expect(sampleSum(m, 'surfacer_log_appends_total', { surfacer_log_outcome: 'ok' })).toBe(log.length);
  });

  it('a model planner: one GenAI operation per request with its tokens, a repair counted, a failure by its code', async () => {
    const app = createDemoApp();
    let calls = 0;
    // A model stand-in over the offline planner: the first answer of a turn is broken (a repair
    // follows), the repair passes; the third turn's request fails as unreachable.
    const model: Planner = {
      name: 'openai', label: 'fake model',
      async plan(input, signal) {
        calls += 1;
        if (input.text.includes('unreachable')) throw new PlannerError(makeError('LLM_UNAVAILABLE', 'connection refused'));
        const answer = await app.offlinePlanner.plan(input, signal);
        const rawText = input.repair === undefined ? '{"directives": [' : answer.rawText;
        return { ...answer, rawText, provider: 'openai', model: 'fake-model-1', usage: { prompt_tokens: 100, completion_tokens: 7, total_tokens: 107 } };
      },
    };
    const { client, scrape } = await start({ planner: model });
    const c = await openConversation(client);
    expect((await sendMessage(client, c, 'create a character card')).status).toBe(200);
    expect(calls).toBe(2);
    await sendMessage(client, c, 'unreachable, please');

    const m = await scrape();
    const ok = { gen_ai_operation_name: 'chat', gen_ai_provider_name: 'openai', gen_ai_response_model: 'fake-model-1' };
    expect(m.get('gen_ai_client_operation_duration')?.type).toBe('histogram');
    expect(sampleValue(m, 'gen_ai_client_operation_duration_count', ok)).toBe(2);
    expect(sampleValue(m, 'gen_ai_client_operation_duration_count', { gen_ai_provider_name: 'openai', error_type: 'LLM_UNAVAILABLE' })).toBe(1);
    expect(sampleValue(m, 'gen_ai_client_token_usage_sum', { ...ok, gen_ai_token_type: 'input' })).toBe(200);
    expect(sampleValue(m, 'gen_ai_client_token_usage_sum', { ...ok, gen_ai_token_type: 'output' })).toBe(14);
    expect(sampleValue(m, 'gen_ai_client_token_usage_count', { ...ok, gen_ai_token_type: 'input' })).toBe(2);
    expect(sampleValue(m, 'surfacer_repairs_total', { surfacer_repair_exhausted: 'false' })).toBe(1);
    expect(sampleValue(m, 'surfacer_turns_total', { surfacer_turn_outcome: 'applied', surfacer_turn_repaired: 'true' })).toBe(1);
    expect(sampleValue(m, 'surfacer_turns_total', { surfacer_turn_outcome: 'planner_failed' })).toBe(1);
  });

  it('a stream cut for falling behind is counted by transport, version and reason, and no longer live', async () => {
    const { client, scrape, surfacer, server } = await start({ queueMessages: 1 });
    const c = await openConversation(client);
    expect((await sendMessage(client, c, 'create a character card')).status).toBe(200);
    // A client that stops reading: its socket fills, the server's writes wait, the hub queues.
    const target = new URL(`${server.url}/a2ui${c.base}/stream`);
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = httpRequest({ host: target.hostname, port: target.port, path: target.pathname, headers: { cookie: client.cookieHeader(), accept: 'text/event-stream' } }, resolve);
      req.on('error', reject);
      req.end();
    });
    expect(response.statusCode).toBe(200);
    response.pause();
    expect(sampleValue(await scrape(), 'surfacer_streams_active', { surfacer_transport: 'a2ui', surfacer_a2ui_version: '0.8' })).toBe(1);
    const hub = surfacer.a2ui.wire('0.8').hub;
    const { version } = hub.checkpoint(c.cid);
    // One batch larger than the socket buffers, then two more: the third overflows the one-message queue.
    const big = { deleteSurface: { surfaceId: 'x'.repeat(16 * 1024 * 1024) } };
    hub.publish(c.cid, version + 1, [big]);
    hub.publish(c.cid, version + 2, [{ deleteSurface: { surfaceId: 'gone-2' } }]);
    hub.publish(c.cid, version + 3, [{ deleteSurface: { surfaceId: 'gone-3' } }]);
    let m = await scrape();
    for (let i = 0; i < 100 && sampleSum(m, 'surfacer_streams_cut_total') === 0; i += 1) {
      await new Promise((r) => setTimeout(r, 20));
      m = await scrape();
    }
    expect(sampleValue(m, 'surfacer_streams_cut_total', { surfacer_transport: 'a2ui', surfacer_a2ui_version: '0.8', surfacer_stream_cut_reason: 'slow' })).toBe(1);
    // The connection ends once what was written drains: read it out.
    response.resume();
    await new Promise((resolve) => response.on('end', resolve).on('close', resolve));
    for (let i = 0; i < 100 && sampleSum(m, 'surfacer_streams_active') !== 0; i += 1) {
      await new Promise((r) => setTimeout(r, 20));
      m = await scrape();
    }
    expect(sampleValue(m, 'surfacer_streams_active', { surfacer_transport: 'a2ui', surfacer_a2ui_version: '0.8' })).toBe(0);
  });
});
