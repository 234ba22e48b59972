import OpenAI from 'openai';
import { makeError } from '../errors/index.ts';
import type { Planner } from '../planner/types.ts';
import { capabilitiesFor, type LlmProvider, type ModelCapabilities } from './capabilities.ts';
import { createChatPlanner, type ChatPlannerOptions, type ChatProvider, type ProviderReply } from './chat-planner.ts';
import { PlannerError } from './planner-error.ts';
import { toOpenAiChatRequest, toOpenAiStreamingRequest } from './provider-request.ts';
import type { LlmToolCall } from './request.ts';
import { fromStrictValue, toStrictJsonSchema } from './strict-schema.ts';

export interface OpenAiPlannerOptions extends Omit<ChatPlannerOptions, 'capabilities' | 'format'> {
  baseURL: string;
  apiKey: string;
  /** `openai` for api.openai.com, `openai-compatible` for anything else (capability table key). */
  provider?: LlmProvider;
  /** JSON Schema of the directive envelope as zod generates it; the strict-mode variant is derived here. */
  envelopeSchema: Record<string, unknown>;
  capabilities?: ModelCapabilities;
}

export const OPENAI_BASE_URL = 'https://api.openai.com/v1';

export function openAiProviderFor(baseURL: string): LlmProvider {
  try {
    return new URL(baseURL).hostname === 'api.openai.com' ? 'openai' : 'openai-compatible';
  } catch {
    return 'openai-compatible';
  }
}

/**
 * Any OpenAI-compatible chat completions API through the official `openai` client: strict
 * `json_schema` structured output, non-streamed. The client's own retries are off
 * (`maxRetries: 0`): the shared chat planner retries, once, for every provider.
 */
export function createOpenAiPlanner(options: OpenAiPlannerOptions): Planner {
  const capabilityKey = options.provider ?? openAiProviderFor(options.baseURL);
  const strict = toStrictJsonSchema(options.envelopeSchema);
  const provider: ChatProvider = {
    name: 'openai',
    capabilityKey,
    endpoint: options.baseURL,
    async send(spec, fetch, signal) {
      // The client's timeout is a backstop only: the planner's own signal ends the call first.
      const client = new OpenAI({
        apiKey: options.apiKey, baseURL: options.baseURL, fetch, maxRetries: 0, timeout: (options.timeoutMs ?? 60_000) + 5_000,
      });
      const completion = await client.chat.completions.create(toOpenAiChatRequest(spec), { signal });
      return readCompletion(completion, spec.format === undefined ? undefined : options.envelopeSchema);
    },
    async stream(spec, fetch, signal, onText) {
      const client = new OpenAI({
        apiKey: options.apiKey, baseURL: options.baseURL, fetch, maxRetries: 0, timeout: (options.timeoutMs ?? 60_000) + 5_000,
      });
      // The client throws an APIError on an SSE `error` frame; a stream that stops without a
      // finish_reason is cut off.
      const chunks = await client.chat.completions.create(toOpenAiStreamingRequest(spec), { signal });
      let content = '';
      let refusal = '';
      let finish: string | undefined;
      let id: string | undefined;
      let model: string | undefined;
      let usage: ProviderReply['usage'];
      for await (const chunk of chunks) {
        id ??= chunk.id;
        if (typeof chunk.model === 'string' && chunk.model !== '') model ??= chunk.model;
        const choice = chunk.choices?.[0];
        const delta = choice?.delta;
        if (typeof delta?.content === 'string' && delta.content !== '') { content += delta.content; onText(delta.content); }
        if (typeof delta?.refusal === 'string') refusal += delta.refusal;
        if (choice?.finish_reason) finish = choice.finish_reason;
        if (chunk.usage) {
          usage = { prompt_tokens: chunk.usage.prompt_tokens ?? 0, completion_tokens: chunk.usage.completion_tokens ?? 0, total_tokens: chunk.usage.total_tokens ?? 0 };
        }
      }
      if (refusal !== '' && content === '') throw new PlannerError(makeError('LLM_RESPONSE_REFUSED', refusal.slice(0, 500)));
      // The client ends the iteration quietly when the request is aborted: a cancel or timeout is not a cut.
      signal.throwIfAborted();
      if (finish === undefined) throw new PlannerError(makeError('LLM_RESPONSE_INVALID', 'the stream was cut off: it ended without a finish_reason'));
      const reply: ProviderReply = { content, finishReason: finish, meta: { response_id: id } };
      if (usage) reply.usage = usage;
      if (model !== undefined) reply.responseModel = model;
      const mapped = spec.format === undefined ? undefined : mapStrictNulls(content, options.envelopeSchema);
      if (mapped !== undefined) {
        reply.modelText = content;
        reply.content = mapped;
      }
      return reply;
    },
    mapText: (text) => mapStrictNulls(text, options.envelopeSchema) ?? text,
  };
  return createChatPlanner(provider, {
    ...options,
    format: strict.schema,
    capabilities: options.capabilities ?? capabilitiesFor(capabilityKey, options.model),
    label: options.label ?? `${capabilityKey} · ${options.model}`,
  });
}

function readCompletion(completion: OpenAI.Chat.ChatCompletion, envelopeSchema: Record<string, unknown> | undefined): ProviderReply {
  const choice = completion?.choices?.[0];
  const message = choice?.message;
  if (message === undefined || message === null) {
    throw new PlannerError(makeError('LLM_RESPONSE_INVALID', 'reply has no choices[0].message'));
  }
  if (typeof message.refusal === 'string' && message.refusal !== '') {
    throw new PlannerError(makeError('LLM_RESPONSE_REFUSED', message.refusal.slice(0, 500)));
  }
  let content = message.content;
  // A model that calls tools instead of answering: the directive parser reads OpenAI tool calls.
  if ((content === null || content === undefined || content === '') && (message.tool_calls?.length ?? 0) > 0) {
    content = JSON.stringify({ tool_calls: message.tool_calls });
  }
  if (typeof content !== 'string') throw new PlannerError(makeError('LLM_RESPONSE_INVALID', 'reply has no message.content string'));
  const reply: ProviderReply = { content, meta: { response_id: completion.id } };
  if (typeof completion.model === 'string' && completion.model !== '') reply.responseModel = completion.model;
  const toolCalls = readToolCalls(message.tool_calls);
  if (toolCalls.length > 0) reply.toolCalls = toolCalls;
  if (choice?.finish_reason) reply.finishReason = choice.finish_reason;
  const usage = completion.usage;
  if (usage) {
    reply.usage = { prompt_tokens: usage.prompt_tokens ?? 0, completion_tokens: usage.completion_tokens ?? 0, total_tokens: usage.total_tokens ?? 0 };
  }
  const mapped = envelopeSchema === undefined ? undefined : mapStrictNulls(content, envelopeSchema);
  if (mapped !== undefined) {
    reply.modelText = content;
    reply.content = mapped;
  }
  return reply;
}

/** Strict-mode answers write absent fields as null (and maps as entries): map them back before validation. */
function mapStrictNulls(content: string, envelopeSchema: Record<string, unknown>): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch {
    return undefined; // not plain JSON: the parser's own repairs take it from here
  }
  const back = JSON.stringify(fromStrictValue(value, envelopeSchema));
  return back === JSON.stringify(value) ? undefined : back;
}

/**
 * Function tool calls as the tool loop reads them: their JSON-text arguments parsed (text that
 * is not JSON is kept as it is: the tool's schema refuses it and the model is told why). A call
 * without an id (some compatible servers) gets one, so its result can answer it.
 */
function readToolCalls(calls: OpenAI.Chat.ChatCompletionMessageToolCall[] | undefined): LlmToolCall[] {
  return (calls ?? []).flatMap((call, i) => {
    if (call?.type !== 'function' || typeof call.function?.name !== 'string') return [];
    let args: unknown = call.function.arguments;
    try {
      args = JSON.parse(call.function.arguments);
    } catch { /* kept as text */ }
    return [{ id: typeof call.id === 'string' && call.id !== '' ? call.id : `call_${i}`, name: call.function.name, arguments: args }];
  });
}
