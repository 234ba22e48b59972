import type { MeterProvider } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { IMetricReader, PushMetricExporter } from '@opentelemetry/sdk-metrics';
import type { MetricsEndpoint } from './metrics-route.ts';

/*
 * The metrics half of the SDK wiring for `surfacer serve` (sdk.ts starts it beside traces, on
 * one resource). Off unless asked, like traces: OTEL_METRICS_EXPORTER names `prometheus` (our
 * GET /metrics), `otlp` (pushed every OTEL_METRIC_EXPORT_INTERVAL), `console`; an OTLP metrics
 * endpoint alone means `otlp`; SURFACER_METRICS_PORT alone means `prometheus` on that port.
 * The SDK packages are imported only when metrics start.
 */

export type MetricsExporterKind = 'prometheus' | 'otlp' | 'console';

export interface MetricsSettings {
  /** Empty: no meter provider (the API's no-op meters). */
  exporters: MetricsExporterKind[];
  otlpMetricsUrl?: string;
  /** OTEL_METRIC_EXPORT_INTERVAL (default 60 000 ms, the spec's). */
  exportIntervalMs: number;
  /** OTEL_METRIC_EXPORT_TIMEOUT (default 30 000 ms). */
  exportTimeoutMs: number;
  /** SURFACER_METRICS_PORT: /metrics on a port of its own instead of the main one. */
  port?: number;
  /** SURFACER_METRICS_HOST: that port's address (default: the server's own). */
  host?: string;
}

const KINDS: ReadonlySet<string> = new Set(['prometheus', 'otlp', 'console', 'none']);

/** Reads the variables (pure); a message for anything it cannot start with. */
export function metricsSettings(env: NodeJS.ProcessEnv): { ok: true; settings: MetricsSettings } | { ok: false; message: string } {
  const interval = whole(env.OTEL_METRIC_EXPORT_INTERVAL, 'OTEL_METRIC_EXPORT_INTERVAL', 1);
  const timeout = whole(env.OTEL_METRIC_EXPORT_TIMEOUT, 'OTEL_METRIC_EXPORT_TIMEOUT', 1);
  const port = whole(env.SURFACER_METRICS_PORT, 'SURFACER_METRICS_PORT', 0, 65_535);
  for (const read of [interval, timeout, port]) if (typeof read === 'string') return { ok: false, message: read };
  const base = {
    exportIntervalMs: (interval as number | undefined) ?? 60_000, exportTimeoutMs: (timeout as number | undefined) ?? 30_000,
    ...(port !== undefined ? { port: port as number } : {}),
    ...(nonEmpty(env.SURFACER_METRICS_HOST) !== undefined ? { host: nonEmpty(env.SURFACER_METRICS_HOST)! } : {}),
  };
  if (nonEmpty(env.OTEL_SDK_DISABLED)?.toLowerCase() === 'true') return { ok: true, settings: { ...base, exporters: [] } };
  const url = nonEmpty(env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT)
    ?? (nonEmpty(env.OTEL_EXPORTER_OTLP_ENDPOINT) === undefined ? undefined : `${nonEmpty(env.OTEL_EXPORTER_OTLP_ENDPOINT)!.replace(/\/+$/, '')}/v1/metrics`);
  const named = nonEmpty(env.OTEL_METRICS_EXPORTER);
  const kinds = named !== undefined
    ? named.split(',').map((kind) => kind.trim().toLowerCase()).filter((kind) => kind !== '')
    : [...(url !== undefined ? ['otlp'] : []), ...(port !== undefined ? ['prometheus'] : [])];
  const unknown = kinds.filter((kind) => !KINDS.has(kind));
  if (unknown.length > 0) return { ok: false, message: `OTEL_METRICS_EXPORTER must be prometheus, otlp, console or none (got "${unknown.join(', ')}")` };
  const exporters = kinds.includes('none') ? [] : [...new Set(kinds)] as MetricsExporterKind[];
  if (port !== undefined && exporters.length > 0 && !exporters.includes('prometheus')) {
    return { ok: false, message: 'SURFACER_METRICS_PORT serves the prometheus exporter: add prometheus to OTEL_METRICS_EXPORTER' };
  }
  return { ok: true, settings: { ...base, exporters, ...(url !== undefined ? { otlpMetricsUrl: url } : {}) } };
}

export interface StartedMetrics {
  meterProvider: MeterProvider;
  /** What GET /metrics serves, when `prometheus` is asked for. */
  endpoint: MetricsEndpoint | undefined;
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}

/**
 * A MeterProvider with a reader per exporter. Not registered as the global one: createSurfacer
 * and the Redis backend are handed it (so several servers in one process, as in tests, each
 * count their own). `readers` (tests, benches) are added as they are.
 */
export async function startMetrics(settings: MetricsSettings, resource: Resource | undefined, readers: IMetricReader[] = []): Promise<StartedMetrics> {
  const sdk = await import('@opentelemetry/sdk-metrics');
  const all = [...readers];
  let endpoint: MetricsEndpoint | undefined;
  for (const kind of settings.exporters) {
    if (kind === 'prometheus') {
      const { createPrometheusEndpoint } = await import('./prometheus.ts');
      const made = createPrometheusEndpoint();
      endpoint = made;
      all.push(made.reader);
      continue;
    }
    let exporter: PushMetricExporter;
    if (kind === 'console') {
      exporter = new sdk.ConsoleMetricExporter();
    } else {
      const { OTLPMetricExporter } = await import('@opentelemetry/exporter-metrics-otlp-http');
      exporter = new OTLPMetricExporter(settings.otlpMetricsUrl !== undefined ? { url: settings.otlpMetricsUrl } : {});
    }
    all.push(new sdk.PeriodicExportingMetricReader({
      exporter, exportIntervalMillis: settings.exportIntervalMs, exportTimeoutMillis: Math.min(settings.exportTimeoutMs, settings.exportIntervalMs),
    }));
  }
  const provider = new sdk.MeterProvider({ readers: all, ...(resource !== undefined ? { resource } : {}) });
  return { meterProvider: provider, endpoint, forceFlush: () => provider.forceFlush(), shutdown: () => provider.shutdown() };
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}

/** A whole number within bounds, undefined when unset, or the message for a bad one. */
function whole(value: string | undefined, name: string, min: number, max = 999_999_999): number | string | undefined {
  const text = nonEmpty(value);
  if (text === undefined) return undefined;
  if (!/^\d{1,9}$/.test(text) || Number(text) < min || Number(text) > max) return `${name} must be a whole number from ${min} to ${max} (got "${text.slice(0, 20)}")`;
  return Number(text);
}
