import { afterEach, describe, expect, it } from 'vitest';
import { createFallbackPlanner, createOllamaPlanner } from '../../src/llm/index.ts';
import type { Planner } from '../../src/planner/types.ts';
import { emptyConversation } from '../../src/ui-ir/index.ts';
import { startFakeOllama, type FakeOllamaBehaviour } from '../support/fake-ollama.ts';

const ENVELOPE = '{"directives":[{"type":"ui.toast","level":"info","text":"hi"}]}';
const format = { type: 'object', properties: { directives: { type: 'array' } } };
let fake: Awaited<ReturnType<typeof startFakeOllama>> | undefined;
afterEach(async () => { await fake?.close(); fake = undefined; });

async function plannerWith(behaviour: FakeOllamaBehaviour, extra: Partial<Parameters<typeof createOllamaPlanner>[0]> = {}) {
  fake = await startFakeOllama(() => behaviour);
  return createOllamaPlanner({ host: fake.host, model: 'tiny', systemPrompt: 'SYSTEM', format, sleep: async () => {}, ...extra });
}

const input = { text: 'make a persona', ir: emptyConversation('c1') };

describe('Ollama planner specifics', () => {
  it('sends the envelope schema whole as `format` and sampling keys under `options`', async () => {
    const planner = await plannerWith({ kind: 'reply', content: ENVELOPE }, { sampling: { temperature: 0.2, num_ctx: 4096 } });
    const out = await planner.plan(input, new AbortController().signal);
    const sent = fake!.requests[0]!;
    expect(sent.format).toEqual(format);
    expect(sent.options).toEqual({ temperature: 0.2, num_ctx: 4096 });
    expect(out.meta?.finish_reason).toBe('stop');
  });

  it('reports an unknown model (404) as LLM_MODEL_NOT_FOUND', async () => {
    const planner = await plannerWith({ kind: 'status', status: 404, error: 'model "tiny" not found, try pulling it first' });
    await expect(planner.plan(input, new AbortController().signal)).rejects.toMatchObject({ error: { code: 'LLM_MODEL_NOT_FOUND' } });
  });
});

describe('fallback planner', () => {
  const offline: Planner = {
    name: 'offline', label: 'offline',
    plan: async () => ({ rawText: '{"directives":[]}', provider: 'offline', llmMs: 0 }),
  };

  it('answers offline when the model fails, and says so', async () => {
    const planner = createFallbackPlanner(await plannerWith({ kind: 'status', status: 400, error: 'bad request' }), offline);
    const out = await planner.plan(input, new AbortController().signal);
    expect(out.provider).toBe('offline');
    expect((out.meta?.fallback_error as { code: string }).code).toBe('LLM_HTTP_ERROR');
  });

  it('uses the model when it answers', async () => {
    const planner = createFallbackPlanner(await plannerWith({ kind: 'reply', content: ENVELOPE }), offline);
    expect((await planner.plan(input, new AbortController().signal)).provider).toBe('ollama');
  });

  it('does not answer a repair follow-up offline: the failure reaches the repair loop', async () => {
    const planner = createFallbackPlanner(await plannerWith({ kind: 'status', status: 400, error: 'bad request' }), offline);
    const repair = { attempts: [{ rawText: 'x', errors: [] }] };
    await expect(planner.plan({ ...input, repair }, new AbortController().signal)).rejects.toMatchObject({ error: { code: 'LLM_HTTP_ERROR' } });
  });
});
