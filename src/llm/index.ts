export { plannerConfigFromEnv, PlannerConfig } from './config.ts';
export { createFallbackPlanner } from './fallback-planner.ts';
export { createOllamaPlanner, describeStateForModel, PlannerError } from './ollama-planner.ts';
export type { OllamaPlannerOptions } from './ollama-planner.ts';
export {
  DEFAULT_OLLAMA_CAPABILITIES, LlmRequestSpec, ModelCapabilities, preflightLlmRequest, sanitizeLlmRequest,
} from './request.ts';
export { fromStrictValue, toStrictJsonSchema, toStrictValue } from './strict-schema.ts';
export type { StrictSchema } from './strict-schema.ts';
