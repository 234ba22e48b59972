import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { createDemoApp } from '../../src/app/index.ts';
import { startServe, type ServeHandle } from '../../src/cli/commands/serve.ts';
import { silentLogger, TraceSchema } from '../../src/conversation/index.ts';
import { directiveJsonSchema } from '../../src/directives/index.ts';
import { toStrictValue } from '../../src/llm/index.ts';
import { startFakeOllama } from '../support/fake-ollama.ts';
import { startFakeOpenAi } from '../support/fake-openai.ts';
import { HttpClient } from '../support/http-client.ts';
import { jsonlTestFiles } from '../support/jsonl-stores.ts';
import { openConversation, parse } from '../host-html/support/page.ts';
import { childrenOf, clientTrace, everything, idOf, only, parentOf, recordSpansForTestFile, serverSpan } from './support.ts';

/**
 * Issue 25: a planner turn over real HTTP (startServe), the real `openai` / `ollama` clients
 * against the fake providers, spans recorded by a real tracer provider. The turn calls the demo
 * app's find_cards tool, answers with a directive the validator refuses, and is repaired once.
 */
const recorded = recordSpansForTestFile();
const files = jsonlTestFiles('surfacer-otel-turn-');
const envelopeSchema = directiveJsonSchema(createDemoApp().directives);
const strictForm = (envelope: unknown): string => JSON.stringify(toStrictValue(envelope, envelopeSchema));
const SECRET = { SURFACER_SESSION_SECRET: 'a-long-enough-secret-for-tests' };
const USER_TEXT = 'open my saved card named Quillon';
const ASSISTANT_TEXT = 'Here is your persona, Quillon.';
const PERSONA = { assistant_text: ASSISTANT_TEXT, directives: [{ type: 'ui.show_form', payload: { template: 'persona', values: { display_name: 'Sam' } } }] };
const CLOSE_UNKNOWN = { directives: [{ type: 'ui.close', payload: { surface: 'sidebar' } }] };

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => { for (const c of cleanup.splice(0).reverse()) await c(); });

async function serve(planner: 'openai' | 'ollama', env: NodeJS.ProcessEnv): Promise<ServeHandle> {
  const server = await startServe({ port: 0, hostname: '127.0.0.1', planner, dataDir: files.tempDir(), env: { ...SECRET, ...env }, logger: silentLogger, fsync: false });
  cleanup.push(() => server.close());
  return server;
}

async function fakeOpenAi() {
  const fake = await startFakeOpenAi({
    apiKey: 'sk-otel',
    script: [
      { kind: 'reply', content: null, toolCalls: [{ id: 'call_1', type: 'function', function: { name: 'find_cards', arguments: '{"query":"Quillon"}' } }] },
      { kind: 'reply', content: 'No saved card named Quillon.' },
      { kind: 'reply', content: strictForm(CLOSE_UNKNOWN) },
      { kind: 'reply', content: strictForm(PERSONA) },
    ],
  });
  cleanup.push(() => fake.close());
  return fake;
}

async function sayWithTrace(server: ServeHandle, traceparent: string) {
  const client = new HttpClient(server.url);
  const c = await openConversation(client);
  const response = await client.post(`${c.base}/messages`, { _csrf: c.csrf, text: USER_TEXT }, { as: 'json', headers: { traceparent } });
  expect(response.status).toBe(200);
  return { client, base: c.base, cid: c.cid, body: await response.json() as { outcome: string; trace: unknown } };
}

describe('spans of a planner turn (OpenTelemetry, GenAI conventions)', () => {
  it('openai: HTTP → turn → tool call and model calls → repair → model call, continuing the client\'s traceparent, with no prompt text', async () => {
    const fake = await fakeOpenAi();
    const server = await serve('openai', { OPENAI_BASE_URL: fake.baseURL, OPENAI_API_KEY: 'sk-otel', SURFACER_OPENAI_MODEL: 'gpt-4o-mini' });
    const client = clientTrace();
    const { body, cid } = await sayWithTrace(server, client.traceparent);
    expect(body.outcome).toBe('applied');
    expect(fake.requests).toHaveLength(4);

    const spans = recorded.spans().filter((s) => s.spanContext().traceId === client.traceId);
    // The request continued the client's trace: its server span's parent is the client's span.
    const http = serverSpan(spans, 'POST /c/:cid/messages', client.traceId);
    expect(parentOf(http)).toBe(client.spanId);
    expect(http.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.route': '/c/:cid/messages', 'http.response.status_code': 200 });

    const turn = only(childrenOf(spans, http), (s) => s.name === 'surfacer.turn', 'turn span');
    expect(turn.attributes).toMatchObject({
      'surfacer.conversation.id': cid, 'gen_ai.conversation.id': cid, 'surfacer.turn.kind': 'text',
      'surfacer.turn.outcome': 'applied', 'surfacer.turn.repairs': 1, 'surfacer.turn.repair_exhausted': false, 'surfacer.planner.provider': 'openai',
    });

    // Beneath the turn, in order: the tool loop's two model calls with the tool call between
    // them, the final request (refused by the validator), then the repair.
    const steps = childrenOf(spans, turn).filter((s) => s.name.startsWith('chat ') || s.name.startsWith('execute_tool ') || s.name === 'surfacer.repair');
    expect(steps.map((s) => s.name)).toEqual(['chat gpt-4o-mini', 'execute_tool find_cards', 'chat gpt-4o-mini', 'chat gpt-4o-mini', 'surfacer.repair']);
    const [toolRound, tool, , final, repair] = steps as [typeof turn, typeof turn, typeof turn, typeof turn, typeof turn];
    expect(tool.kind).toBe(SpanKind.INTERNAL);
    expect(tool.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'find_cards', 'gen_ai.tool.type': 'function', 'gen_ai.tool.call.id': 'call_1',
    });
    expect(toolRound.attributes).toMatchObject({ 'gen_ai.output.type': 'text', 'gen_ai.response.finish_reasons': ['tool_calls'] });
    expect(final.attributes['gen_ai.output.type']).toBe('json');

    const port = Number(new URL(fake.baseURL).port);
    for (const call of spans.filter((s) => s.name === 'chat gpt-4o-mini')) {
      expect(call.kind).toBe(SpanKind.CLIENT);
      expect(call.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'openai-compatible', 'gen_ai.system': 'openai-compatible',
        'gen_ai.request.model': 'gpt-4o-mini', 'gen_ai.response.model': expect.stringMatching(/^gpt-4o-mini/),
        'server.address': '127.0.0.1', 'server.port': port, 'surfacer.llm.http_retries': 0,
      });
      expect(call.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
      expect(call.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
      expect(call.attributes['gen_ai.response.id']).toEqual(expect.any(String));
    }

    expect(repair.attributes).toMatchObject({
      'surfacer.repair.attempt': 1, 'surfacer.repair.for_codes': ['DIRECTIVE_SURFACE_UNKNOWN'], 'surfacer.repair.status': 'passed', 'surfacer.repair.applied': 1,
    });
    const repairCall = only(childrenOf(spans, repair), (s) => s.name === 'chat gpt-4o-mini', 'model call of the repair');
    expect(repairCall.attributes).toMatchObject({ 'gen_ai.output.type': 'json', 'gen_ai.response.finish_reasons': ['stop'] });

    // What people typed and what the model answered is in no attribute or event.
    const text = everything(spans);
    expect(text).not.toContain('Quillon');
    expect(text).not.toContain('persona');
    expect(text).not.toContain('gen_ai.input.messages');

    // The conversation's own trace links the OpenTelemetry trace.
    const trace = TraceSchema.parse(body.trace);
    expect(trace.otel_trace_id).toBe(client.traceId);
  });

  it('the trace page shows the trace id, linked when SURFACER_OTEL_TRACE_URL says where', async () => {
    const fake = await fakeOpenAi();
    const server = await serve('openai', {
      OPENAI_BASE_URL: fake.baseURL, OPENAI_API_KEY: 'sk-otel', SURFACER_OPENAI_MODEL: 'gpt-4o-mini',
      SURFACER_OTEL_TRACE_URL: 'http://127.0.0.1:16686/trace/{trace_id}',
    });
    const client = clientTrace();
    const { client: http, base } = await sayWithTrace(server, client.traceparent);
    const $ = parse(await (await http.get(`${base}/trace`)).text());
    const link = $('dt:contains("OpenTelemetry trace") + dd a');
    expect(link.attr('href')).toBe(`http://127.0.0.1:16686/trace/${client.traceId}`);
    expect(link.text()).toBe(client.traceId);
  });

  it('SURFACER_OTEL_CAPTURE_CONTENT=1 puts the messages, the answer and the tool\'s arguments on the spans', async () => {
    const fake = await fakeOpenAi();
    const server = await serve('openai', {
      OPENAI_BASE_URL: fake.baseURL, OPENAI_API_KEY: 'sk-otel', SURFACER_OPENAI_MODEL: 'gpt-4o-mini', SURFACER_OTEL_CAPTURE_CONTENT: '1',
    });
    const client = clientTrace();
    await sayWithTrace(server, client.traceparent);
    const spans = recorded.spans().filter((s) => s.spanContext().traceId === client.traceId);
    const calls = spans.filter((s) => s.name === 'chat gpt-4o-mini');
    expect(calls).toHaveLength(4);
    const input = JSON.parse(String(calls[0]!.attributes['gen_ai.input.messages'])) as Array<{ role: string; parts: Array<{ content: string }> }>;
    expect(input.at(-1)).toEqual({ role: 'user', parts: [{ type: 'text', content: USER_TEXT }] });
    expect(String(calls.at(-1)!.attributes['gen_ai.output.messages'])).toContain(ASSISTANT_TEXT);
    const tool = only(spans, (s) => s.name === 'execute_tool find_cards', 'tool span');
    expect(tool.attributes).toMatchObject({ 'gen_ai.tool.call.arguments': '{"query":"Quillon"}', 'gen_ai.tool.call.result': '[]' });
  });

  it('ollama: a model call that fails after retries is an error span with its canonical code; the fallback answers', async () => {
    const fake = await startFakeOllama([{ kind: 'status', status: 503, error: 'overloaded' }]);
    cleanup.push(() => fake.close());
    const server = await serve('ollama', { OLLAMA_HOST: fake.host, SURFACER_OLLAMA_MODEL: 'llama3.2', SURFACER_TOOL_MAX_STEPS: '0', SURFACER_LLM_MAX_RETRIES: '1' });
    const client = clientTrace();
    const { body } = await sayWithTrace(server, client.traceparent);
    expect(body.outcome).toBe('applied');
    const spans = recorded.spans().filter((s) => s.spanContext().traceId === client.traceId);
    const call = only(spans, (s) => s.name === 'chat llama3.2', 'model call');
    expect(call.kind).toBe(SpanKind.CLIENT);
    expect(call.status.code).toBe(SpanStatusCode.ERROR);
    expect(call.attributes).toMatchObject({ 'gen_ai.provider.name': 'ollama', 'gen_ai.request.model': 'llama3.2', 'surfacer.error.code': expect.stringMatching(/^LLM_/) });
    expect(call.events.filter((e) => e.name === 'retry')).toHaveLength(1);
    expect(call.events.some((e) => e.name === 'exception')).toBe(true);
    // The turn itself was answered (by the offline planner) and says so.
    const turn = only(spans, (s) => s.name === 'surfacer.turn', 'turn span');
    expect(turn.attributes['surfacer.turn.outcome']).toBe('applied');
    expect(turn.attributes['surfacer.planner.provider']).toBe('offline');
    expect(idOf(turn)).toBe(parentOf(call));
  });
});
