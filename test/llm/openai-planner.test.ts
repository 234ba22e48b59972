import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { createDemoDirectiveRegistry } from '../../src/app/index.ts';
import { directiveJsonSchema, validateModelOutput } from '../../src/directives/index.ts';
import {
  capabilitiesFor, createOpenAiPlanner, PlannerError, toOpenAiChatRequest, toStrictJsonSchema, toStrictValue,
} from '../../src/llm/index.ts';
import { emptyConversation } from '../../src/ui-ir/index.ts';
import { startFakeOpenAi, type FakeOpenAiOptions } from '../support/fake-openai.ts';

const registry = createDemoDirectiveRegistry();
const envelopeSchema = directiveJsonSchema(registry);
const input = { text: 'a toast please', ir: emptyConversation('c1') };
const TOAST = { type: 'ui.toast', payload: { level: 'info', text: 'hi' } };
let fake: Awaited<ReturnType<typeof startFakeOpenAi>> | undefined;
afterEach(async () => { await fake?.close(); fake = undefined; });

async function plannerWith(options: FakeOpenAiOptions, extra: Partial<Parameters<typeof createOpenAiPlanner>[0]> = {}) {
  fake = await startFakeOpenAi(options);
  return createOpenAiPlanner({ baseURL: fake.baseURL, apiKey: 'sk-test', model: 'gpt-4o-mini', systemPrompt: 'S', envelopeSchema, sleep: async () => {}, ...extra });
}

async function failure(p: Promise<unknown>): Promise<PlannerError> {
  try { await p; } catch (error) { expect(error).toBeInstanceOf(PlannerError); return error as PlannerError; }
  throw new Error('expected the planner to fail');
}

describe('OpenAI-compatible planner', () => {
  it('sends strict json_schema structured output the fake (OpenAI subset rules) accepts, and maps strict nulls back', async () => {
    const strictAnswer = JSON.stringify(toStrictValue({ directives: [TOAST] }, envelopeSchema));
    const planner = await plannerWith({ script: [{ kind: 'reply', content: strictAnswer }] });
    const out = await planner.plan(input, new AbortController().signal);
    const format = fake!.requests[0]!.body.response_format as { type: string; json_schema: { name: string; strict: boolean; schema: unknown } };
    expect(format.type).toBe('json_schema');
    expect(format.json_schema.strict).toBe(true);
    expect(format.json_schema.schema).toEqual(toStrictJsonSchema(envelopeSchema).schema);
    expect(strictAnswer).toContain('null');
    expect(out.rawText).toBe(JSON.stringify({ directives: [TOAST] }));
    expect(out.meta?.model_text).toBe(strictAnswer);
    expect(validateModelOutput(registry, out.rawText, { mode: 'strict' }).errors).toEqual([]);
  });

  it('leaves the client no retries of its own: every request says retry count 0', async () => {
    const planner = await plannerWith({ script: [{ kind: 'status', status: 500, error: { message: 'boom', type: 'server_error' } }, { kind: 'reply', content: '{"directives":[]}' }] });
    await planner.plan(input, new AbortController().signal);
    expect(fake!.requests.map((r) => r.headers['x-stainless-retry-count'])).toEqual(['0', '0']);
    expect(fake!.requests[0]!.headers.authorization).toBe('Bearer sk-test');
  });

  it('names the parameter of an OpenAI 400 unsupported_parameter, and does not retry it', async () => {
    const planner = await plannerWith({ script: [{ kind: 'reply', content: '{}' }], unsupported: ['temperature'] }, { sampling: { temperature: 0.3 } });
    const e = await failure(planner.plan(input, new AbortController().signal));
    expect([e.error.code, e.error.pointer]).toEqual(['LLM_PARAMETER_UNSUPPORTED', '/temperature']);
    expect(fake!.requests).toHaveLength(1);
  });

  it('knows OpenAI reasoning models take no temperature: dropped before sending', async () => {
    const planner = await plannerWith({ script: [{ kind: 'reply', content: '{"directives":[]}' }], unsupported: ['temperature'] },
      { model: 'o3-mini', sampling: { temperature: 0.3, seed: 7 }, capabilities: capabilitiesFor('openai', 'o3-mini') });
    const out = await planner.plan(input, new AbortController().signal);
    expect(out.meta?.dropped_keys).toEqual(['/options/temperature']);
    expect(fake!.requests[0]!.body.seed).toBe(7);
  });

  it('reports a refusal as LLM_RESPONSE_REFUSED', async () => {
    const planner = await plannerWith({ script: [{ kind: 'reply', content: null, refusal: "I'm sorry, I can't help with that." }] });
    expect((await failure(planner.plan(input, new AbortController().signal))).error.code).toBe('LLM_RESPONSE_REFUSED');
  });

  it('hands tool calls in place of content to the parser, which reads them as directives', async () => {
    const toolCalls = [{ id: 'call_1', type: 'function', function: { name: 'ui.toast', arguments: JSON.stringify(TOAST.payload) } }];
    const planner = await plannerWith({ script: [{ kind: 'reply', content: null, toolCalls }] });
    const out = await planner.plan(input, new AbortController().signal);
    expect(out.meta?.finish_reason).toBe('tool_calls');
    const read = validateModelOutput(registry, out.rawText, { mode: 'best_effort' });
    expect(read.directives.map(({ type, payload }) => ({ type, payload }))).toEqual([TOAST]);
    expect(read.warnings.map((w) => w.code)).toContain('DIRECTIVE_WARN_TOOL_CALL_READ');
  });

  it('labels a server other than api.openai.com as openai-compatible', async () => {
    const planner = await plannerWith({ script: [{ kind: 'reply', content: '{}' }] });
    expect(planner.label).toBe('openai-compatible · gpt-4o-mini');
  });
});

describe('the OpenAI wire request (what issue 15 builds on)', () => {
  it('the fake refuses a strict schema outside the subset, as OpenAI does', async () => {
    fake = await startFakeOpenAi({ script: [{ kind: 'reply', content: '{}' }] });
    const client = new OpenAI({ apiKey: 'k', baseURL: fake.baseURL, maxRetries: 0 });
    const request = toOpenAiChatRequest({ model: 'm', stream: false, messages: [{ role: 'user', content: 'x' }], format: envelopeSchema });
    await expect(client.chat.completions.create(request)).rejects.toMatchObject({ status: 400, code: 'invalid_json_schema' });
  });

  it('sends parallel_tool_calls: false explicitly whenever tools are present', async () => {
    fake = await startFakeOpenAi({ script: [{ kind: 'reply', content: 'ok' }] });
    const client = new OpenAI({ apiKey: 'k', baseURL: fake.baseURL, maxRetries: 0 });
    const tools = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: {} } } }];
    await client.chat.completions.create(toOpenAiChatRequest({ model: 'm', stream: false, messages: [{ role: 'user', content: 'x' }], tools, parallelToolCalls: false }));
    expect(fake.requests[0]!.body.parallel_tool_calls).toBe(false);
    expect(fake.requests[0]!.body.tools).toEqual(tools);
    expect(fake.requests[0]!.body.response_format).toBeUndefined();
  });
});
