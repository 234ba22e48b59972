import type { ChatRequest, Tool } from 'ollama';
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import type { LlmRequestSpec } from './request.ts';

/**
 * The one place a checked, sanitised LlmRequestSpec becomes a provider's wire request. Tools
 * (issue 15) are added here and nowhere else; the preflight has already refused tools together
 * with a response format and insists on `parallelToolCalls: false` whenever tools are present.
 */

/** The json_schema name OpenAI-compatible servers receive. */
export const RESPONSE_SCHEMA_NAME = 'directive_envelope';

export function toOllamaChatRequest(spec: LlmRequestSpec): ChatRequest & { stream: false } {
  return {
    model: spec.model,
    messages: spec.messages,
    stream: false,
    ...(spec.format ? { format: spec.format } : {}),
    ...(spec.options ? { options: spec.options } : {}),
    ...(spec.tools ? { tools: spec.tools as unknown as Tool[] } : {}),
    ...(spec.think !== undefined ? { think: spec.think } : {}),
  };
}

/**
 * Sampling options are top-level keys in the OpenAI API; `format` is the strict-mode schema
 * (toStrictJsonSchema), sent as `response_format: {type: "json_schema", json_schema: {name, strict, schema}}`.
 */
export function toOpenAiChatRequest(spec: LlmRequestSpec): ChatCompletionCreateParamsNonStreaming {
  // Sampling first: the keys the planner owns are written after them and always win.
  const request: Record<string, unknown> = { ...spec.options, model: spec.model, messages: spec.messages, stream: false };
  if (spec.format) {
    request.response_format = { type: 'json_schema', json_schema: { name: RESPONSE_SCHEMA_NAME, strict: true, schema: spec.format } };
  }
  if (spec.tools) {
    request.tools = spec.tools;
    request.parallel_tool_calls = spec.parallelToolCalls;
  }
  return request as unknown as ChatCompletionCreateParamsNonStreaming;
}
