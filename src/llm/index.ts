export {
  BUILTIN_CAPABILITIES, CapabilityTable, capabilitiesFor, DEFAULT_OLLAMA_CAPABILITIES, LlmProvider, ModelCapabilities, parseCapabilityTable,
  StreamSetting, streamFinalRequest,
} from './capabilities.ts';
export { buildChatMessages, describeStateForModel, readRepairPrompt, renderRepairPrompt, REPAIR_PROMPT_URL, toolExchangeMessages } from './chat-messages.ts';
export { createChatPlanner } from './chat-planner.ts';
export type { ChatPlannerOptions, ChatProvider, ProviderReply } from './chat-planner.ts';
export { plannerConfigFromEnv, PlannerConfig, PlannerKind } from './config.ts';
export { createFallbackPlanner } from './fallback-planner.ts';
export { classifyFailure } from './failure.ts';
export type { ObservedResponse, ProviderFailure } from './failure.ts';
export { createOllamaPlanner } from './ollama-planner.ts';
export type { OllamaPlannerOptions } from './ollama-planner.ts';
export { createOpenAiPlanner, OPENAI_BASE_URL, openAiProviderFor } from './openai-planner.ts';
export type { OpenAiPlannerOptions } from './openai-planner.ts';
export { PlannerError } from './planner-error.ts';
export { createConfiguredPlanner } from './planner-factory.ts';
export type { PlannerDeps } from './planner-factory.ts';
export { createReplayPlanner, parseReplayFile, ReplayRecord } from './replay-planner.ts';
export type { ReplayEntry, ReplayMatch } from './replay-planner.ts';
export { RESPONSE_SCHEMA_NAME, toOllamaChatRequest, toOpenAiChatRequest } from './provider-request.ts';
export { LlmMessage, LlmRequestSpec, LlmToolCall, preflightLlmRequest, sanitizeLlmRequest } from './request.ts';
export type { StreamAllowance } from './request.ts';
export { DEFAULT_TOOL_LOOP, runToolLoop } from './tool-loop.ts';
export type { ToolLoopLimits, ToolLoopResult, ToolLoopSummary } from './tool-loop.ts';
export { abortableSleep, DEFAULT_RETRY_POLICY, parseRetryAfter, retryDelay } from './retry.ts';
export type { RetryPolicy } from './retry.ts';
export { fromStrictValue, toStrictJsonSchema, toStrictValue } from './strict-schema.ts';
export type { StrictSchema } from './strict-schema.ts';
