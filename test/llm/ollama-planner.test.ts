import { afterEach, describe, expect, it } from 'vitest';
import { createFallbackPlanner, createOllamaPlanner, PlannerError } from '../../src/llm/index.ts';
import type { Planner } from '../../src/planner/types.ts';
import { emptyConversation } from '../../src/ui-ir/index.ts';
import { startFakeOllama, type FakeOllamaBehaviour } from '../support/fake-ollama.ts';

const ENVELOPE = '{"directives":[{"type":"ui.toast","level":"info","text":"hi"}]}';
const format = { type: 'object', properties: { directives: { type: 'array' } } };
let fake: Awaited<ReturnType<typeof startFakeOllama>> | undefined;
afterEach(async () => { await fake?.close(); fake = undefined; });

async function plannerWith(behaviour: FakeOllamaBehaviour, extra: Partial<Parameters<typeof createOllamaPlanner>[0]> = {}) {
  fake = await startFakeOllama(() => behaviour);
  return createOllamaPlanner({ host: fake.host, model: 'tiny', systemPrompt: 'SYSTEM', format, ...extra });
}

async function failure(p: Promise<unknown>): Promise<string> {
  try { await p; } catch (error) { expect(error).toBeInstanceOf(PlannerError); return (error as PlannerError).error.code; }
  throw new Error('expected the planner to fail');
}

const input = { text: 'make a persona', ir: emptyConversation('c1') };

describe('Ollama planner through the real ollama client', () => {
  it('sends a non-streamed structured-output request and returns the raw content', async () => {
    const planner = await plannerWith({ kind: 'reply', content: ENVELOPE }, { sampling: { temperature: 0.2, mirostat: 1 } });
    const out = await planner.plan(input, new AbortController().signal);
    expect(out.rawText).toBe(ENVELOPE);
    expect(out.provider).toBe('ollama');
    const sent = fake!.requests[0]!;
    expect(sent.stream).toBe(false);
    expect(sent.format).toEqual(format);
    expect(sent.model).toBe('tiny');
    expect(sent.options).toEqual({ temperature: 0.2 });
    expect(out.meta?.dropped_keys).toEqual(['/options/mirostat']);
    const messages = sent.messages as Array<{ role: string; content: string }>;
    expect(messages[0]).toEqual({ role: 'system', content: 'SYSTEM' });
    expect(messages.at(-1)).toEqual({ role: 'user', content: 'make a persona' });
  });

  it('reports a malformed reply as LLM_RESPONSE_INVALID', async () => {
    const planner = await plannerWith({ kind: 'malformed' });
    expect(await failure(planner.plan(input, new AbortController().signal))).toBe('LLM_RESPONSE_INVALID');
  });

  it('reports an HTTP failure as LLM_HTTP_ERROR', async () => {
    const planner = await plannerWith({ kind: 'status', status: 500, error: 'model crashed' });
    expect(await failure(planner.plan(input, new AbortController().signal))).toBe('LLM_HTTP_ERROR');
  });

  it('times out a slow model with LLM_TIMEOUT', async () => {
    const planner = await plannerWith({ kind: 'slow', delayMs: 5_000, content: ENVELOPE }, { timeoutMs: 100 });
    expect(await failure(planner.plan(input, new AbortController().signal))).toBe('LLM_TIMEOUT');
  });

  it('reports a cancelled turn as LLM_CANCELLED', async () => {
    const planner = await plannerWith({ kind: 'slow', delayMs: 5_000, content: ENVELOPE });
    const controller = new AbortController();
    const pending = planner.plan(input, controller.signal);
    setTimeout(() => controller.abort(), 50);
    expect(await failure(pending)).toBe('LLM_CANCELLED');
  });

  it('reports a refused connection as LLM_UNAVAILABLE', async () => {
    fake = await startFakeOllama(() => ({ kind: 'reply', content: ENVELOPE }));
    const host = fake.host;
    await fake.close();
    fake = undefined;
    const planner = createOllamaPlanner({ host, model: 'tiny', systemPrompt: 'S', format });
    expect(await failure(planner.plan(input, new AbortController().signal))).toBe('LLM_UNAVAILABLE');
  });

  it('refuses unsupported keys in strict mode before sending anything', async () => {
    const planner = await plannerWith({ kind: 'reply', content: ENVELOPE }, { strict: true, sampling: { mirostat: 1 } });
    expect(await failure(planner.plan(input, new AbortController().signal))).toBe('LLM_REQUEST_KEY_UNSUPPORTED');
    expect(fake!.requests).toHaveLength(0);
  });
});

describe('fallback planner', () => {
  const offline: Planner = {
    name: 'offline', label: 'offline',
    plan: async () => ({ rawText: '{"directives":[]}', provider: 'offline', llmMs: 0 }),
  };

  it('answers offline when the model fails, and says so', async () => {
    const planner = createFallbackPlanner(await plannerWith({ kind: 'status', status: 503, error: 'loading' }), offline);
    const out = await planner.plan(input, new AbortController().signal);
    expect(out.provider).toBe('offline');
    expect((out.meta?.fallback_error as { code: string }).code).toBe('LLM_HTTP_ERROR');
  });

  it('uses the model when it answers', async () => {
    const planner = createFallbackPlanner(await plannerWith({ kind: 'reply', content: ENVELOPE }), offline);
    expect((await planner.plan(input, new AbortController().signal)).provider).toBe('ollama');
  });
});
