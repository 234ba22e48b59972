import { z } from 'zod';
import { makeError, type SurfacerError } from '../errors/index.ts';

/**
 * Which request keys a provider/model accepts, as configuration. Built-in defaults cover
 * Ollama, OpenAI and a generic OpenAI-compatible server (vLLM, llama.cpp's server, LM Studio,
 * OpenRouter…); a JSON file named in SURFACER_LLM_CAPABILITIES overrides them. The request
 * sanitiser drops (best-effort) or refuses (strict) whatever a model does not accept.
 */
export const LlmProvider = z.enum(['ollama', 'openai', 'openai-compatible']);
export type LlmProvider = z.infer<typeof LlmProvider>;

export const ModelCapabilities = z.object({
  /** JSON Schema structured output (Ollama `format`, OpenAI `response_format: json_schema`). */
  structuredOutput: z.boolean(),
  tools: z.boolean(),
  /** Ollama's `think` switch for reasoning models. */
  think: z.boolean(),
  /**
   * The provider streams an answer constrained by structured output (Ollama `format`, OpenAI
   * strict `json_schema`). Not universal: an unknown OpenAI-compatible router may ignore the
   * schema or refuse the pair, so it defaults to off there (docs/streaming.md).
   */
  streamStructured: z.boolean(),
  /** The provider streams a request that carries tools (the tool loop never streams either way). */
  streamTools: z.boolean(),
  /** Sampling and limit keys passed through (Ollama `options.*`, OpenAI top-level keys). */
  options: z.array(z.string().min(1)),
}).strict();
export type ModelCapabilities = z.infer<typeof ModelCapabilities>;

const ENTRY_KEY = /^(ollama|openai|openai-compatible)(\/.+)?$/;

/**
 * The file format: keys are a provider (`"openai-compatible"`) or a provider and a model pattern
 * (`"openai/o3*"`, `*` matching any characters); values are partial capabilities. Entries apply
 * over the built-in defaults in file order, provider entries first, so later and more specific
 * entries win; `options` is replaced as a whole list.
 */
export const CapabilityTable = z.record(z.string().regex(ENTRY_KEY),
  ModelCapabilities.partial().strict());
export type CapabilityTable = z.infer<typeof CapabilityTable>;

const OPENAI_OPTIONS = ['temperature', 'top_p', 'seed', 'max_tokens', 'max_completion_tokens', 'stop', 'presence_penalty', 'frequency_penalty'];

export const BUILTIN_CAPABILITIES: CapabilityTable = {
  ollama: {
    structuredOutput: true, tools: true, think: false, streamStructured: true, streamTools: true,
    options: ['temperature', 'top_p', 'top_k', 'seed', 'num_predict', 'num_ctx', 'stop', 'repeat_penalty'],
  },
  openai: { structuredOutput: true, tools: true, think: false, streamStructured: true, streamTools: true, options: OPENAI_OPTIONS },
  // OpenAI's reasoning models refuse sampling keys ("Unsupported parameter: 'temperature'") and max_tokens.
  ...Object.fromEntries(['o1*', 'o3*', 'o4*', 'gpt-5*'].map((m) => [`openai/${m}`, { options: ['seed', 'max_completion_tokens', 'stop'] }])),
  'openai-compatible': {
    structuredOutput: true, tools: true, think: false, streamStructured: false, streamTools: false,
    options: ['temperature', 'top_p', 'seed', 'max_tokens', 'stop', 'presence_penalty', 'frequency_penalty'],
  },
};

function matches(pattern: string, model: string): boolean {
  const regex = new RegExp(`^${pattern.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
  return regex.test(model);
}

function apply(table: CapabilityTable, provider: LlmProvider, model: string, into: Partial<ModelCapabilities>): void {
  const entries = Object.entries(table);
  for (const [key, caps] of entries) if (key === provider) Object.assign(into, caps);
  for (const [key, caps] of entries) {
    const slash = key.indexOf('/');
    if (slash !== -1 && key.slice(0, slash) === provider && matches(key.slice(slash + 1), model)) Object.assign(into, caps);
  }
}

/** What `model` of `provider` accepts: built-ins, then the overrides. */
export function capabilitiesFor(provider: LlmProvider, model: string, overrides: CapabilityTable = {}): ModelCapabilities {
  const caps: Partial<ModelCapabilities> = {};
  apply(BUILTIN_CAPABILITIES, provider, model, caps);
  apply(overrides, provider, model, caps);
  return ModelCapabilities.parse(caps);
}

export const DEFAULT_OLLAMA_CAPABILITIES: ModelCapabilities = capabilitiesFor('ollama', '');

/** Reads a capability file's text; a bad file is a configuration error naming the first problem. */
export function parseCapabilityTable(text: string, source: string): { ok: true; table: CapabilityTable } | { ok: false; error: SurfacerError } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: makeError('LLM_CONFIG_INVALID', `${source}: not JSON (${(error as Error).message})`) };
  }
  const parsed = CapabilityTable.safeParse(json);
  if (parsed.success) return { ok: true, table: parsed.data };
  const first = parsed.error.issues[0];
  const where = first === undefined ? '' : `/${first.path.map(String).join('/')}`;
  const message = first?.code === 'invalid_key' ? 'a key is "<provider>" or "<provider>/<model pattern>" (providers: ollama, openai, openai-compatible)' : first?.message ?? 'invalid';
  return { ok: false, error: makeError('LLM_CONFIG_INVALID', `${source}${where}: ${message}`, { pointer: where }) };
}

/** SURFACER_STREAM: `auto` streams where the capability table allows it, `on` always, `off` never. */
export const StreamSetting = z.enum(['auto', 'on', 'off']);
export type StreamSetting = z.infer<typeof StreamSetting>;

/**
 * Whether the final directive request streams (tool-loop rounds never do). `on` overrides the
 * table on purpose: the operator knows their router streams with a schema.
 */
export function streamFinalRequest(setting: StreamSetting, caps: ModelCapabilities, withFormat: boolean): boolean {
  if (setting === 'off') return false;
  if (setting === 'on') return true;
  return withFormat ? caps.streamStructured : true;
}
