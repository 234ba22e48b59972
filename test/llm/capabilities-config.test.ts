import { describe, expect, it } from 'vitest';
import {
  BUILTIN_CAPABILITIES, capabilitiesFor, classifyFailure, parseCapabilityTable, parseRetryAfter, plannerConfigFromEnv, PlannerError, retryDelay,
  DEFAULT_RETRY_POLICY,
} from '../../src/llm/index.ts';

describe('capability table', () => {
  it('has built-in defaults for ollama, openai and a generic OpenAI-compatible server', () => {
    expect(capabilitiesFor('ollama', 'llama3.2').options).toContain('num_ctx');
    expect(capabilitiesFor('openai', 'gpt-4o-mini').options).toContain('temperature');
    expect(capabilitiesFor('openai', 'o3-mini').options).not.toContain('temperature');
    expect(capabilitiesFor('openai-compatible', 'qwen3:8b').structuredOutput).toBe(true);
  });

  it('applies a file over the built-ins: provider entries, then matching model patterns in file order', () => {
    const parsed = parseCapabilityTable(JSON.stringify({
      'openai-compatible/llama*': { options: ['temperature'] },
      'openai-compatible': { structuredOutput: false },
      'openai-compatible/llama-3.1-8b': { tools: false },
    }), 'caps.json');
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(capabilitiesFor('openai-compatible', 'llama-3.1-8b', parsed.table)).toEqual({
      structuredOutput: false, tools: false, think: false, streamStructured: false, streamTools: false, options: ['temperature'],
    });
    expect(capabilitiesFor('openai-compatible', 'mistral', parsed.table).options).toEqual(BUILTIN_CAPABILITIES['openai-compatible']!.options);
  });

  it.each([
    ['not JSON', '{', /not JSON/],
    ['an unknown provider', '{"anthropic": {}}', /provider/],
    ['a misspelt key', '{"openai": {"structured_output": true}}', /structured_output|Unrecognized/],
    ['a wrong type', '{"ollama": {"tools": "yes"}}', /\/ollama\/tools/],
  ])('refuses a file with %s as LLM_CONFIG_INVALID', (_name, text, detail) => {
    const parsed = parseCapabilityTable(text, 'caps.json');
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.error.code).toBe('LLM_CONFIG_INVALID');
      expect(parsed.error.technical_detail).toMatch(detail);
    }
  });
});

describe('planner configuration', () => {
  it('reads the OpenAI-compatible settings', () => {
    const config = plannerConfigFromEnv({
      SURFACER_PLANNER: 'openai', OPENAI_BASE_URL: 'http://127.0.0.1:8000/v1', SURFACER_OPENAI_MODEL: 'qwen3',
      SURFACER_LLM_OPTIONS: '{"temperature": 0.1}', SURFACER_REPAIR_ATTEMPTS: '2', SURFACER_LLM_MAX_RETRIES: '0',
    });
    expect(config).toMatchObject({
      planner: 'openai', openaiBaseUrl: 'http://127.0.0.1:8000/v1', openaiModel: 'qwen3', openaiApiKey: 'not-needed',
      sampling: { temperature: 0.1 }, repairAttempts: 2, maxRetries: 0,
    });
  });

  it('defaults: offline, one repair, two retries; a model name alone picks its planner', () => {
    expect(plannerConfigFromEnv({})).toMatchObject({ planner: 'offline', repairAttempts: 1, maxRetries: 2 });
    expect(plannerConfigFromEnv({ SURFACER_OPENAI_MODEL: 'm', OPENAI_API_KEY: 'k' }).planner).toBe('openai');
  });

  it('asks for strict model requests only when SURFACER_STRICT says so, whatever NODE_ENV is (docs/configuration.md)', () => {
    for (const NODE_ENV of ['development', 'test', 'production', undefined]) {
      expect(plannerConfigFromEnv(NODE_ENV === undefined ? {} : { NODE_ENV }).strict, String(NODE_ENV)).toBe(false);
    }
    expect(plannerConfigFromEnv({ SURFACER_STRICT: '1', NODE_ENV: 'production' }).strict).toBe(true);
  });

  it.each([
    [{ SURFACER_PLANNER: 'openai' }, /OPENAI_API_KEY/],
    [{ SURFACER_PLANNER: 'openai', OPENAI_BASE_URL: 'http://localhost:1234/v1' }, /SURFACER_OPENAI_MODEL/],
    [{ SURFACER_PLANNER: 'replay' }, /SURFACER_REPLAY_FILE/],
    // Each problem names the variable the person set, and the value (issue 33).
    [{ SURFACER_REPAIR_ATTEMPTS: '4' }, /SURFACER_REPAIR_ATTEMPTS is "4"/],
    [{ SURFACER_STREAM: 'maybe' }, /SURFACER_STREAM is "maybe"/],
    [{ SURFACER_LLM_OPTIONS: '{nope' }, /SURFACER_LLM_OPTIONS/],
    // A sampling option must not set what the planner owns (e.g. stream past the preflight).
    [{ SURFACER_LLM_OPTIONS: '{"stream": true}' }, /may not set/],
    [{ SURFACER_LLM_OPTIONS: '{"parallel_tool_calls": true}' }, /may not set/],
    [{ SURFACER_PLANNER: 'gpt' }, /SURFACER_PLANNER is "gpt"/],
  ])('refuses %j with LLM_CONFIG_INVALID', (env, detail) => {
    try {
      plannerConfigFromEnv(env);
      throw new Error('expected a configuration error');
    } catch (error) {
      expect(error).toBeInstanceOf(PlannerError);
      expect((error as PlannerError).error.code).toBe('LLM_CONFIG_INVALID');
      expect((error as PlannerError).error.technical_detail).toMatch(detail);
    }
  });
});

describe('failure classification and retry policy', () => {
  const idle = () => ({ caller: new AbortController().signal, timeout: new AbortController().signal });

  it.each([
    [{ status: 429 }, 'LLM_RATE_LIMITED', true],
    [{ status: 502 }, 'LLM_HTTP_ERROR', true],
    [{ status: 400, message: 'Unsupported parameter: \'top_k\' is not supported with this model.' }, 'LLM_PARAMETER_UNSUPPORTED', false],
    [{ status: 422, message: 'Extra inputs are not permitted' }, 'LLM_PARAMETER_UNSUPPORTED', false],
    [{ status: 400, message: 'messages must not be empty' }, 'LLM_HTTP_ERROR', false],
    [{ status: 403, message: 'forbidden' }, 'LLM_AUTH_FAILED', false],
    [{ status: 404, message: 'The model `x` does not exist' }, 'LLM_MODEL_NOT_FOUND', false],
    [{ status_code: 503, message: 'loading' }, 'LLM_HTTP_ERROR', true],
    [Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNRESET' } }), 'LLM_UNAVAILABLE', true],
    [Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } }), 'LLM_UNAVAILABLE', false],
  ])('%j → %s (transient: %s)', (error, code, transient) => {
    const failure = classifyFailure(error, idle());
    expect([failure.error.code, failure.transient]).toEqual([code, transient]);
  });

  it('reads Retry-After as seconds, as an HTTP date, and retry-after-ms', () => {
    const now = Date.UTC(2026, 0, 1);
    expect(parseRetryAfter(new Headers({ 'retry-after': '3' }), now)).toBe(3000);
    expect(parseRetryAfter(new Headers({ 'retry-after': new Date(now + 5000).toUTCString() }), now)).toBe(5000);
    expect(parseRetryAfter(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }), now)).toBe(250);
    expect(parseRetryAfter(new Headers({}), now)).toBeUndefined();
  });

  it('backs off exponentially within bounds and never retries what is not transient', () => {
    const transient = { error: classifyFailure({ status: 500 }, idle()).error, transient: true };
    const delays = [0, 1, 2, 3, 4].map((retry) => retryDelay(transient, retry, { ...DEFAULT_RETRY_POLICY, maxRetries: 10 }, () => 1));
    expect(delays).toEqual([500, 1000, 2000, 4000, 8000]);
    expect(retryDelay(transient, 2, DEFAULT_RETRY_POLICY, () => 0)).toBeUndefined();
    expect(retryDelay({ ...transient, transient: false }, 0, DEFAULT_RETRY_POLICY, () => 0)).toBeUndefined();
  });
});
