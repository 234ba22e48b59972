import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { bindTools, createToolRegistry, type ToolDefinition } from '../../src/tools/index.ts';

/** The registry (names, zod inputs → JSON Schemas) and a conversation's binding, as the tool loop calls it. */
const echo: ToolDefinition<{ query: string; limit?: number | undefined }> = {
  name: 'echo',
  description: 'Answers with what it was given.',
  input: z.object({ query: z.string().max(20).describe('what to look for'), limit: z.number().int().min(1).optional() }).strict(),
  handler: async (input, { conversation }) => ({ input, owner: conversation.owner }),
};

function tool(name: string, handler: ToolDefinition['handler'], timeoutMs?: number): ToolDefinition {
  return { name, description: name, input: z.object({}).strict(), handler, ...(timeoutMs === undefined ? {} : { timeoutMs }) };
}

const live = (): AbortSignal => new AbortController().signal;
const codeOf = (outcome: { result: unknown }): string | undefined => (outcome.result as { error?: { code: string } }).error?.code;

describe('the tool registry', () => {
  it('generates each tool\'s parameters from its zod input (no $schema URI), once', () => {
    const registry = createToolRegistry([echo]);
    expect(registry.schemas).toEqual([{
      name: 'echo', description: 'Answers with what it was given.',
      parameters: {
        type: 'object', additionalProperties: false, required: ['query'],
        properties: { query: { type: 'string', maxLength: 20, description: 'what to look for' }, limit: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER } },
      },
    }]);
    expect(registry.resolve('echo')).toBe(echo);
    expect(registry.resolve('toString')).toBeUndefined();
  });

  it('refuses a name a provider would refuse, and a name registered twice', () => {
    expect(() => createToolRegistry([{ ...echo, name: 'find cards' }])).toThrow(/must match/);
    expect(() => createToolRegistry([{ ...echo, name: 'x'.repeat(65) }])).toThrow(/must match/);
    expect(() => createToolRegistry([echo, echo])).toThrow(/registered twice/);
  });
});

describe('tools bound to a conversation', () => {
  it('runs a call with its parsed input and the conversation it belongs to', async () => {
    const bound = bindTools(createToolRegistry([echo]), { id: 'c1', owner: 'owner-1' });
    expect(await bound.call('echo', { query: 'Aria' }, live())).toEqual({ ok: true, result: { input: { query: 'Aria' }, owner: 'owner-1' } });
  });

  it('answers every failure as an error result the model is given, never a throw', async () => {
    let ran = 0;
    const registry = createToolRegistry([
      echo,
      tool('explode', async () => { ran += 1; throw new Error('disk on fire'); }),
      tool('slow', (_input, { signal }) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true })), 20),
      tool('ignores_signal', () => new Promise(() => {}), 20),
      tool('bigint', async () => ({ n: 1n })),
      tool('huge', async () => 'x'.repeat(20_000)),
      tool('nothing', async () => undefined),
    ]);
    const bound = bindTools(registry, { id: 'c1', owner: undefined });
    expect(codeOf(await bound.call('nope', {}, live()))).toBe('TOOL_UNKNOWN');
    const invalid = await bound.call('echo', { query: 42 }, live());
    expect(invalid.ok).toBe(false);
    expect(invalid.result).toEqual({ error: { code: 'TOOL_INPUT_INVALID', detail: expect.stringMatching(/^query: /) } });
    const thrown = await bound.call('explode', {}, live());
    expect(thrown.result).toEqual({ error: { code: 'TOOL_FAILED', detail: 'explode: disk on fire' } });
    expect(ran).toBe(1);
    expect(codeOf(await bound.call('slow', {}, live()))).toBe('TOOL_TIMEOUT');
    expect(codeOf(await bound.call('ignores_signal', {}, live()))).toBe('TOOL_TIMEOUT');
    expect(codeOf(await bound.call('bigint', {}, live()))).toBe('TOOL_FAILED');
    expect(codeOf(await bound.call('huge', {}, live()))).toBe('TOOL_FAILED');
    expect(await bound.call('nothing', {}, live())).toEqual({ ok: true, result: null });
  });

  it('throws only when the turn itself is cancelled', async () => {
    const controller = new AbortController();
    const bound = bindTools(createToolRegistry([tool('wait', (_input, { signal }) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true })))]), { id: 'c1', owner: 'o' });
    const running = bound.call('wait', {}, controller.signal);
    controller.abort(new Error('stopped by the user'));
    await expect(running).rejects.toThrow('stopped by the user');
  });

  it('property: any name and any arguments come back as ok with a JSON result or as an error result; the handler sees only input its schema took', async () => {
    const seen: unknown[] = [];
    const registry = createToolRegistry([{ ...echo, handler: async (input, context) => { seen.push(input); return echo.handler(input, context); } }]);
    const bound = bindTools(registry, { id: 'c1', owner: 'o' });
    // Near misses of the schema (too long, wrong types, extra keys) as well as anything at all.
    const argsArb = fc.oneof(
      fc.anything(),
      fc.record({ query: fc.oneof(fc.string({ maxLength: 25 }), fc.integer()), limit: fc.oneof(fc.integer({ min: -2, max: 5 }), fc.double()) }, { requiredKeys: [] }),
      fc.record({ query: fc.string({ maxLength: 20 }), extra: fc.string() }, { requiredKeys: ['query'] }),
    );
    let oks = 0;
    await fc.assert(fc.asyncProperty(fc.constantFrom('echo', 'Echo', 'nope', '__proto__', 'constructor'), argsArb, async (name, args) => {
      seen.length = 0;
      const outcome = await bound.call(name, args, live());
      expect(JSON.parse(JSON.stringify(outcome.result))).toEqual(outcome.result);
      if (outcome.ok) {
        oks += 1;
        expect(seen).toHaveLength(1);
        expect(echo.input.safeParse(seen[0]).success).toBe(true);
      } else {
        expect(seen).toHaveLength(0);
        expect(['TOOL_UNKNOWN', 'TOOL_INPUT_INVALID']).toContain(codeOf(outcome));
      }
    }), { numRuns: 300 });
    expect(oks).toBeGreaterThan(0);
  });
});
