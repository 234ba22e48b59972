import { z } from 'zod';
import { makeError } from '../errors/index.ts';
import { OPENAI_BASE_URL } from './openai-planner.ts';
import { PlannerError } from './planner-error.ts';
import { DEFAULT_TOOL_LOOP } from './tool-loop.ts';
import { StreamSetting } from './capabilities.ts';

export const PlannerKind = z.enum(['offline', 'ollama', 'openai', 'replay']);
export type PlannerKind = z.infer<typeof PlannerKind>;

/** Keys the planner sets itself: sampling options may never override them (the preflight checks what they say). */
const RESERVED_REQUEST_KEYS = ['model', 'messages', 'stream', 'format', 'response_format', 'tools', 'tool_choice', 'parallel_tool_calls', 'think'];
const Sampling = z.record(z.string(), z.union([z.number(), z.boolean(), z.array(z.string())]))
  .refine((options) => !Object.keys(options).some((key) => RESERVED_REQUEST_KEYS.includes(key)), {
    message: `sampling options may not set ${RESERVED_REQUEST_KEYS.join(', ')}`,
  });

/** Planner configuration from flags and environment. ollama-js ignores OLLAMA_HOST, so we read it. */
export const PlannerConfig = z.object({
  planner: PlannerKind,
  ollamaHost: z.string().url(),
  ollamaModel: z.string().min(1),
  openaiBaseUrl: z.string().url(),
  openaiApiKey: z.string().min(1).optional(),
  openaiModel: z.string().min(1).optional(),
  replayFile: z.string().min(1).optional(),
  replayMatch: z.enum(['order', 'text']).optional(),
  /** A JSON capability table (capabilities.ts) applied over the built-in one. */
  capabilitiesFile: z.string().min(1).optional(),
  /** Sampling/limit keys sent with every call (Ollama `options`, OpenAI top-level keys). */
  sampling: Sampling,
  timeoutMs: z.number().int().positive(),
  maxRetries: z.number().int().min(0).max(10),
  strict: z.boolean(),
  /** Repair follow-ups per turn after a failed answer (0–3). */
  repairAttempts: z.number().int().min(0).max(3),
  /** The tool loop of turns with the app's tools: requests with tools per turn, and its time. */
  toolMaxSteps: z.number().int().min(0).max(16),
  toolTimeoutMs: z.number().int().positive(),
  /** SURFACER_STREAM: stream the final directive request as the capability table says (auto), always (on), never (off). */
  stream: StreamSetting,
  /** SURFACER_OTEL_CAPTURE_CONTENT=1: spans of model and tool calls carry their text (docs/operate.md). */
  captureContent: z.boolean().optional(),
});
export type PlannerConfig = z.infer<typeof PlannerConfig>;

/** The variable (or flag) each planner setting is read from. */
function settingNames(plannerFlag: boolean): Partial<Record<keyof PlannerConfig, string>> {
  return {
    planner: plannerFlag ? '--planner' : 'SURFACER_PLANNER', ollamaHost: 'OLLAMA_HOST', ollamaModel: 'SURFACER_OLLAMA_MODEL',
    openaiBaseUrl: 'OPENAI_BASE_URL', openaiApiKey: 'OPENAI_API_KEY', openaiModel: 'SURFACER_OPENAI_MODEL', replayFile: 'SURFACER_REPLAY_FILE',
    replayMatch: 'SURFACER_REPLAY_MATCH', capabilitiesFile: 'SURFACER_LLM_CAPABILITIES', sampling: 'SURFACER_LLM_OPTIONS',
    timeoutMs: 'SURFACER_LLM_TIMEOUT_MS', maxRetries: 'SURFACER_LLM_MAX_RETRIES', repairAttempts: 'SURFACER_REPAIR_ATTEMPTS',
    toolMaxSteps: 'SURFACER_TOOL_MAX_STEPS', toolTimeoutMs: 'SURFACER_TOOL_TIMEOUT_MS', stream: 'SURFACER_STREAM',
  };
}

function jsonOr(text: string | undefined, name: string): unknown {
  if (text === undefined || text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new PlannerError(makeError('LLM_CONFIG_INVALID', `${name} is not JSON`));
  }
}

function numberOr(text: string | undefined, fallback: number): number {
  return text === undefined || text.trim() === '' ? fallback : Number(text);
}

/**
 * Reads the planner settings; a bad value is an LLM_CONFIG_INVALID PlannerError naming it. An
 * OpenAI-compatible server other than api.openai.com needs a model name; api.openai.com needs a key.
 */
export function plannerConfigFromEnv(env: NodeJS.ProcessEnv, flag?: string): PlannerConfig {
  const host = env.OLLAMA_HOST ?? 'http://127.0.0.1:11434';
  const baseUrl = env.OPENAI_BASE_URL ?? OPENAI_BASE_URL;
  const official = baseUrl.replace(/\/+$/, '') === OPENAI_BASE_URL;
  const planner = flag ?? env.SURFACER_PLANNER
    ?? (env.SURFACER_OLLAMA_MODEL ? 'ollama' : env.SURFACER_OPENAI_MODEL ? 'openai' : 'offline');
  const parsed = PlannerConfig.safeParse({
    planner,
    ollamaHost: /^https?:\/\//.test(host) ? host : `http://${host}`,
    ollamaModel: env.SURFACER_OLLAMA_MODEL ?? 'llama3.2',
    openaiBaseUrl: baseUrl,
    // Local servers (vLLM, llama.cpp, LM Studio) ignore the key, but the client insists on one.
    openaiApiKey: env.OPENAI_API_KEY ?? (official ? undefined : 'not-needed'),
    openaiModel: env.SURFACER_OPENAI_MODEL ?? (official ? 'gpt-4o-mini' : undefined),
    ...(env.SURFACER_REPLAY_FILE ? { replayFile: env.SURFACER_REPLAY_FILE } : {}),
    ...(env.SURFACER_REPLAY_MATCH ? { replayMatch: env.SURFACER_REPLAY_MATCH } : {}),
    ...(env.SURFACER_LLM_CAPABILITIES ? { capabilitiesFile: env.SURFACER_LLM_CAPABILITIES } : {}),
    sampling: jsonOr(env.SURFACER_LLM_OPTIONS, 'SURFACER_LLM_OPTIONS'),
    timeoutMs: numberOr(env.SURFACER_LLM_TIMEOUT_MS, 60_000),
    maxRetries: numberOr(env.SURFACER_LLM_MAX_RETRIES, 2),
    strict: env.SURFACER_STRICT === '1',
    repairAttempts: numberOr(env.SURFACER_REPAIR_ATTEMPTS, 1),
    toolMaxSteps: numberOr(env.SURFACER_TOOL_MAX_STEPS, DEFAULT_TOOL_LOOP.maxSteps),
    toolTimeoutMs: numberOr(env.SURFACER_TOOL_TIMEOUT_MS, DEFAULT_TOOL_LOOP.timeoutMs),
    stream: env.SURFACER_STREAM === undefined || env.SURFACER_STREAM.trim() === '' ? 'auto' : env.SURFACER_STREAM.trim(),
    ...(env.SURFACER_OTEL_CAPTURE_CONTENT === '1' ? { captureContent: true } : {}),
  });
  // Each problem names what the person set (the flag or the variable) and the value they set.
  const settings = settingNames(flag !== undefined);
  const problems = parsed.success ? [] : parsed.error.issues.map((i) => {
    const field = String(i.path[0] ?? '') as keyof PlannerConfig;
    const name = settings[field] ?? i.path.join('.');
    const raw = field === 'planner' ? planner : env[settings[field] ?? ''];
    return `${name}${raw === undefined ? '' : ` is "${raw}"`}: ${i.message}`;
  });
  if (parsed.success && parsed.data.planner === 'replay' && parsed.data.replayFile === undefined) problems.push('SURFACER_REPLAY_FILE is required');
  if (parsed.success && parsed.data.planner === 'openai') {
    if (parsed.data.openaiApiKey === undefined) problems.push('OPENAI_API_KEY is required for api.openai.com');
    if (parsed.data.openaiModel === undefined) problems.push('SURFACER_OPENAI_MODEL is required for an OpenAI-compatible server');
  }
  if (!parsed.success || problems.length > 0) {
    throw new PlannerError(makeError('LLM_CONFIG_INVALID', problems.join('; ')));
  }
  return parsed.data;
}
