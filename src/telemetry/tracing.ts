// Spans through @opentelemetry/api only. Without an SDK registered (the default), every call
// here lands on the API's no-op tracer: a non-recording span, no context switch worth the name,
// nothing kept. `surfacer serve` registers an SDK when the OTEL_* variables ask (sdk.ts).
import {
  context, INVALID_SPAN_CONTEXT, ProxyTracerProvider, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Span, type SpanOptions, type Tracer,
} from '@opentelemetry/api';
import { isErrorCode } from '../errors/index.ts';

export { SpanKind } from '@opentelemetry/api';
export type { Attributes, Span } from '@opentelemetry/api';

/** The instrumentation scope of every Surfacer span. */
export const TRACER_NAME = 'surfacer';

/**
 * The tracer, looked up per use: a tracer kept from before an SDK was registered (or after it
 * was shut down) would keep pointing at the provider of that moment.
 */
export function tracer(): Tracer {
  return trace.getTracer(TRACER_NAME);
}

/**
 * No tracer provider is registered (the default): every span the API makes is a non-recording
 * one, carrying at most its parent's span context, so there is nothing to start, activate or end.
 * Looked up per call, like tracer(): an SDK may be registered (or shut down) at any time.
 */
export function tracingOff(): boolean {
  const provider = trace.getTracerProvider();
  return provider instanceof ProxyTracerProvider && provider.getDelegateTracer(TRACER_NAME) === undefined;
}

/** What `fn` gets while tracing is off: the API's non-recording span (every method a no-op). */
const OFF_SPAN = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

/**
 * Runs `fn` inside a new active span (its child spans and the async work it starts see it as
 * parent) and ends it. A throw marks the span as an error with the exception recorded (see
 * failSpan for what of it), and is rethrown; `fn` sets its own outcome attributes on success.
 * While tracing is off `fn` just runs (with a non-recording span): the no-op tracer's span and
 * context switch cost a request's worth of allocations and promises for nothing.
 */
export function inSpan<T>(name: string, options: SpanOptions, fn: (span: Span) => Promise<T>, failure: SpanFailureOptions = {}): Promise<T> {
  if (tracingOff()) {
    try {
      return fn(OFF_SPAN);
    } catch (error) {
      return Promise.reject(error);
    }
  }
  return tracer().startActiveSpan(name, options, async (span) => {
    try {
      return await fn(span);
    } catch (error) {
      failSpan(span, error, failure);
      throw error;
    } finally {
      span.end();
    }
  });
}

export interface SpanFailureOptions {
  /**
   * SURFACER_OTEL_CAPTURE_CONTENT=1 (model and tool calls): the error's message and stack too.
   * Off by default, since a message may quote what the model or a person wrote: a refusal's
   * text, a JSON.parse error quoting the answer it could not read.
   */
  captureContent?: boolean;
}

/**
 * Marks a span failed by a thrown value: its canonical code when it carries one, `error.type`,
 * an error status and the `exception` event. Without content capture the message is left out
 * of all three (the event carries `exception.type` only, the status no description): the code
 * and the type are what a trace is searched by, and the message's text is of unknown origin.
 */
export function failSpan(span: Span, error: unknown, options: SpanFailureOptions = {}): void {
  if (!span.isRecording()) return;
  const code = canonicalCode(error);
  const type = errorType(error);
  if (code !== undefined) span.setAttribute(ATTR_ERROR_CODE, code);
  span.setAttribute('error.type', type);
  if (options.captureContent === true) {
    span.recordException(error instanceof Error ? error : String(error));
    span.setStatus({ code: SpanStatusCode.ERROR, ...(error instanceof Error ? { message: error.message } : {}) });
    return;
  }
  // The event the API's recordException would add, by the same conventions, minus the text.
  span.addEvent('exception', { 'exception.type': type });
  span.setStatus({ code: SpanStatusCode.ERROR });
}

/** Marks a span failed with a canonical error code (a refusal returned as a value, not thrown). */
export function failSpanWithCode(span: Span, code: string, message?: string): void {
  if (!span.isRecording()) return;
  span.setAttributes({ [ATTR_ERROR_CODE]: code, 'error.type': code });
  span.setStatus({ code: SpanStatusCode.ERROR, ...(message === undefined ? {} : { message }) });
}

/** Surfacer's canonical error code on a span (src/errors): the same code the client got. */
export const ATTR_ERROR_CODE = 'surfacer.error.code';

/** Sets only the attributes that have a value (the API drops undefined ones, but not before we build them). */
export function setDefined(span: Span, attributes: Record<string, string | number | boolean | string[] | undefined>): void {
  if (!span.isRecording()) return;
  const defined: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) if (value !== undefined) defined[key] = value;
  span.setAttributes(defined);
}

/** The trace id of the active span, when one is being recorded (for the conversation's own trace page). */
export function activeTraceId(): string | undefined {
  const span = trace.getSpan(context.active());
  if (span === undefined || !span.isRecording()) return undefined;
  return span.spanContext().traceId;
}

/** A span is being recorded in the active context (a request or turn under an SDK). */
export function isTracing(): boolean {
  return trace.getActiveSpan()?.isRecording() === true;
}

/**
 * Runs `fn` outside any trace. For long-lived things made lazily during a request (a pub/sub
 * connection): everything their callbacks do later would otherwise count as that request's work.
 */
export function outsideTraces<T>(fn: () => T): T {
  return context.with(ROOT_CONTEXT, fn);
}

/** A client span that is not made active (leaf work, e.g. one Redis command batch): cheaper than inSpan. */
export function startLeafSpan(name: string, attributes: Attributes): Span {
  return tracer().startSpan(name, { kind: SpanKind.CLIENT, attributes });
}

/**
 * `error.type` of a thrown value, on spans and metrics alike: its canonical code when it carries
 * one (low cardinality, and what the client got), else its class name.
 */
export function errorType(error: unknown): string {
  return canonicalCode(error) ?? (error instanceof Error ? error.name : 'unknown');
}

/**
 * The canonical code a thrown value carries, if any. PlannerError and friends carry the canonical
 * error as `.error` (src/llm/planner-error.ts), read by shape so this module needs no planner.
 * Only a registered code counts: a client library's error has an `.error` of its own (the
 * provider's body), whose code is free text.
 */
export function canonicalCode(error: unknown): string | undefined {
  const inner = (error as { error?: { code?: unknown } } | null)?.error;
  return typeof inner?.code === 'string' && isErrorCode(inner.code) ? inner.code : undefined;
}
