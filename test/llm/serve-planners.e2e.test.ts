import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createDemoApp } from '../../src/app/index.ts';
import { run, startServe, type ServeHandle } from '../../src/cli/commands/serve.ts';
import { silentLogger, TraceSchema, type Trace } from '../../src/conversation/index.ts';
import { directiveJsonSchema } from '../../src/directives/index.ts';
import { toStrictValue } from '../../src/llm/index.ts';
import { memoryIo } from '../support/cli-io.ts';
import { startFakeOllama } from '../support/fake-ollama.ts';
import { startFakeOpenAi } from '../support/fake-openai.ts';
import { HttpClient } from '../support/http-client.ts';
import { jsonlTestFiles } from '../support/jsonl-stores.ts';
import { openConversation, parse } from '../host-html/support/page.ts';

/**
 * `npm start` with a model: startServe (what `surfacer serve` runs) over real HTTP, the real
 * `openai` and `ollama` clients, and fake providers. A message goes in through the htmx host;
 * the model's structured output comes back applied, with the repair loop, the trace page
 * and the logs in between.
 */
const files = jsonlTestFiles('surfacer-serve-llm-');
const envelopeSchema = directiveJsonSchema(createDemoApp().directives);
const SECRET = { SURFACER_SESSION_SECRET: 'a-long-enough-secret-for-tests' };
const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => { for (const c of cleanup.splice(0).reverse()) await c(); });

async function serve(planner: Parameters<typeof startServe>[0]['planner'], env: NodeJS.ProcessEnv): Promise<ServeHandle> {
  const server = await startServe({ port: 0, hostname: '127.0.0.1', planner, dataDir: files.tempDir(), env: { ...SECRET, ...env }, logger: silentLogger, fsync: false });
  cleanup.push(() => server.close());
  return server;
}

async function say(server: ServeHandle, text: string): Promise<{ client: HttpClient; base: string; body: { outcome: string; surfaces: Array<{ id: string }>; trace: Trace } }> {
  const client = new HttpClient(server.url);
  const c = await openConversation(client);
  const response = await client.post(`${c.base}/messages`, { _csrf: c.csrf, text }, { as: 'json' });
  expect(response.status).toBe(200);
  return { client, base: c.base, body: await response.json() as never };
}

const strictForm = (envelope: unknown): string => JSON.stringify(toStrictValue(envelope, envelopeSchema));
// These tests are about the final request (format, repair): the demo app's tool loop is turned off
// (SURFACER_TOOL_MAX_STEPS=0) so each scripted answer is a final answer; the tool loop has its own test.
const NO_TOOLS = { SURFACER_TOOL_MAX_STEPS: '0' };
const PERSONA = { assistant_text: 'Here is your persona.', directives: [{ type: 'ui.show_form', payload: { template: 'persona', values: { display_name: 'Sam' } } }] };

describe('surfacer serve with a model planner, over HTTP', () => {
  it('openai: strict structured output, a repair round, dropped keys and token usage, all on the trace page', async () => {
    const closeUnknown = { directives: [{ type: 'ui.close', payload: { surface: 'sidebar' } }] };
    const fake = await startFakeOpenAi({ script: [{ kind: 'reply', content: strictForm(closeUnknown) }, { kind: 'reply', content: strictForm(PERSONA) }], apiKey: 'sk-e2e' });
    cleanup.push(() => fake.close());
    const server = await serve('openai', {
      OPENAI_BASE_URL: fake.baseURL, OPENAI_API_KEY: 'sk-e2e', SURFACER_OPENAI_MODEL: 'gpt-4o-mini',
      SURFACER_LLM_OPTIONS: '{"temperature": 0.2, "mirostat": 1}', ...NO_TOOLS,
    });
    expect(server.plannerLabel).toBe('openai-compatible · gpt-4o-mini');
    const { client, base, body } = await say(server, 'set up my persona');
    expect(body.outcome).toBe('applied');
    expect(body.surfaces.map((s) => s.id)).toEqual(['main']);
    const trace = TraceSchema.parse(body.trace);
    expect(trace.llm).toMatchObject({ provider: 'openai', model: 'gpt-4o-mini', format_mode: 'json_schema', dropped_keys: ['/options/mirostat'] });
    expect(trace.llm.usage!.total_tokens).toBeGreaterThan(0);
    expect(trace.attempts!.map((a) => a.status)).toEqual(['failed', 'passed']);
    expect(trace.attempts![0]!.errors[0]).toMatchObject({ code: 'DIRECTIVE_SURFACE_UNKNOWN', pointer: '/directives/0/payload/surface' });
    expect(fake.requests).toHaveLength(2);
    expect(fake.requests[0]!.body.temperature).toBe(0.2);
    const repairMessage = (fake.requests[1]!.body.messages as Array<{ content: string }>).at(-1)!.content;
    expect(repairMessage).toContain('`/directives/0/payload/surface` — DIRECTIVE_SURFACE_UNKNOWN');

    const page = await client.get(`${base}`);
    expect(parse(await page.text())('#surface-main').length).toBe(1);
    const $ = parse(await (await client.get(`${base}/trace`)).text());
    expect($('.trace__attempt')).toHaveLength(2);
    expect($('.trace__attempt--failed').text()).toContain('DIRECTIVE_SURFACE_UNKNOWN');
    expect($('.trace__attempt--failed pre').text()).toContain('"ui.close"');
    expect($('dt:contains("Dropped request keys") + dd').text()).toBe('/options/mirostat');
    expect($('dt:contains("Tokens") + dd').text()).toMatch(/^prompt \d+ · completion \d+ · total \d+$/);
  });

  it('ollama: the envelope schema as format, applied end to end', async () => {
    const fake = await startFakeOllama([{ kind: 'reply', content: JSON.stringify(PERSONA) }]);
    cleanup.push(() => fake.close());
    const server = await serve('ollama', { OLLAMA_HOST: fake.host, SURFACER_OLLAMA_MODEL: 'qwen3:8b', ...NO_TOOLS });
    const { body } = await say(server, 'set up my persona');
    expect(body.outcome).toBe('applied');
    expect(body.surfaces.map((s) => s.id)).toEqual(['main']);
    expect(fake.requests[0]!.format).toEqual(envelopeSchema);
    expect(TraceSchema.parse(body.trace).llm).toMatchObject({ provider: 'ollama', model: 'qwen3:8b' });
  });

  it('ollama: a repair loop that runs out applies the valid part of the best answer and says so', async () => {
    const mixed = JSON.stringify({ directives: [PERSONA.directives[0], { type: 'ui.close', payload: { surface: 'sidebar' } }] });
    const fake = await startFakeOllama([{ kind: 'reply', content: mixed }, { kind: 'reply', content: 'Sorry, I cannot fix that.' }]);
    cleanup.push(() => fake.close());
    const server = await serve('ollama', { OLLAMA_HOST: fake.host, SURFACER_OLLAMA_MODEL: 'llama3.2', ...NO_TOOLS });
    const { client, base, body } = await say(server, 'set up my persona');
    expect(fake.requests).toHaveLength(2);
    expect(body.outcome).toBe('applied');
    expect(body.surfaces.map((s) => s.id)).toEqual(['main']);
    const trace = TraceSchema.parse(body.trace);
    expect(trace.repair).toEqual({ max_repairs: 1, used: 1, exhausted: true, chosen: 0 });
    expect(trace.validation.error_codes).toEqual(['DIRECTIVE_SURFACE_UNKNOWN']);
    expect(trace.recovery).toContainEqual({ code: 'LLM_REPAIR_EXHAUSTED', path: 'soft_fail' });
    const $ = parse(await (await client.get(`${base}/trace`)).text());
    expect($('dt:contains("Repair") + dd').text()).toContain('none passed');
  });

  it('openai: the demo\'s find_cards tool in the tool loop, then the final request with the schema; every step on the trace page', async () => {
    const fake = await startFakeOpenAi({
      apiKey: 'sk-e2e',
      script: [
        { kind: 'reply', content: null, toolCalls: [{ id: 'call_1', type: 'function', function: { name: 'find_cards', arguments: '{"query":"Aria"}' } }] },
        { kind: 'reply', content: 'No saved card named Aria.' },
        { kind: 'reply', content: strictForm(PERSONA) },
      ],
    });
    cleanup.push(() => fake.close());
    const server = await serve('openai', { OPENAI_BASE_URL: fake.baseURL, OPENAI_API_KEY: 'sk-e2e', SURFACER_OPENAI_MODEL: 'gpt-4o-mini' });
    const { client, base, body } = await say(server, 'open my saved card Aria');
    expect(body.outcome).toBe('applied');
    expect(body.surfaces.map((s) => s.id)).toEqual(['main']);
    const sent = fake.requests.map((r) => r.body);
    expect(sent.map((b) => [Array.isArray(b.tools), b.parallel_tool_calls, b.response_format !== undefined])).toEqual([
      [true, false, false], [true, false, false], [false, undefined, true],
    ]);
    expect((sent[0]!.tools as Array<{ function: { name: string } }>).map((t) => t.function.name)).toEqual(['find_cards']);
    // A new conversation's owner has no saved cards: the tool answered [] and the model was told so.
    const toolMessages = (sent[2]!.messages as Array<{ role: string; tool_call_id?: string; content: string }>).filter((m) => m.role === 'tool');
    expect(toolMessages).toEqual([{ role: 'tool', tool_call_id: 'call_1', content: '[]' }]);
    const trace = TraceSchema.parse(body.trace);
    expect(trace.run_mode).toBe('hybrid');
    expect(trace.tool_loop).toMatchObject({ tools: ['find_cards'], stopped: 'answered', requests: 2, steps: [{ name: 'find_cards', ok: true, result: '[]' }] });
    const $ = parse(await (await client.get(`${base}/trace`)).text());
    expect($('dt:contains("Tools") + dd').text()).toContain('stopped: answered');
    expect($('.trace__tool').text()).toContain('find_cards');
  });

  it('openai unreachable: the offline planner answers and the trace says so', async () => {
    const fake = await startFakeOpenAi({ script: [{ kind: 'reply', content: '{}' }] });
    const baseURL = fake.baseURL;
    await fake.close();
    const server = await serve('openai', { OPENAI_BASE_URL: baseURL, SURFACER_OPENAI_MODEL: 'm' });
    const { body } = await say(server, 'create a character card');
    expect(body.outcome).toBe('applied');
    expect(TraceSchema.parse(body.trace).llm).toMatchObject({ provider: 'offline', offline: true, fallback_error: { code: 'LLM_UNAVAILABLE' } });
  });

  it('openai refusing a parameter: LLM_PARAMETER_UNSUPPORTED on the trace page, one request, the offline planner answers', async () => {
    const fake = await startFakeOpenAi({ script: [{ kind: 'status', status: 404, error: { message: 'No endpoints found that support the requested parameters.', code: 404 } }] });
    cleanup.push(() => fake.close());
    const server = await serve('openai', { OPENAI_BASE_URL: fake.baseURL, SURFACER_OPENAI_MODEL: 'meta-llama/llama-3.1-8b-instruct' });
    const { client, base, body } = await say(server, 'create a character card');
    expect(fake.requests).toHaveLength(1);
    expect(body.trace.llm.fallback_error?.code).toBe('LLM_PARAMETER_UNSUPPORTED');
    const $ = parse(await (await client.get(`${base}/trace`)).text());
    expect($('dt:contains("Fallback") + dd').text()).toContain('LLM_PARAMETER_UNSUPPORTED');
  });

  it('replay: answers from a recorded JSONL file', async () => {
    const file = join(files.tempDir(), 'recorded.jsonl');
    writeFileSync(file, `${JSON.stringify({ text: 'set up my persona', output: `<think>persona {x}</think>\n${JSON.stringify(PERSONA)}` })}\n`);
    const server = await serve('replay', { SURFACER_REPLAY_FILE: file });
    const { body } = await say(server, 'Set up my persona');
    expect(body.outcome).toBe('applied');
    expect(body.trace.llm.provider).toBe('replay');
    expect(body.trace.validation.warnings.map((w) => w.code)).toContain('DIRECTIVE_WARN_REASONING_STRIPPED');
  });

  it('refuses a bad planner configuration with exit code 2 and a readable reason', async () => {
    const io = memoryIo({ env: { ...SECRET, OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' } });
    expect(await run(['--port', '0', '--planner', 'openai', '--data', files.tempDir()], io)).toBe(2);
    expect(io.err()).toMatch(/SURFACER_OPENAI_MODEL/);
    const caps = join(files.tempDir(), 'caps.json');
    writeFileSync(caps, '{"openai": {"tool": true}}');
    const io2 = memoryIo({ env: { ...SECRET, OPENAI_API_KEY: 'k', SURFACER_LLM_CAPABILITIES: caps } });
    expect(await run(['--port', '0', '--planner', 'openai', '--data', files.tempDir()], io2)).toBe(2);
    expect(io2.err()).toMatch(/caps\.json\/openai/);
  });
});
