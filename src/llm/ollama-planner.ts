import { Ollama, type ChatResponse } from 'ollama';
import { makeError, type SurfacerError } from '../errors/index.ts';
import type { Planner, PlannerInput, PlannerOutput } from '../planner/types.ts';
import type { ConversationIr } from '../ui-ir/index.ts';
import {
  DEFAULT_OLLAMA_CAPABILITIES, preflightLlmRequest, sanitizeLlmRequest,
  type LlmRequestSpec, type ModelCapabilities,
} from './request.ts';

export interface OllamaPlannerOptions {
  host: string;
  model: string;
  /** Rendered from the directive registry; never hand-written here. */
  systemPrompt: string;
  /** JSON Schema of the directive envelope (z.toJSONSchema of the same zod schemas). */
  format: Record<string, unknown>;
  capabilities?: ModelCapabilities;
  sampling?: NonNullable<LlmRequestSpec['options']>;
  timeoutMs?: number;
  strict?: boolean;
  /** How many transcript entries the model sees. */
  historyLimit?: number;
  fetch?: typeof fetch;
  clock?: () => number;
}

/** A planner failure as a value the caller can fall back on. */
export class PlannerError extends Error {
  constructor(readonly error: SurfacerError) {
    super(`${error.code}: ${error.technical_detail}`);
  }
}

/** The state the model sees: compact, no nonces (they are not the model's business). */
export function describeStateForModel(ir: ConversationIr): string {
  const surfaces = ir.surfaces
    .filter((s) => s.lifecycle !== 'deleted')
    .map((s) => ({ surface: s.id, template: s.view.template, title: s.view.title, committed: s.data.committed }));
  return `Open surfaces: ${JSON.stringify(surfaces)}`;
}

export function createOllamaPlanner(options: OllamaPlannerOptions): Planner {
  const caps = options.capabilities ?? DEFAULT_OLLAMA_CAPABILITIES;
  const clock = options.clock ?? Date.now;
  return {
    name: 'ollama',
    label: `ollama · ${options.model}`,
    async plan(input: PlannerInput, signal: AbortSignal): Promise<PlannerOutput> {
      const history = input.ir.transcript.slice(-(options.historyLimit ?? 12)).map((t) => ({
        role: t.role === 'user' ? 'user' as const : 'assistant' as const, content: t.text,
      }));
      const spec: LlmRequestSpec = {
        model: options.model,
        stream: false,
        format: options.format,
        ...(options.sampling ? { options: options.sampling } : {}),
        messages: [
          { role: 'system', content: options.systemPrompt },
          { role: 'system', content: describeStateForModel(input.ir) },
          ...history,
          { role: 'user', content: input.text },
        ],
      };
      const preflight = preflightLlmRequest(spec);
      if (preflight.length > 0) throw new PlannerError(preflight[0]!);
      const sanitized = sanitizeLlmRequest(spec, caps, options.strict ?? false);
      if (sanitized.errors.length > 0) throw new PlannerError(sanitized.errors[0]!);

      // ollama-js can only abort streamed calls itself; a fetch wrapper carries our signal.
      const timeout = AbortSignal.timeout(options.timeoutMs ?? 60_000);
      const combined = AbortSignal.any([signal, timeout]);
      const baseFetch = options.fetch ?? fetch;
      const client = new Ollama({
        host: options.host,
        fetch: ((url: RequestInfo | URL, init?: RequestInit) => baseFetch(url, { ...init, signal: combined })) as typeof fetch,
      });
      const started = clock();
      let response: ChatResponse;
      try {
        response = await client.chat({
          model: sanitized.spec.model,
          messages: sanitized.spec.messages,
          stream: false,
          ...(sanitized.spec.format ? { format: sanitized.spec.format } : {}),
          ...(sanitized.spec.options ? { options: sanitized.spec.options } : {}),
        });
      } catch (error) {
        throw new PlannerError(classifyOllamaFailure(error, signal, timeout));
      }
      const content = response?.message?.content;
      if (typeof content !== 'string') {
        throw new PlannerError(makeError('LLM_RESPONSE_INVALID', 'reply has no message.content string'));
      }
      return {
        rawText: content,
        provider: 'ollama',
        model: options.model,
        llmMs: clock() - started,
        meta: {
          host: options.host, stream: false, format_mode: sanitized.spec.format ? 'json_schema' : 'none',
          sampling: sanitized.spec.options ?? {}, dropped_keys: sanitized.dropped,
          done_reason: response.done_reason, eval_count: response.eval_count,
        },
      };
    },
  };
}

function classifyOllamaFailure(error: unknown, caller: AbortSignal, timeout: AbortSignal): SurfacerError {
  const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  if (caller.aborted) return makeError('LLM_CANCELLED', detail);
  if (timeout.aborted) return makeError('LLM_TIMEOUT', detail);
  const cause = (error as { cause?: { code?: string } } | undefined)?.cause;
  if (cause?.code === 'ECONNREFUSED' || cause?.code === 'ENOTFOUND' || cause?.code === 'ECONNRESET') {
    return makeError('LLM_UNAVAILABLE', `${detail} (${cause.code})`);
  }
  const status = (error as { status_code?: number } | undefined)?.status_code;
  if (typeof status === 'number') return makeError('LLM_HTTP_ERROR', `HTTP ${status}: ${detail}`);
  if (error instanceof SyntaxError) return makeError('LLM_RESPONSE_INVALID', detail);
  return makeError('LLM_UNAVAILABLE', detail);
}
