import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_OLLAMA_CAPABILITIES, preflightLlmRequest, sanitizeLlmRequest, type LlmRequestSpec,
} from '../../src/llm/index.ts';

const base: LlmRequestSpec = { model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: false };

describe('LLM request preflight', () => {
  it.each([
    [{ stream: true, tools: [{ type: 'function' }] }, 'LLM_STREAMING_WITH_TOOL_CALLING_FORBIDDEN'],
    [{ stream: true, format: { type: 'object' } }, 'LLM_STREAMING_WITH_RESPONSE_FORMAT_FORBIDDEN'],
    [{ format: { type: 'object' }, tools: [{ type: 'function' }], parallelToolCalls: true }, 'LLM_STRUCTURED_OUTPUTS_PARALLEL_TOOL_CALLS_FORBIDDEN'],
    [{ format: { type: 'object' }, tools: [{ type: 'function' }] }, 'LLM_TOOLS_WITH_RESPONSE_FORMAT_FORBIDDEN'],
    [{ tools: [{ type: 'function' }] }, 'LLM_PARALLEL_TOOL_CALLS_NOT_DISABLED'],
    [{ tools: [{ type: 'function' }], parallelToolCalls: true }, 'LLM_PARALLEL_TOOL_CALLS_NOT_DISABLED'],
  ])('rejects %j with %s', (extra, code) => {
    expect(preflightLlmRequest({ ...base, ...extra }).map((e) => e.code)).toContain(code);
  });

  it('accepts a non-streamed structured-output request, and tools with parallelToolCalls: false', () => {
    expect(preflightLlmRequest({ ...base, format: { type: 'object' } })).toEqual([]);
    expect(preflightLlmRequest({ ...base, tools: [{ type: 'function' }], parallelToolCalls: false })).toEqual([]);
  });
});

describe('LLM request sanitizer', () => {
  it('drops what the model cannot do and records it', () => {
    const caps = { ...DEFAULT_OLLAMA_CAPABILITIES, structuredOutput: false, think: false };
    const out = sanitizeLlmRequest({ ...base, format: { type: 'object' }, think: true, options: { temperature: 1, bogus: 2 } }, caps, false);
    expect(out.dropped).toEqual(['/format', '/think', '/options/bogus']);
    expect(out.spec.format).toBeUndefined();
    expect(out.spec.options).toEqual({ temperature: 1 });
    expect(out.errors).toEqual([]);
  });

  test.prop([fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), fc.integer())])(
    'never lets an unsupported option through (best-effort) and refuses every one (strict)',
    (options) => {
      const loose = sanitizeLlmRequest({ ...base, options }, DEFAULT_OLLAMA_CAPABILITIES, false);
      for (const key of Object.keys(loose.spec.options ?? {})) expect(DEFAULT_OLLAMA_CAPABILITIES.options).toContain(key);
      const strict = sanitizeLlmRequest({ ...base, options }, DEFAULT_OLLAMA_CAPABILITIES, true);
      const unsupported = Object.keys(options).filter((k) => !DEFAULT_OLLAMA_CAPABILITIES.options.includes(k));
      expect(strict.errors).toHaveLength(unsupported.length);
    },
  );
});
