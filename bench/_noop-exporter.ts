import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';

/**
 * A span exporter that accepts every batch and sends it nowhere: with it, a bench measures what
 * the instrumentation and the SDK cost in the server (span creation, attributes, context, the
 * batch processor), not a collector's network round trips.
 */
export function noopSpanExporter(): SpanExporter & { exported(): number } {
  let count = 0;
  return {
    export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
      count += spans.length;
      done({ code: ExportResultCode.SUCCESS });
    },
    shutdown: async () => {},
    forceFlush: async () => {},
    exported: () => count,
  };
}
