import { z } from 'zod';
import { makeError, type SurfacerError } from '../errors/index.ts';
import type { ModelCapabilities } from './capabilities.ts';

/** A tool call the model made, as the chat messages carry it back (provider-neutral). */
export const LlmToolCall = z.object({
  /** OpenAI's call id (a tool message answers it); Ollama sends none. */
  id: z.string().optional(),
  name: z.string(),
  /** The arguments as the model sent them (OpenAI's JSON text is parsed; unparsable text stays a string). */
  arguments: z.unknown(),
});
export type LlmToolCall = z.infer<typeof LlmToolCall>;

export const LlmMessage = z.object({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: z.string(),
  /** An assistant message that called tools. */
  toolCalls: z.array(LlmToolCall).optional(),
  /** A tool message: the call it answers (OpenAI) and the tool's name (Ollama). */
  toolCallId: z.string().optional(),
  toolName: z.string().optional(),
});
export type LlmMessage = z.infer<typeof LlmMessage>;

/** What we ask a provider for, before provider-specific sanitising. */
export const LlmRequestSpec = z.object({
  model: z.string().min(1),
  messages: z.array(LlmMessage),
  stream: z.boolean(),
  /** JSON Schema of the expected reply (structured output). */
  format: z.record(z.string(), z.unknown()).optional(),
  tools: z.array(z.record(z.string(), z.unknown())).optional(),
  parallelToolCalls: z.boolean().optional(),
  think: z.boolean().optional(),
  options: z.record(z.string(), z.union([z.number(), z.boolean(), z.array(z.string())])).optional(),
});
export type LlmRequestSpec = z.infer<typeof LlmRequestSpec>;

/** Which streamed combinations the provider allows (capability table, or SURFACER_STREAM=on). */
export interface StreamAllowance {
  withFormat: boolean;
  withTools: boolean;
}

/**
 * Combinations no provider call may carry (design.md §9). Streaming together with a response
 * format or with tools is refused unless `allow` says the provider takes it: a per-provider
 * capability, not a universal default (docs/streaming.md).
 */
export function preflightLlmRequest(spec: LlmRequestSpec, allow: StreamAllowance = { withFormat: false, withTools: false }): SurfacerError[] {
  const errors: SurfacerError[] = [];
  const hasTools = (spec.tools?.length ?? 0) > 0;
  if (spec.stream && hasTools && !allow.withTools) {
    errors.push(makeError('LLM_STREAMING_WITH_TOOL_CALLING_FORBIDDEN', 'stream=true with tools', { pointer: '/stream' }));
  }
  if (spec.stream && spec.format && !allow.withFormat) {
    errors.push(makeError('LLM_STREAMING_WITH_RESPONSE_FORMAT_FORBIDDEN', 'stream=true with format', { pointer: '/stream' }));
  }
  if (spec.format && hasTools && spec.parallelToolCalls) {
    errors.push(makeError('LLM_STRUCTURED_OUTPUTS_PARALLEL_TOOL_CALLS_FORBIDDEN', 'format with parallel tool calls', { pointer: '/parallelToolCalls' }));
  } else if (spec.format && hasTools) {
    errors.push(makeError('LLM_TOOLS_WITH_RESPONSE_FORMAT_FORBIDDEN', 'format with tools', { pointer: '/tools' }));
  }
  // One tool call per model turn keeps the tool loop deterministic and its trace readable.
  if (hasTools && spec.parallelToolCalls !== false && !(spec.format && spec.parallelToolCalls)) {
    errors.push(makeError('LLM_PARALLEL_TOOL_CALLS_NOT_DISABLED', 'tools without parallelToolCalls: false', { pointer: '/parallelToolCalls' }));
  }
  return errors;
}

export interface SanitizedRequest {
  spec: LlmRequestSpec;
  /** JSON Pointers of what was left out; recorded in the trace. */
  dropped: string[];
  errors: SurfacerError[];
}

/**
 * Removes what the model does not support. Best-effort drops and records; strict refuses the
 * request with one error per unsupported key.
 */
export function sanitizeLlmRequest(spec: LlmRequestSpec, caps: ModelCapabilities, strict: boolean): SanitizedRequest {
  const dropped: string[] = [];
  const next: LlmRequestSpec = { ...spec };
  if (next.format && !caps.structuredOutput) { delete next.format; dropped.push('/format'); }
  if (next.tools && !caps.tools) { delete next.tools; delete next.parallelToolCalls; dropped.push('/tools'); }
  if (next.think !== undefined && !caps.think) { delete next.think; dropped.push('/think'); }
  if (next.options) {
    const kept: NonNullable<LlmRequestSpec['options']> = {};
    for (const [key, value] of Object.entries(next.options)) {
      if (caps.options.includes(key)) kept[key] = value;
      else dropped.push(`/options/${key}`);
    }
    next.options = kept;
  }
  const errors = strict
    ? dropped.map((pointer) => makeError('LLM_REQUEST_KEY_UNSUPPORTED', `model does not support ${pointer}`, { pointer }))
    : [];
  return { spec: strict && errors.length > 0 ? spec : next, dropped, errors };
}
