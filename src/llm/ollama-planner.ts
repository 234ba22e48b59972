import { Ollama } from 'ollama';
import { makeError } from '../errors/index.ts';
import type { Planner } from '../planner/types.ts';
import { capabilitiesFor, type ModelCapabilities } from './capabilities.ts';
import { createChatPlanner, type ChatPlannerOptions, type ChatProvider } from './chat-planner.ts';
import { PlannerError } from './planner-error.ts';
import { toOllamaChatRequest, toOllamaStreamableRequest } from './provider-request.ts';

export interface OllamaPlannerOptions extends Omit<ChatPlannerOptions, 'capabilities' | 'format'> {
  host: string;
  /** JSON Schema of the directive envelope (z.toJSONSchema of the same zod schemas); Ollama takes it whole. */
  format: Record<string, unknown>;
  capabilities?: ModelCapabilities;
}

/**
 * Ollama through the official `ollama` client (`POST /api/chat`, `format` = the envelope schema);
 * the final request streams NDJSON parts when the planner is asked to (Ollama streams with `format`).
 */
export function createOllamaPlanner(options: OllamaPlannerOptions): Planner {
  const provider: ChatProvider = {
    name: 'ollama',
    capabilityKey: 'ollama',
    endpoint: options.host,
    async send(spec, fetch) {
      const client = new Ollama({ host: options.host, fetch });
      const response = await client.chat(toOllamaChatRequest(spec));
      const content = response?.message?.content;
      if (typeof content !== 'string') {
        throw new PlannerError(makeError('LLM_RESPONSE_INVALID', 'reply has no message.content string'));
      }
      const prompt = Number.isFinite(response.prompt_eval_count) ? response.prompt_eval_count : 0;
      const completion = Number.isFinite(response.eval_count) ? response.eval_count : 0;
      // Ollama sends tool calls without ids, their arguments as an object.
      const toolCalls = (Array.isArray(response.message.tool_calls) ? response.message.tool_calls : [])
        .filter((c) => typeof c?.function?.name === 'string')
        .map((c) => ({ name: c.function.name, arguments: c.function.arguments as unknown }));
      return {
        content,
        usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
        ...(typeof response.done_reason === 'string' ? { finishReason: response.done_reason } : {}),
        ...(toolCalls.length > 0 ? { toolCalls } : {}),
        ...(typeof response.model === 'string' && response.model !== '' ? { responseModel: response.model } : {}),
      };
    },
  };
  provider.stream = async (spec, fetch, signal, onText) => {
    const client = new Ollama({ host: options.host, fetch });
    // ollama-js throws on an `{"error"}` frame and on a stream that ends without `done`.
    const parts = await client.chat({ ...toOllamaStreamableRequest(spec), stream: true });
    let content = '';
    const toolCalls: Array<{ name: string; arguments: unknown }> = [];
    const cutOff = (error: unknown): never => {
      // ollama-js says a stream without its `done` part in a plain Error: the same cut-off as ours.
      if (!signal.aborted && error instanceof Error && /did not receive done/i.test(error.message)) {
        throw new PlannerError(makeError('LLM_RESPONSE_INVALID', 'the stream was cut off: it ended without done'));
      }
      throw error;
    };
    for await (const part of withCut(parts, cutOff)) {
      const delta = part?.message?.content;
      if (typeof delta === 'string' && delta !== '') { content += delta; onText(delta); }
      for (const c of Array.isArray(part?.message?.tool_calls) ? part.message.tool_calls : []) {
        if (typeof c?.function?.name === 'string') toolCalls.push({ name: c.function.name, arguments: c.function.arguments as unknown });
      }
      if (part.done) {
        const prompt = Number.isFinite(part.prompt_eval_count) ? part.prompt_eval_count : 0;
        const completion = Number.isFinite(part.eval_count) ? part.eval_count : 0;
        return {
          content, usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
          ...(typeof part.done_reason === 'string' ? { finishReason: part.done_reason } : {}),
          ...(toolCalls.length > 0 ? { toolCalls } : {}),
          ...(typeof part.model === 'string' && part.model !== '' ? { responseModel: part.model } : {}),
        };
      }
    }
    signal.throwIfAborted();
    throw new PlannerError(makeError('LLM_RESPONSE_INVALID', 'the stream was cut off: it ended without done'));
  };
  return createChatPlanner(provider, { ...options, capabilities: options.capabilities ?? capabilitiesFor('ollama', options.model) });
}

/** The parts of a stream, its failure passed through `onError` (which rethrows what it means). */
async function* withCut<T>(parts: AsyncIterable<T>, onError: (error: unknown) => never): AsyncGenerator<T> {
  try {
    for await (const part of parts) yield part;
  } catch (error) {
    onError(error);
  }
}
