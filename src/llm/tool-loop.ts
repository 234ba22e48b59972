import type { PlannerTools, ToolStep } from '../planner/types.ts';
import { toolExchangeMessages } from './chat-messages.ts';
import type { LlmMessage, LlmRequestSpec, LlmToolCall } from './request.ts';
import { GEN_AI, toolCallStart } from '../telemetry/gen-ai.ts';
import { failSpanWithCode, inSpan } from '../telemetry/tracing.ts';

/**
 * The tool loop of a turn (design §1, the hybrid run): requests with the app's tools and no
 * structured output, `parallel_tool_calls: false`, each tool call executed in order and fed back
 * as the tool's result (an error too), until the model answers without calling a tool, the step
 * cap or the time cap. Then the planner sends its usual final request: the directive schema and
 * no tools. Tools and a response schema never share a request (the preflight refuses it).
 */
export interface ToolLoopLimits {
  /** Requests with tools per turn (each may call tools); past it the final request is sent. 0 turns the loop off. */
  maxSteps: number;
  /** The whole loop, tool calls included; past it the final request is sent with what was gathered. */
  timeoutMs: number;
}

export const DEFAULT_TOOL_LOOP: ToolLoopLimits = { maxSteps: 4, timeoutMs: 20_000 };

export interface ToolLoopSummary {
  tools: string[];
  skipped?: string;
  stopped?: 'answered' | 'step_cap' | 'time_cap';
  requests: number;
}

export interface ToolLoopResult<R> {
  /** The exchange (assistant tool calls and tool results) the final request carries after the base messages. */
  messages: LlmMessage[];
  steps: ToolStep[];
  summary: ToolLoopSummary;
  /** Every provider reply of the loop (for usage and time). */
  replies: R[];
}

export interface ToolLoopParams<R extends { toolCalls?: LlmToolCall[] }> {
  tools: PlannerTools;
  /** The model takes tools (capability table); otherwise the turn runs without them, and says so. */
  supported: boolean;
  limits: ToolLoopLimits;
  /** The request of one loop step for these messages (no format, the tools, parallelToolCalls false). */
  request(messages: LlmMessage[]): LlmRequestSpec;
  send(spec: LlmRequestSpec, signal: AbortSignal): Promise<R>;
  /** The turn's own signal (cancel, the planner call's timeout): it aborts the loop as a failure. */
  signal: AbortSignal;
  /** Tool calls' spans carry their arguments and results (SURFACER_OTEL_CAPTURE_CONTENT=1). */
  captureContent?: boolean;
}

const OUT_OF_TIME = { error: { code: 'TOOL_TIMEOUT', detail: 'the turn\'s tool loop ran out of time' } };

export async function runToolLoop<R extends { toolCalls?: LlmToolCall[] }>(base: readonly LlmMessage[], p: ToolLoopParams<R>): Promise<ToolLoopResult<R>> {
  const tools = p.tools.definitions.map((d) => d.name);
  if (!p.supported) {
    return { messages: [], steps: [], replies: [], summary: { tools, skipped: 'the model does not support tools (capability table)', requests: 0 } };
  }
  if (p.limits.maxSteps === 0) {
    return { messages: [], steps: [], replies: [], summary: { tools, skipped: 'the tool loop is off (step cap 0)', requests: 0 } };
  }
  const deadline = AbortSignal.timeout(p.limits.timeoutMs);
  const signal = AbortSignal.any([p.signal, deadline]);
  const outOfTime = (): boolean => deadline.aborted && !p.signal.aborted;
  const messages: LlmMessage[] = [];
  const steps: ToolStep[] = [];
  const replies: R[] = [];
  let stopped: ToolLoopSummary['stopped'];
  for (let round = 0; stopped === undefined; round++) {
    if (round >= p.limits.maxSteps) { stopped = 'step_cap'; break; }
    if (deadline.aborted) { stopped = 'time_cap'; break; }
    let reply: R;
    try {
      reply = await p.send(p.request([...base, ...messages]), signal);
    } catch (error) {
      if (outOfTime()) { stopped = 'time_cap'; break; }
      throw error;
    }
    replies.push(reply);
    const calls = reply.toolCalls ?? [];
    if (calls.length === 0) { stopped = 'answered'; break; }
    const first = steps.length;
    // One at a time, in the order the model asked: a later call may depend on an earlier result.
    for (const call of calls) {
      const started = performance.now();
      const span = toolCallStart(call.name, call.id);
      const outcome = await inSpan(span.name, { attributes: span.attributes }, async (active) => {
        let outcome: { ok: boolean; result: unknown };
        try {
          outcome = await p.tools.call(call.name, call.arguments, signal);
        } catch (error) {
          if (!outOfTime()) throw error;
          outcome = { ok: false, result: OUT_OF_TIME };
        }
        // A tool's refusal is its answer to the model, not a crash: the span says which code.
        if (!outcome.ok) failSpanWithCode(active, toolErrorCode(outcome.result));
        if (p.captureContent === true && active.isRecording()) {
          active.setAttributes({ [GEN_AI.toolArguments]: JSON.stringify(call.arguments) ?? 'null', [GEN_AI.toolResult]: JSON.stringify(outcome.result) ?? 'null' });
        }
        return outcome;
      }, { captureContent: p.captureContent === true });
      steps.push({
        index: steps.length, round, ...(call.id === undefined ? {} : { callId: call.id }), name: call.name,
        arguments: call.arguments, ok: outcome.ok, result: outcome.result, ms: performance.now() - started,
      });
    }
    messages.push(...toolExchangeMessages(steps.slice(first)));
  }
  return { messages, steps, replies, summary: { tools, stopped, requests: replies.length } };
}

/** The code a failed tool call reports (`{error: {code}}`, as the app's tools and OUT_OF_TIME answer), or a generic one. */
function toolErrorCode(result: unknown): string {
  const code = (result as { error?: { code?: unknown } } | null)?.error?.code;
  return typeof code === 'string' ? code : 'TOOL_FAILED';
}
