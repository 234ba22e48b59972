import { SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { startServe, type ServeHandle } from '../../src/cli/commands/serve.ts';
import { silentLogger } from '../../src/conversation/index.ts';
import { startFakeOpenAi, type FakeOpenAiBehaviour } from '../support/fake-openai.ts';
import { HttpClient } from '../support/http-client.ts';
import { jsonlTestFiles } from '../support/jsonl-stores.ts';
import { openConversation } from '../host-html/support/page.ts';
import { inSpan } from '../../src/telemetry/tracing.ts';
import { clientTrace, everything, only, recordSpansForTestFile } from './support.ts';

/*
 * A failed model call's span without the model's words (docs/operate.md, "Never on a span"):
 * a refusal carries the model's own text, and the JSON.parse error of an answer that is not
 * JSON quotes it. Real HTTP (startServe), the real `openai` client against the fake provider,
 * spans recorded by a real tracer provider; with SURFACER_OTEL_CAPTURE_CONTENT=1 the text is
 * recorded, as it is for answers that arrive.
 */
const recorded = recordSpansForTestFile();
const files = jsonlTestFiles('surfacer-otel-failure-');
const SECRET = { SURFACER_SESSION_SECRET: 'a-long-enough-secret-for-tests' };
const USER_TEXT = 'show me the card of Marisol';
// Words only the model wrote: Node 20 quotes the first ten characters of a body it cannot parse.
const REFUSAL = 'Zanzibar-refusal: I cannot help with that request.';
const UNPARSEABLE = 'Zanzibar! Here is the card you asked for.';
const MODEL_WORDS = 'Zanzibar';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => { for (const c of cleanup.splice(0).reverse()) await c(); });

const CASES: Array<{ what: string; answer: FakeOpenAiBehaviour; code: string }> = [
  { what: 'a refusal', answer: { kind: 'reply', content: null, refusal: REFUSAL }, code: 'LLM_RESPONSE_REFUSED' },
  { what: 'an answer that is not JSON', answer: { kind: 'raw', body: UNPARSEABLE }, code: 'LLM_RESPONSE_INVALID' },
];

/** One typed message through a server whose model gives `answer`; the spans of its trace. */
async function failedTurn(answer: FakeOpenAiBehaviour, env: NodeJS.ProcessEnv = {}): Promise<ReadableSpan[]> {
  const fake = await startFakeOpenAi({ apiKey: 'sk-otel', script: [answer] });
  cleanup.push(() => fake.close());
  const server: ServeHandle = await startServe({
    port: 0, hostname: '127.0.0.1', planner: 'openai', dataDir: files.tempDir(), logger: silentLogger, fsync: false,
    env: {
      ...SECRET, OPENAI_BASE_URL: fake.baseURL, OPENAI_API_KEY: 'sk-otel', SURFACER_OPENAI_MODEL: 'gpt-4o-mini',
      SURFACER_TOOL_MAX_STEPS: '0', SURFACER_LLM_MAX_RETRIES: '0', ...env,
    },
  });
  cleanup.push(() => server.close());
  const client = new HttpClient(server.url);
  const c = await openConversation(client);
  const trace = clientTrace();
  const response = await client.post(`${c.base}/messages`, { _csrf: c.csrf, text: USER_TEXT }, { as: 'json', headers: { traceparent: trace.traceparent } });
  expect(response.status).toBe(200);
  // The model failed; the offline planner answered the turn.
  expect(await response.json()).toMatchObject({ outcome: 'applied' });
  expect(fake.requests).toHaveLength(1);
  return recorded.spans().filter((s) => s.spanContext().traceId === trace.traceId);
}

describe('a failed model call on its span', () => {
  for (const { what, answer, code } of CASES) {
    it(`${what}: the code, the type and an error status; no word of the answer (attributes, events, status)`, async () => {
      const spans = await failedTurn(answer);
      const call = only(spans, (s) => s.name === 'chat gpt-4o-mini', 'model call');
      expect(call.status).toEqual({ code: SpanStatusCode.ERROR });
      expect(call.attributes).toMatchObject({ 'surfacer.error.code': code, 'error.type': code });
      const exceptions = call.events.filter((e) => e.name === 'exception');
      expect(exceptions).toHaveLength(1);
      expect(exceptions[0]!.attributes).toEqual({ 'exception.type': code });
      const turn = only(spans, (s) => s.name === 'surfacer.turn', 'turn span');
      expect(turn.attributes['surfacer.planner.provider']).toBe('offline');
      const text = everything(spans);
      expect(text).not.toContain(MODEL_WORDS);
      expect(text).not.toContain('Marisol');
    });
  }

  for (const { what, answer, code } of CASES) {
    it(`${what}, SURFACER_OTEL_CAPTURE_CONTENT=1: the message is recorded too`, async () => {
      const spans = await failedTurn(answer, { SURFACER_OTEL_CAPTURE_CONTENT: '1' });
      const call = only(spans, (s) => s.name === 'chat gpt-4o-mini', 'model call');
      expect(call.attributes).toMatchObject({ 'surfacer.error.code': code });
      expect(call.status.code).toBe(SpanStatusCode.ERROR);
      expect(call.status.message).toContain(MODEL_WORDS);
      const exception = call.events.find((e) => e.name === 'exception');
      expect(String(exception?.attributes?.['exception.message'])).toContain(MODEL_WORDS);
    });
  }
});

describe('any span failed by a throw (inSpan)', () => {
  const thrown = (): SyntaxError => new SyntaxError(`Unexpected token 'Z', "${MODEL_WORDS}!"... is not valid JSON`);

  it('an error without a canonical code: its name as error.type and exception.type, no message', async () => {
    await expect(inSpan('surfacer.test.throw', {}, async () => { throw thrown(); })).rejects.toThrow(SyntaxError);
    const span = only(recorded.spans(), (s) => s.name === 'surfacer.test.throw', 'the span');
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR });
    expect(span.attributes).toEqual({ 'error.type': 'SyntaxError' });
    expect(span.events.map((e) => [e.name, e.attributes])).toEqual([['exception', { 'exception.type': 'SyntaxError' }]]);
  });

  it("a client library's error body is not a canonical code: only a registered code becomes surfacer.error.code", async () => {
    const provider = Object.assign(new Error('rejected'), { name: 'APIError', error: { code: `${MODEL_WORDS}_code`, message: 'free text' } });
    await expect(inSpan('surfacer.test.throw', {}, async () => { throw provider; })).rejects.toBe(provider);
    const span = only(recorded.spans(), (s) => s.name === 'surfacer.test.throw', 'the span');
    expect(span.attributes).toEqual({ 'error.type': 'APIError' });
    expect(everything([span])).not.toContain(MODEL_WORDS);
  });

  it('with content capture: the message and the stack as the API records them', async () => {
    await expect(inSpan('surfacer.test.throw', {}, async () => { throw thrown(); }, { captureContent: true })).rejects.toThrow(SyntaxError);
    const span = only(recorded.spans(), (s) => s.name === 'surfacer.test.throw', 'the span');
    expect(span.status.message).toContain(MODEL_WORDS);
    expect(span.events[0]!.attributes).toMatchObject({ 'exception.type': 'SyntaxError', 'exception.message': expect.stringContaining(MODEL_WORDS), 'exception.stacktrace': expect.any(String) });
  });
});
