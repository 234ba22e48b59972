import type { Planner, PlannerInput, PlannerName, PlannerOutput, PlannerTools, TokenUsage } from '../planner/types.ts';
import { sumUsage } from '../planner/usage.ts';
import type { LlmProvider, ModelCapabilities } from './capabilities.ts';
import { buildChatMessages, readRepairPrompt } from './chat-messages.ts';
import { classifyFailure } from './failure.ts';
import { PlannerError } from './planner-error.ts';
import { preflightLlmRequest, sanitizeLlmRequest, type LlmRequestSpec, type LlmToolCall } from './request.ts';
import { DEFAULT_TOOL_LOOP, runToolLoop, type ToolLoopLimits } from './tool-loop.ts';
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

      /** One request: preflight, sanitiser, then the provider with our retries. */
      async function send(spec: LlmRequestSpec, callSignal: AbortSignal): Promise<{ reply: ProviderReply; sent: LlmRequestSpec }> {
        const preflight = preflightLlmRequest(spec);
        if (preflight.length > 0) throw new PlannerError(preflight[0]!);
        const sanitized = sanitizeLlmRequest(spec, options.capabilities, options.strict ?? false);
        if (sanitized.errors.length > 0) throw new PlannerError(sanitized.errors[0]!);
        for (const key of sanitized.dropped) dropped.add(key);
        for (let retry = 0; ; retry++) {
          const transport = observedFetch(options.fetch ?? fetch, callSignal, clock);
          try {
            return { reply: await provider.send(sanitized.spec, transport.fetch, callSignal), sent: sanitized.spec };
          } catch (error) {
            if (error instanceof PlannerError) throw error;
            const failure = classifyFailure(error, { caller: signal, timeout, response: transport.last() });
            const wait = retryDelay(failure, retry, policy, random);
            if (wait === undefined) {
              const tried = retries.length > 0 ? ` (after ${retries.length} ${retries.length === 1 ? 'retry' : 'retries'})` : '';
              throw new PlannerError({ ...failure.error, technical_detail: failure.error.technical_detail + tried });
            }
            retries.push({ code: failure.error.code, wait_ms: wait });
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
        send: async (spec, callSignal) => (await send(spec, callSignal)).reply,
      }).catch((error: unknown) => {
        // A cancel or the call's timeout during a tool call: the same canonical error as during a request.
        throw error instanceof PlannerError ? error : new PlannerError(classifyFailure(error, { caller: signal, timeout }).error);
      });
      const { reply, sent } = await send({
        model: options.model, stream: false, ...(options.format ? { format: options.format } : {}), ...sampling,
        messages: [...base, ...loop?.messages ?? []],
      }, combined);
      const output: PlannerOutput = {
        rawText: reply.content,
        provider: provider.name,
        model: options.model,
        llmMs: clock() - started,
        meta: {
          endpoint: provider.endpoint, stream: false, format_mode: sent.format ? 'json_schema' : 'none',
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
