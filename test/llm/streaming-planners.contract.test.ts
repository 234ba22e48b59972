import { afterEach, describe, expect, it } from 'vitest';
import { createDemoDirectiveRegistry } from '../../src/app/index.ts';
import { directiveJsonSchema } from '../../src/directives/index.ts';
import {
  capabilitiesFor, createOllamaPlanner, createOpenAiPlanner, PlannerError, plannerConfigFromEnv, preflightLlmRequest, streamFinalRequest,
  type ChatPlannerOptions,
} from '../../src/llm/index.ts';
import type { Planner, PlannerInput } from '../../src/planner/types.ts';
import { emptyConversation } from '../../src/ui-ir/index.ts';
import { startFakeOllama } from '../support/fake-ollama.ts';
import { startFakeOpenAi } from '../support/fake-openai.ts';
import { piecesOf, type FakeStream } from '../support/fake-stream.ts';

/**
 * Streaming as a per-provider capability, through the real `ollama` and `openai` clients against
 * fake servers that stream NDJSON / SSE at a set pace: the final directive request streams where
 * the table (or SURFACER_STREAM) allows, every delta reaches the sink as it arrives, and a stream
 * that breaks (cut, error frame, reset, stall) keeps what arrived instead of asking again.
 */
const envelopeSchema = directiveJsonSchema(createDemoDirectiveRegistry());
const ANSWER = '{"assistant_text":"Here is the form.","directives":[{"type":"ui.toast","payload":{"level":"info","text":"hi"}}]}';
const base = { model: 'tiny', systemPrompt: 'SYSTEM', sleep: async () => {}, random: () => 0.5 };

interface Server {
  requests(): Array<{ body: Record<string, unknown>; aborted: boolean }>;
  planner(options?: Partial<ChatPlannerOptions>): Planner;
  close(): Promise<void>;
}

const PROVIDERS: Array<{ name: string; start(s: FakeStream): Promise<Server> }> = [
  {
    name: 'ollama',
    async start(s) {
      const fake = await startFakeOllama([s]);
      return {
        requests: () => fake.requests.map((body, i) => ({ body, aborted: fake.aborted[i]! })),
        planner: (o = {}) => createOllamaPlanner({ ...base, host: fake.host, format: envelopeSchema, ...o }),
        close: () => fake.close(),
      };
    },
  },
  {
    name: 'openai',
    async start(s) {
      const fake = await startFakeOpenAi({ script: [s] });
      return {
        requests: () => fake.requests.map((r) => ({ body: r.body, aborted: r.aborted })),
        // api.openai.com's entry of the table: streams with a strict json_schema.
        planner: (o = {}) => createOpenAiPlanner({ ...base, baseURL: fake.baseURL, apiKey: 'k', envelopeSchema, provider: 'openai', ...o }),
        close: () => fake.close(),
      };
    },
  },
];

function input(deltas: string[]): PlannerInput {
  return { text: 'hi', ir: emptyConversation('c1'), stream: { text: (d) => deltas.push(d) } };
}

let server: Server | undefined;
afterEach(async () => { await server?.close(); server = undefined; });

describe('the capability table says where streaming with structured output is allowed', () => {
  it('ollama and openai stream with a schema; an unknown OpenAI-compatible router does not, unless its file or SURFACER_STREAM says so', () => {
    expect(capabilitiesFor('ollama', 'qwen3').streamStructured).toBe(true);
    expect(capabilitiesFor('openai', 'gpt-4o-mini').streamStructured).toBe(true);
    const router = capabilitiesFor('openai-compatible', 'some/model');
    expect(router.streamStructured).toBe(false);
    expect(streamFinalRequest('auto', router, true)).toBe(false);
    expect(streamFinalRequest('auto', router, false)).toBe(true);
    expect(streamFinalRequest('on', router, true)).toBe(true);
    expect(streamFinalRequest('off', capabilitiesFor('ollama', 'x'), true)).toBe(false);
    expect(capabilitiesFor('openai-compatible', 'm', { 'openai-compatible': { streamStructured: true } }).streamStructured).toBe(true);
    const spec = { model: 'm', messages: [], stream: true, format: { type: 'object' } };
    expect(preflightLlmRequest(spec).map((e) => e.code)).toEqual(['LLM_STREAMING_WITH_RESPONSE_FORMAT_FORBIDDEN']);
    expect(preflightLlmRequest(spec, { withFormat: true, withTools: false })).toEqual([]);
  });

  it('SURFACER_STREAM is auto by default, on/off when set, anything else refused', () => {
    expect(plannerConfigFromEnv({}).stream).toBe('auto');
    expect(plannerConfigFromEnv({ SURFACER_STREAM: 'off' }).stream).toBe('off');
    expect(() => plannerConfigFromEnv({ SURFACER_STREAM: 'yes' })).toThrow(PlannerError);
  });
});

describe.each(PROVIDERS)('$name streams the final directive request', (provider) => {
  it('hands each delta to the sink as it arrives, the whole answer as rawText', async () => {
    const sentAt: number[] = [];
    server = await provider.start({ kind: 'stream', pieces: piecesOf(ANSWER, 7), paceMs: 12, onPiece: (_i, at) => sentAt.push(at) });
    const deltas: string[] = [];
    const seenAt: number[] = [];
    const planner = server.planner();
    const output = await planner.plan({ ...input(deltas), stream: { text: (d) => { deltas.push(d); seenAt.push(performance.now()); } } }, new AbortController().signal);
    expect(output.rawText).toBe(ANSWER);
    expect(deltas.join('')).toBe(ANSWER);
    expect(deltas.length).toBeGreaterThan(5);
    // Progressive: the first delta was read before the last piece left the server.
    expect(seenAt[0]!).toBeLessThan(sentAt.at(-1)!);
    expect(output.meta?.['stream']).toBe(true);
    const body = server.requests()[0]!.body;
    expect(body.stream).toBe(true);
    expect(body.format ?? body.response_format).toBeDefined();
  });

  it('does not stream when no one reads the answer, nor with SURFACER_STREAM=off', async () => {
    server = await provider.start({ kind: 'stream', pieces: [ANSWER], paceMs: 0 });
    const noSink = await server.planner().plan({ text: 'hi', ir: emptyConversation('c1') }, new AbortController().signal);
    // The fake streams only when asked; asked non-streamed it answers whole.
    expect(server.requests()[0]!.body.stream).toBe(false);
    expect(noSink.meta?.['stream']).toBe(false);
    const deltas: string[] = [];
    await server.planner({ stream: 'off' }).plan(input(deltas), new AbortController().signal);
    expect(server.requests()[1]!.body.stream).toBe(false);
    expect(deltas).toEqual([]);
  });

  it.each(['cut', 'error', 'reset'] as const)('a stream that ends with %s keeps what arrived, once (no retry), and says why (meta.stream_cut)', async (end) => {
    const cutAt = ANSWER.indexOf('"text":"hi"');
    server = await provider.start({ kind: 'stream', pieces: piecesOf(ANSWER.slice(0, cutAt), 9), paceMs: 2, end });
    const deltas: string[] = [];
    const output = await server.planner().plan(input(deltas), new AbortController().signal);
    expect(output.rawText).toBe(ANSWER.slice(0, cutAt));
    expect(deltas.join('')).toBe(output.rawText);
    expect(output.meta?.['stream_cut']).toMatchObject({ code: end === 'reset' ? 'LLM_UNAVAILABLE' : end === 'error' ? expect.stringMatching(/LLM_/) : 'LLM_RESPONSE_INVALID' });
    expect(server.requests()).toHaveLength(1);
  });

  it('a stall ends at the planner timeout with what arrived', async () => {
    server = await provider.start({ kind: 'stream', pieces: piecesOf(ANSWER.slice(0, 40), 10), paceMs: 2, end: 'stall' });
    const deltas: string[] = [];
    const output = await server.planner({ timeoutMs: 400 }).plan(input(deltas), new AbortController().signal);
    expect(output.rawText).toBe(ANSWER.slice(0, 40));
    expect(output.meta?.['stream_cut']).toMatchObject({ code: 'LLM_TIMEOUT' });
  });

  it('cancel mid-stream aborts the provider request at once', async () => {
    server = await provider.start({ kind: 'stream', pieces: piecesOf(ANSWER, 4), paceMs: 20 });
    const controller = new AbortController();
    const deltas: string[] = [];
    const planning = server.planner().plan({ ...input(deltas), stream: { text: (d) => { deltas.push(d); if (deltas.length === 3) controller.abort(); } } }, controller.signal);
    await expect(planning).rejects.toMatchObject({ error: { code: 'LLM_CANCELLED' } });
    await expect.poll(() => server!.requests()[0]!.aborted, { timeout: 2_000 }).toBe(true);
    expect(deltas.length).toBeLessThan(piecesOf(ANSWER, 4).length);
  });
});
