import { z } from 'zod';

/** Planner configuration from flags and environment. ollama-js ignores OLLAMA_HOST, so we read it. */
export const PlannerConfig = z.object({
  planner: z.enum(['offline', 'ollama']),
  ollamaHost: z.string().url(),
  ollamaModel: z.string().min(1),
  timeoutMs: z.number().int().positive(),
  strict: z.boolean(),
});
export type PlannerConfig = z.infer<typeof PlannerConfig>;

export function plannerConfigFromEnv(env: NodeJS.ProcessEnv, flag?: string): PlannerConfig {
  const host = env.OLLAMA_HOST ?? 'http://127.0.0.1:11434';
  return PlannerConfig.parse({
    planner: flag ?? env.SURFACER_PLANNER ?? (env.SURFACER_OLLAMA_MODEL ? 'ollama' : 'offline'),
    ollamaHost: /^https?:\/\//.test(host) ? host : `http://${host}`,
    ollamaModel: env.SURFACER_OLLAMA_MODEL ?? 'llama3.2',
    timeoutMs: Number(env.SURFACER_LLM_TIMEOUT_MS ?? 60_000),
    strict: env.SURFACER_STRICT === '1' || env.NODE_ENV === 'development' || env.NODE_ENV === 'test',
  });
}
