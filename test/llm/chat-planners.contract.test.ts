import { afterEach, describe, expect, it } from 'vitest';
import { createDemoDirectiveRegistry } from '../../src/app/index.ts';
import { directiveJsonSchema } from '../../src/directives/index.ts';
import {
  abortableSleep, createOllamaPlanner, createOpenAiPlanner, PlannerError, type ChatPlannerOptions,
} from '../../src/llm/index.ts';
import type { Planner, PlannerInput } from '../../src/planner/types.ts';
import { emptyConversation } from '../../src/ui-ir/index.ts';
import { startFakeOllama, type FakeOllamaBehaviour } from '../support/fake-ollama.ts';
import { startFakeOpenAi, type FakeOpenAiBehaviour } from '../support/fake-openai.ts';

/**
 * One contract, run against both chat planners through their real clients (`ollama`, `openai`)
 * and fake servers speaking each provider's documented wire format: structured output, dropped
 * and refused keys, retries (429 + Retry-After, 5xx, reset), no retry storm on an unsupported
 * parameter, timeout, refused connection, cancel mid-request and mid-backoff, repair follow-ups.
 * Waits between retries go through an injected sleep that records them: nothing here is timed.
 */
type Step =
  | { kind: 'ok'; content: string }
  | { kind: 'status'; status: number; message: string; headers?: Record<string, string> }
  | { kind: 'hang' } | { kind: 'reset' } | { kind: 'malformed' };

interface Server {
  requests(): Array<{ body: Record<string, unknown>; aborted: boolean }>;
  planner(options?: Partial<ChatPlannerOptions>): Planner;
  close(): Promise<void>;
}

const envelopeSchema = directiveJsonSchema(createDemoDirectiveRegistry());
const ENVELOPE = '{"assistant_text":"Here.","directives":[{"type":"ui.toast","payload":{"level":"info","text":"hi"}}]}';
const waits: number[] = [];
const base = { model: 'tiny', systemPrompt: 'SYSTEM', sleep: async (ms: number) => { waits.push(ms); }, random: () => 0.5 };

const PROVIDERS: Array<{ name: string; start(steps: Step[]): Promise<Server> }> = [
  {
    name: 'ollama',
    async start(steps) {
      const toFake = (s: Step): FakeOllamaBehaviour => (s.kind === 'ok' ? { kind: 'reply', content: s.content }
        : s.kind === 'status' ? { kind: 'status', status: s.status, error: s.message, ...(s.headers ? { headers: s.headers } : {}) } : s);
      const fake = await startFakeOllama(steps.map(toFake));
      return {
        requests: () => fake.requests.map((body, i) => ({ body, aborted: fake.aborted[i]! })),
        planner: (o = {}) => createOllamaPlanner({ ...base, host: fake.host, format: envelopeSchema, ...o }),
        close: () => fake.close(),
      };
    },
  },
  {
    name: 'openai',
    async start(steps) {
      const toFake = (s: Step): FakeOpenAiBehaviour => (s.kind === 'ok' ? { kind: 'reply', content: s.content }
        : s.kind === 'status' ? { kind: 'status', status: s.status, error: { message: s.message }, ...(s.headers ? { headers: s.headers } : {}) } : s);
      const fake = await startFakeOpenAi({ script: steps.map(toFake), apiKey: 'sk-test' });
      return {
        requests: () => fake.requests,
        planner: (o = {}) => createOpenAiPlanner({ ...base, baseURL: fake.baseURL, apiKey: 'sk-test', envelopeSchema, ...o }),
        close: () => fake.close(),
      };
    },
  },
];

let server: Server | undefined;
afterEach(async () => { await server?.close(); server = undefined; waits.length = 0; });

const input: PlannerInput = { text: 'make a persona', ir: emptyConversation('c1') };

async function failure(p: Promise<unknown>): Promise<PlannerError> {
  try { await p; } catch (error) { expect(error).toBeInstanceOf(PlannerError); return error as PlannerError; }
  throw new Error('expected the planner to fail');
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(check()).toBe(true);
}

describe.each(PROVIDERS)('$name planner through its real client', (provider) => {
  const start = async (steps: Step[]) => { server = await provider.start(steps); return server; };
  const signal = () => new AbortController().signal;

  it('sends one non-streamed structured-output request and returns the answer with token usage', async () => {
    const s = await start([{ kind: 'ok', content: ENVELOPE }]);
    const out = await s.planner().plan(input, signal());
    expect(out.rawText).toBe(ENVELOPE);
    expect(out.provider).toBe(provider.name);
    expect(out.usage?.prompt_tokens).toBeGreaterThan(0);
    expect(out.usage?.completion_tokens).toBeGreaterThan(0);
    expect(out.meta?.format_mode).toBe('json_schema');
    const [sent] = s.requests();
    expect(sent!.body.stream).toBe(false);
    expect(sent!.body.tools).toBeUndefined();
    const messages = sent!.body.messages as Array<{ role: string; content: string }>;
    expect(messages[0]).toEqual({ role: 'system', content: 'SYSTEM' });
    expect(messages.at(-1)).toEqual({ role: 'user', content: 'make a persona' });
  });

  it('drops an unsupported sampling key and records it (best-effort)', async () => {
    const s = await start([{ kind: 'ok', content: ENVELOPE }]);
    const out = await s.planner({ sampling: { temperature: 0.2, mirostat: 1 } }).plan(input, signal());
    expect(out.meta?.dropped_keys).toEqual(['/options/mirostat']);
    expect(JSON.stringify(s.requests()[0]!.body)).not.toContain('mirostat');
    expect(JSON.stringify(s.requests()[0]!.body)).toContain('"temperature":0.2');
  });

  it('refuses an unsupported key in strict mode before sending anything', async () => {
    const s = await start([{ kind: 'ok', content: ENVELOPE }]);
    const e = await failure(s.planner({ strict: true, sampling: { mirostat: 1 } }).plan(input, signal()));
    expect([e.error.code, e.error.pointer]).toEqual(['LLM_REQUEST_KEY_UNSUPPORTED', '/options/mirostat']);
    expect(s.requests()).toHaveLength(0);
  });

  it('reports 404 "no endpoints support the requested parameters" once, without retrying', async () => {
    const s = await start([{ kind: 'status', status: 404, message: 'No endpoints found that support the requested parameters. To learn more about provider routing, visit: https://openrouter.ai/docs/provider-routing' }]);
    expect((await failure(s.planner().plan(input, signal()))).error.code).toBe('LLM_PARAMETER_UNSUPPORTED');
    expect(s.requests()).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('waits as long as Retry-After says after a 429, then succeeds', async () => {
    const s = await start([{ kind: 'status', status: 429, message: 'Rate limit reached', headers: { 'retry-after': '2' } }, { kind: 'ok', content: ENVELOPE }]);
    const out = await s.planner().plan(input, signal());
    expect(out.rawText).toBe(ENVELOPE);
    expect(waits).toEqual([2000]);
    expect(out.meta?.http_retries).toEqual([{ code: 'LLM_RATE_LIMITED', wait_ms: 2000 }]);
    expect(s.requests()).toHaveLength(2);
  });

  it('does not wait for a Retry-After longer than the policy allows', async () => {
    const s = await start([{ kind: 'status', status: 429, message: 'Rate limit reached', headers: { 'retry-after': '3600' } }]);
    expect((await failure(s.planner().plan(input, signal()))).error.code).toBe('LLM_RATE_LIMITED');
    expect(s.requests()).toHaveLength(1);
  });

  it('retries a 500 with backoff and succeeds', async () => {
    const s = await start([{ kind: 'status', status: 500, message: 'internal error' }, { kind: 'ok', content: ENVELOPE }]);
    expect((await s.planner().plan(input, signal())).rawText).toBe(ENVELOPE);
    expect(waits).toEqual([375]);
  });

  it('gives up after the bounded number of retries, with exponential backoff', async () => {
    const s = await start([{ kind: 'status', status: 503, message: 'overloaded' }]);
    const e = await failure(s.planner().plan(input, signal()));
    expect(e.error.code).toBe('LLM_HTTP_ERROR');
    expect(e.error.technical_detail).toMatch(/after 2 retries/);
    expect(s.requests()).toHaveLength(3);
    expect(waits).toEqual([375, 750]);
  });

  it('retries a connection reset', async () => {
    const s = await start([{ kind: 'reset' }, { kind: 'ok', content: ENVELOPE }]);
    expect((await s.planner().plan(input, signal())).rawText).toBe(ENVELOPE);
    expect(s.requests()).toHaveLength(2);
  });

  it('reports refused credentials without retrying', async () => {
    const s = await start([{ kind: 'status', status: 401, message: 'Incorrect API key provided.' }]);
    expect((await failure(s.planner().plan(input, signal()))).error.code).toBe('LLM_AUTH_FAILED');
    expect(s.requests()).toHaveLength(1);
  });

  it('times out and aborts the HTTP request', async () => {
    const s = await start([{ kind: 'hang' }]);
    expect((await failure(s.planner({ timeoutMs: 150 }).plan(input, signal()))).error.code).toBe('LLM_TIMEOUT');
    await until(() => s.requests()[0]?.aborted === true);
  });

  it('cancels mid-request and aborts the HTTP request', async () => {
    const s = await start([{ kind: 'hang' }]);
    const controller = new AbortController();
    const pending = s.planner().plan(input, controller.signal);
    await until(() => s.requests().length === 1);
    controller.abort();
    expect((await failure(pending)).error.code).toBe('LLM_CANCELLED');
    await until(() => s.requests()[0]!.aborted);
  });

  it('cancels during a backoff wait', async () => {
    const s = await start([{ kind: 'status', status: 429, message: 'slow down', headers: { 'retry-after': '20' } }]);
    const controller = new AbortController();
    const pending = s.planner({ sleep: abortableSleep }).plan(input, controller.signal);
    await until(() => s.requests().length === 1);
    controller.abort();
    expect((await failure(pending)).error.code).toBe('LLM_CANCELLED');
    expect(s.requests()).toHaveLength(1);
  });

  it('reports a refused connection as LLM_UNAVAILABLE, without retrying', async () => {
    const s = await start([{ kind: 'ok', content: ENVELOPE }]);
    const planner = s.planner();
    await s.close();
    server = undefined;
    expect((await failure(planner.plan(input, signal()))).error.code).toBe('LLM_UNAVAILABLE');
    expect(waits).toEqual([]);
  });

  it('reports a malformed body as LLM_RESPONSE_INVALID', async () => {
    const s = await start([{ kind: 'malformed' }]);
    expect((await failure(s.planner().plan(input, signal()))).error.code).toBe('LLM_RESPONSE_INVALID');
  });

  it('turns repair attempts into assistant + user follow-up messages quoting errors and pointers', async () => {
    const s = await start([{ kind: 'ok', content: ENVELOPE }]);
    const repair = { attempts: [{ rawText: '{"directives":[{"type":"ui.toast","payload":{"level":"loud"}}]}', errors: [
      { code: 'DIRECTIVE_PAYLOAD_INVALID', pointer: '/directives/0/payload/level', detail: 'invalid_value: expected one of "info"|"success"|"warning"|"error"' },
      { code: 'DIRECTIVE_PAYLOAD_INVALID', pointer: '/directives/0/payload/text', detail: 'invalid_type: expected string, received undefined' },
    ] }] };
    await s.planner().plan({ ...input, repair }, signal());
    const messages = s.requests()[0]!.body.messages as Array<{ role: string; content: string }>;
    expect(messages.at(-3)).toEqual({ role: 'user', content: 'make a persona' });
    expect(messages.at(-2)).toEqual({ role: 'assistant', content: repair.attempts[0]!.rawText });
    expect(messages.at(-1)!.role).toBe('user');
    expect(messages.at(-1)!.content).toContain('`/directives/0/payload/level` — DIRECTIVE_PAYLOAD_INVALID: invalid_value');
    expect(messages.at(-1)!.content).toContain('`/directives/0/payload/text`');
  });
});
