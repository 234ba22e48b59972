import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createDemoApp, createDemoDirectiveRegistry } from '../../src/app/index.ts';
import { createMemoryStore, createConversationService, TraceSchema } from '../../src/conversation/index.ts';
import { decodeA2uiSurfaceId } from '../../src/compiler/index.ts';
import { directiveJsonSchema } from '../../src/directives/index.ts';
import { createIngress } from '../../src/ingress/index.ts';
import {
  capabilitiesFor, createOllamaPlanner, createOpenAiPlanner, type ChatPlannerOptions,
} from '../../src/llm/index.ts';
import type { Planner, PlannerInput } from '../../src/planner/types.ts';
import { bindTools, createToolRegistry, type ToolDefinition } from '../../src/tools/index.ts';
import { createSeededSource, emptyConversation, findSurface } from '../../src/ui-ir/index.ts';
import { startFakeOllama, type FakeOllamaBehaviour } from '../support/fake-ollama.ts';
import { startFakeOpenAi, type FakeOpenAiBehaviour } from '../support/fake-openai.ts';

/**
 * The tool loop, against both chat planners through their real clients and fake servers that
 * speak each provider's documented tool-calling wire format (Ollama: `message.tool_calls` with
 * object arguments, `tool` messages with `tool_name`; OpenAI: `tool_calls` with ids and JSON-text
 * arguments, `tool` messages answering a `tool_call_id`, checked as the API checks them).
 */
type Step = { call: Array<{ name: string; args: Record<string, unknown> }> } | { answer: string };

interface Server {
  bodies(): Array<Record<string, unknown>>;
  planner(options?: Partial<ChatPlannerOptions>): Planner;
  close(): Promise<void>;
}

interface Wire {
  name: 'ollama' | 'openai';
  start(steps: Step[]): Promise<Server>;
  /** The request asks for structured output (a response schema). */
  hasSchema(body: Record<string, unknown>): boolean;
  /** The tool results the request carries back, in order: [tool name or call id, parsed content]. */
  toolResults(body: Record<string, unknown>): Array<[string, unknown]>;
}

const envelopeSchema = directiveJsonSchema(createDemoDirectiveRegistry());
const PERSONA = JSON.stringify({ assistant_text: 'Here is Aria.', directives: [{ type: 'ui.show_form', payload: { template: 'persona', values: { display_name: 'Aria' } } }] });
const base = { model: 'tiny', systemPrompt: 'SYSTEM', sleep: async () => {}, random: () => 0.5 };
let calls = 0;

const WIRES: Wire[] = [
  {
    name: 'ollama',
    async start(steps) {
      const fake = await startFakeOllama(steps.map((s): FakeOllamaBehaviour => ('answer' in s ? { kind: 'reply', content: s.answer }
        : { kind: 'reply', content: '', toolCalls: s.call.map((c) => ({ function: { name: c.name, arguments: c.args } })) })));
      return {
        bodies: () => fake.requests,
        planner: (o = {}) => createOllamaPlanner({ ...base, host: fake.host, format: envelopeSchema, ...o }),
        close: () => fake.close(),
      };
    },
    hasSchema: (body) => body.format !== undefined,
    toolResults: (body) => (body.messages as Array<Record<string, unknown>>).filter((m) => m.role === 'tool')
      .map((m) => [String(m.tool_name), JSON.parse(String(m.content)) as unknown]),
  },
  {
    name: 'openai',
    async start(steps) {
      const fake = await startFakeOpenAi({
        apiKey: 'sk-test',
        script: steps.map((s): FakeOpenAiBehaviour => ('answer' in s ? { kind: 'reply', content: s.answer }
          : { kind: 'reply', content: null, toolCalls: s.call.map((c) => ({ id: `call_${(calls += 1)}`, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.args) } })) })),
      });
      return {
        bodies: () => fake.requests.map((r) => r.body),
        planner: (o = {}) => createOpenAiPlanner({ ...base, baseURL: fake.baseURL, apiKey: 'sk-test', envelopeSchema, ...o }),
        close: () => fake.close(),
      };
    },
    hasSchema: (body) => body.response_format !== undefined,
    toolResults: (body) => (body.messages as Array<Record<string, unknown>>).filter((m) => m.role === 'tool')
      .map((m) => [String(m.tool_call_id), JSON.parse(String(m.content)) as unknown]),
  },
];

/** Read-only test tools that record their calls; `explode` always throws. */
function testTools() {
  const executed: Array<{ name: string; input: unknown }> = [];
  const definitions: ToolDefinition[] = [
    {
      name: 'find_cards', description: 'Saved character cards whose name contains the query.',
      input: z.object({ query: z.string().max(80) }).strict(),
      handler: async (input: { query: string }) => { executed.push({ name: 'find_cards', input }); return [{ id: 'card-1', name: 'Aria' }]; },
    },
    {
      name: 'card_details', description: 'One saved card.',
      input: z.object({ id: z.string() }).strict(),
      handler: async (input: { id: string }) => { executed.push({ name: 'card_details', input }); return { id: input.id, personality: 'Brave.' }; },
    },
    {
      name: 'explode', description: 'Always fails.', input: z.object({}).strict(),
      handler: async () => { executed.push({ name: 'explode', input: {} }); throw new Error('the library is on fire'); },
    },
    {
      name: 'wait', description: 'Answers when its signal aborts.', input: z.object({}).strict(),
      handler: (_input, { signal }) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true })),
    },
  ];
  const registry = createToolRegistry(definitions);
  return { executed, registry, bound: bindTools(registry, { id: 'c1', owner: 'o' }) };
}

let server: Server | undefined;
afterEach(async () => { await server?.close(); server = undefined; });

describe.each(WIRES)('the tool loop through the $name planner', (wire) => {
  const start = async (steps: Step[]) => { server = await wire.start(steps); return server; };

  it('executes the tool calls in order, feeds each result back, then asks for directives without tools', async () => {
    const s = await start([
      { call: [{ name: 'find_cards', args: { query: 'Ar' } }] },
      { call: [{ name: 'card_details', args: { id: 'card-1' } }] },
      { answer: 'I found Aria.' },
      { answer: PERSONA },
    ]);
    const tools = testTools();
    const input: PlannerInput = { text: 'load my card Aria', ir: emptyConversation('c1'), tools: tools.bound };
    const output = await s.planner().plan(input, new AbortController().signal);
    expect(output.rawText).toBe(PERSONA);
    expect(tools.executed).toEqual([{ name: 'find_cards', input: { query: 'Ar' } }, { name: 'card_details', input: { id: 'card-1' } }]);
    expect(output.toolSteps!.map((t) => [t.index, t.round, t.name, t.ok])).toEqual([[0, 0, 'find_cards', true], [1, 1, 'card_details', true]]);
    expect(output.meta!['tool_loop']).toEqual({ tools: ['find_cards', 'card_details', 'explode', 'wait'], stopped: 'answered', requests: 3 });
    const bodies = s.bodies();
    expect(bodies).toHaveLength(4);
    // Three requests with tools and no response schema, then one with the schema and no tools.
    expect(bodies.map((b) => [b.tools !== undefined, wire.hasSchema(b)])).toEqual([[true, false], [true, false], [true, false], [false, true]]);
    if (wire.name === 'openai') {
      expect(bodies.slice(0, 3).map((b) => b.parallel_tool_calls)).toEqual([false, false, false]);
      expect(bodies[3]).not.toHaveProperty('parallel_tool_calls');
    }
    expect(bodies[0]!.tools).toEqual([
      expect.objectContaining({ type: 'function', function: expect.objectContaining({ name: 'find_cards', parameters: expect.objectContaining({ type: 'object' }) }) }),
      expect.anything(), expect.anything(), expect.anything(),
    ]);
    // Each request carries every result so far; the final one all of them.
    expect(wire.toolResults(bodies[1]!).map(([, r]) => r)).toEqual([[{ id: 'card-1', name: 'Aria' }]]);
    expect(wire.toolResults(bodies[3]!).map(([, r]) => r)).toEqual([[{ id: 'card-1', name: 'Aria' }], { id: 'card-1', personality: 'Brave.' }]);
  });

  it('enforces the step cap: past it, no more tools are offered and the final request is sent', async () => {
    const s = await start([
      { call: [{ name: 'find_cards', args: { query: 'a' } }] },
      { call: [{ name: 'find_cards', args: { query: 'b' } }] },
      { answer: PERSONA },
    ]);
    const tools = testTools();
    const output = await s.planner({ toolLoop: { maxSteps: 2 } }).plan({ text: 'x', ir: emptyConversation('c1'), tools: tools.bound }, new AbortController().signal);
    expect(tools.executed.map((e) => e.input)).toEqual([{ query: 'a' }, { query: 'b' }]);
    expect(output.meta!['tool_loop']).toMatchObject({ stopped: 'step_cap', requests: 2 });
    expect(s.bodies().map((b) => b.tools !== undefined)).toEqual([true, true, false]);
    expect(output.rawText).toBe(PERSONA);
  });

  it('enforces the time cap: a tool still running when the loop\'s time is up ends the loop; the final request still goes out', async () => {
    const s = await start([{ call: [{ name: 'wait', args: {} }] }, { answer: PERSONA }]);
    const tools = testTools();
    // Long enough for the first request's answer on a loaded machine (at 50 ms it once came after
    // the cap, so the loop stopped before any tool ran); the tool itself never answers.
    const output = await s.planner({ toolLoop: { timeoutMs: 1_000 } }).plan({ text: 'x', ir: emptyConversation('c1'), tools: tools.bound }, new AbortController().signal);
    expect(output.meta!['tool_loop']).toMatchObject({ stopped: 'time_cap', requests: 1 });
    expect(output.toolSteps!.map((t) => [t.name, t.ok, (t.result as { error: { code: string } }).error.code])).toEqual([['wait', false, 'TOOL_TIMEOUT']]);
    expect(s.bodies().map((b) => [b.tools !== undefined, wire.hasSchema(b)])).toEqual([[true, false], [false, true]]);
    expect(output.rawText).toBe(PERSONA);
  });

  it('a cancel during a tool call ends the turn with LLM_CANCELLED: the tool\'s signal aborts, no final request is sent', async () => {
    const s = await start([{ call: [{ name: 'wait', args: {} }] }, { answer: PERSONA }]);
    const tools = testTools();
    const controller = new AbortController();
    let toolSignal: AbortSignal | undefined;
    const bound = { ...tools.bound, call: (name: string, args: unknown, signal: AbortSignal) => { toolSignal = signal; return tools.bound.call(name, args, signal); } };
    const planning = s.planner().plan({ text: 'x', ir: emptyConversation('c1'), tools: bound }, controller.signal);
    await expect.poll(() => toolSignal).toBeDefined();
    controller.abort();
    await expect(planning).rejects.toMatchObject({ error: { code: 'LLM_CANCELLED' } });
    expect(toolSignal!.aborted).toBe(true);
    expect(s.bodies()).toHaveLength(1);
  });

  it('feeds a tool error back to the model as the tool\'s result: a throw, an unknown tool, arguments the schema refuses', async () => {
    const s = await start([
      { call: [{ name: 'explode', args: {} }] },
      { call: [{ name: 'delete_everything', args: {} }] },
      { call: [{ name: 'find_cards', args: { query: 42 } }] },
      { answer: 'done' },
      { answer: PERSONA },
    ]);
    const tools = testTools();
    const output = await s.planner().plan({ text: 'x', ir: emptyConversation('c1'), tools: tools.bound }, new AbortController().signal);
    expect(output.toolSteps!.map((t) => [t.name, t.ok, (t.result as { error?: { code: string } }).error?.code])).toEqual([
      ['explode', false, 'TOOL_FAILED'], ['delete_everything', false, 'TOOL_UNKNOWN'], ['find_cards', false, 'TOOL_INPUT_INVALID'],
    ]);
    const fedBack = wire.toolResults(s.bodies()[3]!).map(([, r]) => r as { error: { code: string; detail: string } });
    expect(fedBack.map((r) => r.error.code)).toEqual(['TOOL_FAILED', 'TOOL_UNKNOWN', 'TOOL_INPUT_INVALID']);
    expect(fedBack[0]!.error.detail).toContain('the library is on fire');
    expect(tools.executed.map((e) => e.name)).toEqual(['explode']);
  });

  it('without tool support in the capability table, sends no tools and says so', async () => {
    const s = await start([{ answer: PERSONA }]);
    const tools = testTools();
    const caps = { ...capabilitiesFor(wire.name === 'ollama' ? 'ollama' : 'openai-compatible', 'tiny'), tools: false };
    const output = await s.planner({ capabilities: caps }).plan({ text: 'x', ir: emptyConversation('c1'), tools: tools.bound }, new AbortController().signal);
    expect(s.bodies()).toHaveLength(1);
    expect(s.bodies()[0]).not.toHaveProperty('tools');
    expect(output.meta!['tool_loop']).toEqual({ tools: ['find_cards', 'card_details', 'explode', 'wait'], skipped: 'the model does not support tools (capability table)', requests: 0 });
  });

  it('in a conversation turn: the final directives are applied, the trace shows every step (hybrid), a repair shows the exchange again without running tools', async () => {
    const s = await start([
      { call: [{ name: 'find_cards', args: { query: 'Aria' } }] },
      { answer: 'ok' },
      { answer: '{"directives":[{"type":"ui.show_form","payload":{"template":"nope"}}]}' },
      { answer: PERSONA },
    ]);
    const tools = testTools();
    const demo = createDemoApp();
    const app = { ...demo, tools: tools.registry };
    const entropy = createSeededSource('tools');
    const service = createConversationService({
      app, planner: s.planner(), store: createMemoryStore(), entropy, limits: { maxRepairAttempts: 1 },
      ingress: createIngress({ actions: app.actions, decodeSurfaceId: decodeA2uiSurfaceId, source: entropy }),
    });
    const c = await service.create('owner');
    const turn = await service.runTurn(c.id, 'load my card Aria');
    if (!turn.ok) throw new Error(turn.error.message);
    expect(turn.outcome).toBe('applied');
    expect(findSurface(turn.next, 'main')!.data.draft).toMatchObject({ display_name: 'Aria' });
    const trace = TraceSchema.parse(turn.trace);
    expect(trace.run_mode).toBe('hybrid');
    expect(trace.tool_loop).toMatchObject({ stopped: 'answered', requests: 2, steps: [{ index: 0, name: 'find_cards', ok: true, arguments: '{"query":"Aria"}' }] });
    expect(trace.attempts!.map((a) => a.status)).toEqual(['failed', 'passed']);
    expect(tools.executed).toHaveLength(1);
    const bodies = s.bodies();
    // The repair call: no tools, the schema, and the tool exchange shown again.
    expect(bodies[3]!.tools).toBeUndefined();
    expect(wire.hasSchema(bodies[3]!)).toBe(true);
    expect(wire.toolResults(bodies[3]!).map(([, r]) => r)).toEqual([[{ id: 'card-1', name: 'Aria' }]]);
  });
});

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ call: fc.array(fc.record({ name: fc.constantFrom('find_cards', 'card_details', 'explode', 'nope'), args: fc.constant({ query: 'x' }) }), { minLength: 1, maxLength: 2 }) }),
  fc.constant({ answer: 'thinking' }),
);

describe.each(WIRES)('every request of the tool loop through the $name planner (property)', (wire) => {
  it('never combines tools with a response schema, always sends parallel_tool_calls: false with tools, stops at the step cap, ends with the schema', async () => {
    await fc.assert(fc.asyncProperty(fc.array(stepArb, { minLength: 0, maxLength: 5 }), fc.integer({ min: 0, max: 4 }), async (script, maxSteps) => {
      const s = await wire.start([...script, { answer: PERSONA }]);
      try {
        const tools = testTools();
        const output = await s.planner({ toolLoop: { maxSteps } }).plan({ text: 'x', ir: emptyConversation('c1'), tools: tools.bound }, new AbortController().signal);
        const bodies = s.bodies();
        for (const body of bodies) {
          expect(body.tools !== undefined && wire.hasSchema(body)).toBe(false);
          if (wire.name === 'openai') expect(body.parallel_tool_calls).toBe(body.tools === undefined ? undefined : false);
        }
        const withTools = bodies.filter((b) => b.tools !== undefined).length;
        expect(withTools).toBeLessThanOrEqual(maxSteps);
        expect(bodies.at(-1)!.tools).toBeUndefined();
        expect(wire.hasSchema(bodies.at(-1)!)).toBe(true);
        // Every call the model made within the cap was executed, in order, and its result sent back.
        const asked = script.slice(0, withTools).flatMap((step) => ('call' in step ? step.call.map((c) => c.name) : []));
        expect((output.toolSteps ?? []).map((t) => t.name)).toEqual(asked.slice(0, (output.toolSteps ?? []).length));
        expect(wire.toolResults(bodies.at(-1)!)).toHaveLength(output.toolSteps?.length ?? 0);
      } finally {
        await s.close();
      }
    }), { numRuns: 30 });
  }, 60_000);
});
