// The OpenTelemetry GenAI semantic conventions (gen_ai.*) for model calls and tool calls. The
// conventions are still "development": their names are written here rather than imported from
// @opentelemetry/semantic-conventions/incubating (which the OTel docs advise against depending
// on), and the older `gen_ai.system` is set beside `gen_ai.provider.name` for backends that read
// only the older name.
import type { Attributes, Span } from '@opentelemetry/api';
import { setDefined } from './tracing.ts';

export const GEN_AI = {
  operation: 'gen_ai.operation.name',
  provider: 'gen_ai.provider.name',
  system: 'gen_ai.system',
  requestModel: 'gen_ai.request.model',
  responseModel: 'gen_ai.response.model',
  responseId: 'gen_ai.response.id',
  finishReasons: 'gen_ai.response.finish_reasons',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  outputType: 'gen_ai.output.type',
  temperature: 'gen_ai.request.temperature',
  topP: 'gen_ai.request.top_p',
  maxTokens: 'gen_ai.request.max_tokens',
  conversationId: 'gen_ai.conversation.id',
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolType: 'gen_ai.tool.type',
  toolArguments: 'gen_ai.tool.call.arguments',
  toolResult: 'gen_ai.tool.call.result',
} as const;

export interface ModelCallStart {
  /** Provider name as the conventions spell it where they have one (`openai`), ours otherwise (`ollama`, `openai-compatible`). */
  provider: string;
  model: string;
  endpoint: string;
  /** The request asks for JSON (the directive schema) rather than free text (a tool-loop round). */
  json: boolean;
  stream: boolean;
  sampling?: Record<string, unknown>;
}

/** Span name and start attributes of one model call: `chat {model}`, kind CLIENT. */
export function modelCallStart(call: ModelCallStart): { name: string; attributes: Attributes } {
  const attributes: Attributes = {
    [GEN_AI.operation]: 'chat', [GEN_AI.provider]: call.provider, [GEN_AI.system]: call.provider,
    [GEN_AI.requestModel]: call.model, [GEN_AI.outputType]: call.json ? 'json' : 'text',
    'surfacer.llm.stream': call.stream,
  };
  const server = serverOf(call.endpoint);
  if (server !== undefined) Object.assign(attributes, server);
  const sampling = call.sampling ?? {};
  for (const [key, name] of [['temperature', GEN_AI.temperature], ['top_p', GEN_AI.topP], ['max_tokens', GEN_AI.maxTokens], ['num_predict', GEN_AI.maxTokens]] as const) {
    const value = sampling[key];
    if (typeof value === 'number') attributes[name] = value;
  }
  return { name: `chat ${call.model}`, attributes };
}

export interface ModelCallEnd {
  responseModel?: string | undefined;
  responseId?: string | undefined;
  finishReason?: string | undefined;
  inputTokens?: number | undefined;
  outputTokens?: number | undefined;
  /** HTTP retries this call made before its answer (ours, retry.ts). */
  retries: number;
}

/** What came back, on the model call's span. Never the text: see recordModelContent. */
export function endModelCall(span: Span, end: ModelCallEnd): void {
  setDefined(span, {
    [GEN_AI.responseModel]: end.responseModel, [GEN_AI.responseId]: end.responseId,
    [GEN_AI.finishReasons]: end.finishReason === undefined ? undefined : [end.finishReason],
    [GEN_AI.inputTokens]: end.inputTokens, [GEN_AI.outputTokens]: end.outputTokens,
    'surfacer.llm.http_retries': end.retries,
  });
}

/**
 * Prompt and answer text on the span: only when the operator turned it on
 * (SURFACER_OTEL_CAPTURE_CONTENT=1), since it holds what people typed. As the conventions'
 * JSON-string form of gen_ai.input.messages / gen_ai.output.messages.
 */
export function recordModelContent(span: Span, input: ReadonlyArray<{ role: string; content: string }>, output: string | undefined): void {
  if (!span.isRecording()) return;
  span.setAttribute(GEN_AI.inputMessages, JSON.stringify(input.map((m) => ({ role: m.role, parts: [{ type: 'text', content: m.content }] }))));
  if (output !== undefined) {
    span.setAttribute(GEN_AI.outputMessages, JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: output }] }]));
  }
}

/** Span name and attributes of one tool call: `execute_tool {name}`, kind INTERNAL (the app's tool runs in process). */
export function toolCallStart(name: string, callId: string | undefined): { name: string; attributes: Attributes } {
  return {
    name: `execute_tool ${name}`,
    attributes: {
      [GEN_AI.operation]: 'execute_tool', [GEN_AI.toolName]: name, [GEN_AI.toolType]: 'function',
      ...(callId === undefined ? {} : { [GEN_AI.toolCallId]: callId }),
    },
  };
}

/** `server.address` / `server.port` of the model endpoint (no path, no credentials). */
function serverOf(endpoint: string): Attributes | undefined {
  try {
    const url = new URL(endpoint);
    const port = url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
    return { 'server.address': url.hostname, 'server.port': port };
  } catch {
    return undefined;
  }
}
