import { PrometheusExporter, PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import type { MetricReader } from '@opentelemetry/sdk-metrics';
import type { MetricsEndpoint } from './metrics-route.ts';

/**
 * A pull reader for a MeterProvider and the Prometheus text it collects (SDK side: `surfacer
 * serve` and tests). The exporter's own HTTP server is never started: the text is served by
 * our route (metrics-route.ts), behind the same door as the agent endpoints.
 */
export function createPrometheusEndpoint(): MetricsEndpoint & { reader: MetricReader } {
  const reader = new PrometheusExporter({ preventServerStart: true });
  const serializer = new PrometheusSerializer();
  return {
    reader,
    async collect() {
      const { resourceMetrics } = await reader.collect();
      const text = serializer.serialize(resourceMetrics);
      // The format's last line must end with a line feed; the serializer leaves it off when
      // nothing but target_info has been recorded yet (a strict scraper would refuse the text).
      return text.endsWith('\n') ? text : `${text}\n`;
    },
  };
}
