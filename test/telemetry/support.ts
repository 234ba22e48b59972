import { randomBytes } from 'node:crypto';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { startTelemetry, type Telemetry } from '../../src/telemetry/sdk.ts';

/**
 * A real tracer provider registered for the test file through startTelemetry (what `surfacer
 * serve` runs), exporting each span as it ends to an in-memory exporter; emptied before each test.
 */
export function recordSpansForTestFile(env: NodeJS.ProcessEnv = {}): { spans(): ReadableSpan[] } {
  const exporter = new InMemorySpanExporter();
  let telemetry: Telemetry | undefined;
  beforeAll(async () => { telemetry = await startTelemetry({ env, spanProcessors: [new SimpleSpanProcessor(exporter)] }); });
  afterAll(async () => { await telemetry?.shutdown(); });
  beforeEach(() => exporter.reset());
  return { spans: () => exporter.getFinishedSpans() };
}

/** A client's own trace context, as a W3C `traceparent` header would carry it (sampled). */
export function clientTrace(): { traceId: string; spanId: string; traceparent: string } {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

export const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;
export const idOf = (span: ReadableSpan): string => span.spanContext().spanId;

export function childrenOf(spans: readonly ReadableSpan[], parent: ReadableSpan): ReadableSpan[] {
  return spans.filter((s) => parentOf(s) === idOf(parent)).sort((a, b) => hr(a.startTime) - hr(b.startTime));
}

export function only(spans: readonly ReadableSpan[], predicate: (span: ReadableSpan) => boolean, what: string): ReadableSpan {
  const found = spans.filter(predicate);
  if (found.length !== 1) throw new Error(`expected one ${what}, found ${found.length}: ${spans.map((s) => s.name).join(', ')}`);
  return found[0]!;
}

/** The HTTP server span of a request (`{method} {route}`). */
export function serverSpan(spans: readonly ReadableSpan[], name: string, traceId?: string): ReadableSpan {
  return only(spans, (s) => s.kind === SpanKind.SERVER && s.name === name && (traceId === undefined || s.spanContext().traceId === traceId), `server span ${name}`);
}

/** Every attribute value and event of the spans as one text (to look for what must not be there). */
export function everything(spans: readonly ReadableSpan[]): string {
  return JSON.stringify(spans.map((s) => ({ name: s.name, attributes: s.attributes, events: s.events.map((e) => ({ name: e.name, attributes: e.attributes })), status: s.status })));
}

const hr = (t: [number, number]): number => t[0] * 1e9 + t[1];
