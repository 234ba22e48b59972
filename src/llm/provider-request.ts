import type { ChatRequest, Message, Tool } from 'ollama';
import type { ChatCompletionCreateParamsNonStreaming, ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import type { LlmMessage, LlmRequestSpec } from './request.ts';

/**
 * The one place a checked, sanitised LlmRequestSpec becomes a provider's wire request. Tools
 * are added here and nowhere else; the preflight has already refused tools together with a
 * response format and insists on `parallelToolCalls: false` whenever tools are present.
 * Tools are `{type: "function", function: {name, description, parameters}}` for both providers.
 */

/** Ollama: tool calls carry their arguments as an object; a tool message names its tool. */
function toOllamaMessage(m: LlmMessage): Message {
  const message: Message = { role: m.role, content: m.content };
  if (m.toolCalls) {
    message.tool_calls = m.toolCalls.map((c) => ({ function: { name: c.name, arguments: isObject(c.arguments) ? c.arguments : {} } }));
  }
  if (m.toolName !== undefined) message.tool_name = m.toolName;
  return message;
}

/** OpenAI: tool calls carry ids and JSON-text arguments; a tool message answers a call id. */
function toOpenAiMessage(m: LlmMessage): Record<string, unknown> {
  if (m.role === 'tool') return { role: 'tool', tool_call_id: m.toolCallId ?? '', content: m.content };
  if (m.role === 'assistant' && m.toolCalls) {
    return {
      role: 'assistant', content: m.content === '' ? null : m.content,
      tool_calls: m.toolCalls.map((c) => ({
        id: c.id ?? '', type: 'function',
        function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments ?? {}) },
      })),
    };
  }
  return { role: m.role, content: m.content };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The json_schema name OpenAI-compatible servers receive. */
export const RESPONSE_SCHEMA_NAME = 'directive_envelope';

export function toOllamaChatRequest(spec: LlmRequestSpec): ChatRequest & { stream: false } {
  return { ...toOllamaStreamableRequest(spec), stream: false };
}

/** The same request with `stream` as the spec says (NDJSON parts when true). */
export function toOllamaStreamableRequest(spec: LlmRequestSpec): ChatRequest {
  return {
    model: spec.model,
    messages: spec.messages.map(toOllamaMessage),
    stream: spec.stream,
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
  const request: Record<string, unknown> = { ...spec.options, model: spec.model, messages: spec.messages.map(toOpenAiMessage), stream: false };
  if (spec.format) {
    request.response_format = { type: 'json_schema', json_schema: { name: RESPONSE_SCHEMA_NAME, strict: true, schema: spec.format } };
  }
  if (spec.tools) {
    request.tools = spec.tools;
    request.parallel_tool_calls = spec.parallelToolCalls;
  }
  return request as unknown as ChatCompletionCreateParamsNonStreaming;
}

/** Streamed (SSE chunks), asking for the usage chunk at the end as the API documents it. */
export function toOpenAiStreamingRequest(spec: LlmRequestSpec): ChatCompletionCreateParamsStreaming {
  return { ...toOpenAiChatRequest(spec), stream: true, stream_options: { include_usage: true } } as unknown as ChatCompletionCreateParamsStreaming;
}
