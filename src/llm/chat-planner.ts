import type { Planner, PlannerInput, PlannerName, PlannerOutput, PlannerTools, TokenUsage } from '../planner/types.ts';
import { sumUsage } from '../planner/usage.ts';
import { streamFinalRequest, type LlmProvider, type ModelCapabilities, type StreamSetting } from './capabilities.ts';
import { buildChatMessages, readRepairPrompt } from './chat-messages.ts';
import { classifyFailure } from './failure.ts';
import { PlannerError } from './planner-error.ts';
import { preflightLlmRequest, sanitizeLlmRequest, type LlmRequestSpec, type LlmToolCall, type StreamAllowance } from './request.ts';
import { DEFAULT_TOOL_LOOP, runToolLoop, type ToolLoopLimits } from './tool-loop.ts';
import { trace } from '@opentelemetry/api';
import { endModelCall, modelCallStart, recordModelContent } from '../telemetry/gen-ai.ts';
import { failSpanWithCode, inSpan, SpanKind } from '../telemetry/tracing.ts';
import { abortableSleep, DEFAULT_RETRY_POLICY, observedFetch, retryDelay, type RetryPolicy } from './retry.ts';

/** What one provider's client answered, reduced to what the planner needs. */
export interface ProviderReply {
  /** The text the directive parser reads. */
  content: string;
  /** The model's own text when `content` was derived from it (e.g. strict-mode nulls mapped back). */
  modelText?: string;
  usage?: TokenUsage;
  finishReason?: string;
  meta?: Record<string, unknown>;
  /** The tools the model called instead of answering (read by the tool loop). */
  toolCalls?: LlmToolCall[];
  /** The model that answered, as the provider names it (may differ from the one asked for). */
  responseModel?: string;
}

/**
 * One provider behind the shared chat planner: how a sanitised spec goes over the wire through
 * the given fetch (which carries cancel/timeout and observes status and Retry-After), and what
 * came back. Throw the client's own errors; a PlannerError is passed through unclassified.
 */
export interface ChatProvider {
  readonly name: Extract<PlannerName, 'ollama' | 'openai'>;
  /** The capability table's provider key. */
  readonly capabilityKey: LlmProvider;
  /** Host or base URL, for the trace. */
  readonly endpoint: string;
  send(spec: LlmRequestSpec, fetch: typeof globalThis.fetch, signal: AbortSignal): Promise<ProviderReply>;
  /**
   * The same request streamed (`spec.stream` is true): each piece of answer text goes to
   * `onText` as it arrives; resolves with the whole reply once the provider says it is done.
   * Throws the client's error when the stream breaks (the planner keeps what arrived).
   */
  stream?(spec: LlmRequestSpec, fetch: typeof globalThis.fetch, signal: AbortSignal, onText: (delta: string) => void): Promise<ProviderReply>;
  /** How a complete answer text becomes what the parser reads (OpenAI strict mode maps nulls back). */
  mapText?(text: string): string;
}

export interface ChatPlannerOptions {
  model: string;
  /** Rendered from the directive registry; never hand-written here. */
  systemPrompt: string;
  /** Default: prompts/repair.v1.md. */
  repairPrompt?: string;
  /** JSON Schema the provider constrains the answer to (structured output). */
  format?: Record<string, unknown>;
  capabilities: ModelCapabilities;
  sampling?: NonNullable<LlmRequestSpec['options']>;
  /** For the whole call, retries and backoff included. */
  timeoutMs?: number;
  strict?: boolean;
  historyLimit?: number;
  retry?: Partial<RetryPolicy>;
  fetch?: typeof globalThis.fetch;
  clock?: () => number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  random?: () => number;
  label?: string;
  /** Caps of the tool loop (turns with the app's tools); default DEFAULT_TOOL_LOOP. */
  toolLoop?: Partial<ToolLoopLimits>;
  /** SURFACER_STREAM (default `auto`: as the capability table says). */
  stream?: StreamSetting;
  /**
   * SURFACER_OTEL_CAPTURE_CONTENT=1: model calls' spans carry the messages and the answer, and
   * tool calls' spans their arguments and results. Off by default: they hold what people typed.
   */
  captureContent?: boolean;
}

/** The planner every chat provider shares: messages, preflight, sanitiser, retries, output. */
export function createChatPlanner(provider: ChatProvider, options: ChatPlannerOptions): Planner {
  const clock = options.clock ?? Date.now;
  const policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
  const sleep = options.sleep ?? abortableSleep;
  const random = options.random ?? Math.random;
  const repairPrompt = options.repairPrompt ?? readRepairPrompt();
  return {
    name: provider.name,
    label: options.label ?? `${provider.name} · ${options.model}`,
    ...(provider.mapText ? { mapText: (text: string) => provider.mapText!(text) } : {}),
    streams: provider.stream !== undefined && (options.stream ?? 'auto') !== 'off',
    async plan(input: PlannerInput, signal: AbortSignal): Promise<PlannerOutput> {
      const base = buildChatMessages(input, {
        systemPrompt: options.systemPrompt, repairPrompt,
        ...(options.historyLimit === undefined ? {} : { historyLimit: options.historyLimit }),
      });
      const sampling = options.sampling ? { options: options.sampling } : {};
      const timeout = AbortSignal.timeout(options.timeoutMs ?? 60_000);
      const combined = AbortSignal.any([signal, timeout]);
      const started = clock();
      const dropped = new Set<string>();
      const retries: Array<{ code: string; wait_ms: number }> = [];

      const setting = options.stream ?? 'auto';
      // SURFACER_STREAM=on streams whatever the table says; auto asks the table.
      const allow: StreamAllowance = setting === 'on' ? { withFormat: true, withTools: true }
        : { withFormat: options.capabilities.streamStructured, withTools: options.capabilities.streamTools };
      /** What a streamed call delivered before it broke: never retried (the reader has seen it). */
      let streamed = '';

      /**
       * One model call, retries included (as the GenAI conventions want one span for it): a
       * `chat {model}` client span around send.
       */
      function call(spec: LlmRequestSpec, callSignal: AbortSignal, onText?: (delta: string) => void): Promise<{ reply: ProviderReply; sent: LlmRequestSpec }> {
        const start = modelCallStart({
          provider: provider.capabilityKey, model: spec.model, endpoint: provider.endpoint, json: spec.format !== undefined,
          stream: spec.stream, ...(spec.options ? { sampling: spec.options } : {}),
        });
        return inSpan(start.name, { kind: SpanKind.CLIENT, attributes: start.attributes }, async (span) => {
          const retriesBefore = retries.length;
          const result = await send(spec, callSignal, onText);
          const { reply } = result;
          // What was really sent: the sanitiser may have turned streaming off.
          span.setAttribute('surfacer.llm.stream', result.sent.stream);
          endModelCall(span, {
            responseModel: reply.responseModel, finishReason: reply.finishReason,
            responseId: typeof reply.meta?.['response_id'] === 'string' ? reply.meta['response_id'] : undefined,
            inputTokens: reply.usage?.prompt_tokens, outputTokens: reply.usage?.completion_tokens, retries: retries.length - retriesBefore,
          });
          const cut = reply.meta?.['stream_cut'] as { code?: unknown } | undefined;
          if (typeof cut?.code === 'string') failSpanWithCode(span, cut.code, 'the stream broke; the part that arrived is kept');
          if (options.captureContent) recordModelContent(span, spec.messages, reply.modelText ?? reply.content);
          return result;
        }, { captureContent: options.captureContent === true });
      }

      /** One request: preflight, sanitiser, then the provider with our retries. */
      async function send(spec: LlmRequestSpec, callSignal: AbortSignal, onText?: (delta: string) => void): Promise<{ reply: ProviderReply; sent: LlmRequestSpec }> {
        const preflight = preflightLlmRequest(spec, allow);
        if (preflight.length > 0) throw new PlannerError(preflight[0]!);
        const sanitized = sanitizeLlmRequest(spec, options.capabilities, options.strict ?? false);
        if (sanitized.errors.length > 0) throw new PlannerError(sanitized.errors[0]!);
        for (const key of sanitized.dropped) dropped.add(key);
        for (let retry = 0; ; retry++) {
          const transport = observedFetch(options.fetch ?? fetch, callSignal, clock);
          try {
            if (sanitized.spec.stream && onText !== undefined && provider.stream !== undefined) {
              const reply = await provider.stream(sanitized.spec, transport.fetch, callSignal, (delta) => { streamed += delta; onText(delta); });
              return { reply, sent: sanitized.spec };
            }
            return { reply: await provider.send({ ...sanitized.spec, stream: false }, transport.fetch, callSignal), sent: { ...sanitized.spec, stream: false } };
          } catch (error) {
            if (error instanceof PlannerError && streamed === '') throw error;
            const failure = error instanceof PlannerError ? { error: error.error, transient: false }
              : classifyFailure(error, { caller: signal, timeout, response: transport.last() });
            // Part of the answer was read already: keep it (the reader applied what was whole)
            // instead of asking again; a cancel is still a cancel.
            if (streamed !== '' && failure.error.code !== 'LLM_CANCELLED') {
              return {
                reply: { content: streamed, finishReason: 'interrupted', meta: { stream_cut: { code: failure.error.code, detail: failure.error.technical_detail } } },
                sent: sanitized.spec,
              };
            }
            const wait = retryDelay(failure, retry, policy, random);
            if (wait === undefined) {
              const tried = retries.length > 0 ? ` (after ${retries.length} ${retries.length === 1 ? 'retry' : 'retries'})` : '';
              throw new PlannerError({ ...failure.error, technical_detail: failure.error.technical_detail + tried });
            }
            retries.push({ code: failure.error.code, wait_ms: wait });
            trace.getActiveSpan()?.addEvent('retry', { 'surfacer.error.code': failure.error.code, 'surfacer.retry.wait_ms': wait });
            try {
              await sleep(wait, callSignal);
            } catch (reason) {
              throw new PlannerError(classifyFailure(reason, { caller: signal, timeout }).error);
            }
          }
        }
      }

      // With the app's tools: the tool loop first, then the final request carries its exchange.
      const loop = input.tools === undefined || input.tools.definitions.length === 0 ? undefined : await runToolLoop(base, {
        tools: input.tools, supported: options.capabilities.tools, limits: { ...DEFAULT_TOOL_LOOP, ...options.toolLoop }, signal: combined,
        request: (messages) => ({ model: options.model, stream: false, ...sampling, messages, tools: toolSpecs(input.tools!), parallelToolCalls: false }),
        send: async (spec, callSignal) => (await call(spec, callSignal)).reply,
        captureContent: options.captureContent === true,
      }).catch((error: unknown) => {
        // A cancel or the call's timeout during a tool call: the same canonical error as during a request.
        throw error instanceof PlannerError ? error : new PlannerError(classifyFailure(error, { caller: signal, timeout }).error);
      });
      // Tool-loop rounds above are never streamed; the final directive request is, where allowed
      // and someone reads it.
      const withFormat = options.format !== undefined && options.capabilities.structuredOutput;
      const stream = input.stream !== undefined && streamFinalRequest(setting, options.capabilities, withFormat);
      const { reply, sent } = await call({
        model: options.model, stream, ...(options.format ? { format: options.format } : {}), ...sampling,
        messages: [...base, ...loop?.messages ?? []],
      }, combined, stream ? (delta) => input.stream!.text(delta) : undefined);
      const output: PlannerOutput = {
        rawText: reply.content,
        provider: provider.name,
        model: options.model,
        llmMs: clock() - started,
        meta: {
          endpoint: provider.endpoint, stream: sent.stream, format_mode: sent.format ? 'json_schema' : 'none',
          sampling: sent.options ?? {}, dropped_keys: [...dropped], http_retries: retries,
          ...(reply.finishReason === undefined ? {} : { finish_reason: reply.finishReason }),
          ...(reply.modelText === undefined ? {} : { model_text: reply.modelText }),
          ...reply.meta,
          ...(loop === undefined ? {} : { tool_loop: loop.summary }),
        },
      };
      const usage = sumUsage([...loop?.replies ?? [], reply]);
      if (usage !== undefined) output.usage = usage;
      if (loop !== undefined && loop.steps.length > 0) output.toolSteps = loop.steps;
      return output;
    },
  };
}

/** The app's tools as both providers take them. */
function toolSpecs(tools: PlannerTools): Array<Record<string, unknown>> {
  return tools.definitions.map((d) => ({ type: 'function', function: { name: d.name, description: d.description, parameters: d.parameters } }));
}
