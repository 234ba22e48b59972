// The OpenTelemetry SDK wiring for `surfacer serve` (the imperative shell). The library itself
// depends only on @opentelemetry/api, which is a no-op until something registers a provider;
// this module is that something. The SDK packages are imported lazily, so a server started
// without any OTEL_* variable never loads them.
//
// Which variables decide (the standard ones, read from the `env` given, so tests and embedders
// can pass their own): OTEL_SDK_DISABLED, OTEL_TRACES_EXPORTER, OTEL_EXPORTER_OTLP_ENDPOINT,
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, OTEL_SERVICE_NAME. The SDK itself reads its own tuning
// (OTEL_TRACES_SAMPLER, OTEL_BSP_*, OTEL_EXPORTER_OTLP_HEADERS, OTEL_RESOURCE_ATTRIBUTES, …)
// from the process environment, as it does everywhere else.
import { randomUUID } from 'node:crypto';
import { context, propagation, trace, type MeterProvider, type TracerProvider } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { IMetricReader } from '@opentelemetry/sdk-metrics';
import type { SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { surfacerVersion } from '../package-root.ts';
import { metricsSettings, startMetrics, type MetricsSettings } from './metrics-sdk.ts';
import type { MetricsEndpoint } from './metrics-route.ts';

/** Where spans go: the OTLP/HTTP exporter, the console (for a look while developing), or nowhere. */
export type TraceExporterKind = 'otlp' | 'console';

export interface TelemetrySettings {
  /** Empty: no tracer provider is started (the API stays a no-op). */
  traces: TraceExporterKind[];
  serviceName: string;
  /** OTLP traces endpoint from the env given; absent: the exporter's own default (process env, then localhost:4318). */
  otlpTracesUrl?: string;
}

export type TelemetrySettingsResult =
  | { ok: true; settings: TelemetrySettings }
  | { ok: false; message: string };

const TRACE_EXPORTERS: ReadonlySet<string> = new Set(['otlp', 'console', 'none']);

/**
 * Reads the standard OTEL_* variables (pure). The spec's default exporter is `otlp`, but a server
 * that nobody asked to export would then retry a collector on localhost forever; so traces start
 * only when OTEL_TRACES_EXPORTER names an exporter or an OTLP endpoint is set.
 */
export function telemetrySettings(env: NodeJS.ProcessEnv): TelemetrySettingsResult {
  const serviceName = nonEmpty(env.OTEL_SERVICE_NAME) ?? 'surfacer';
  if (nonEmpty(env.OTEL_SDK_DISABLED)?.toLowerCase() === 'true') return { ok: true, settings: { traces: [], serviceName } };
  const tracesUrl = nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
    ?? joinUrl(nonEmpty(env.OTEL_EXPORTER_OTLP_ENDPOINT), 'v1/traces');
  const named = nonEmpty(env.OTEL_TRACES_EXPORTER);
  const kinds = named !== undefined
    ? named.split(',').map((kind) => kind.trim().toLowerCase()).filter((kind) => kind !== '')
    : tracesUrl !== undefined ? ['otlp'] : [];
  const unknown = kinds.filter((kind) => !TRACE_EXPORTERS.has(kind));
  if (unknown.length > 0) {
    return { ok: false, message: `OTEL_TRACES_EXPORTER must be otlp, console or none (got "${unknown.join(', ')}")` };
  }
  // `none` wins over anything listed beside it, as the spec says.
  const traces = kinds.includes('none') ? [] : [...new Set(kinds)] as TraceExporterKind[];
  return { ok: true, settings: { traces, serviceName, ...(tracesUrl !== undefined ? { otlpTracesUrl: tracesUrl } : {}) } };
}

export interface StartTelemetryOptions {
  env: NodeJS.ProcessEnv;
  /**
   * Tests and benches: span processors to use instead of the exporters the env names (e.g. an
   * in-memory exporter, or one that drops everything). Given, traces start whatever the env says
   * (unless OTEL_SDK_DISABLED).
   */
  spanProcessors?: SpanProcessor[];
  /** Tests and benches: exporters to batch, instead of the ones the env names. */
  traceExporters?: SpanExporter[];
  /** Tests and benches: metric readers added to the ones the env names; given, metrics start (unless OTEL_SDK_DISABLED). */
  metricReaders?: IMetricReader[];
}

export interface Telemetry {
  /** True when a tracer provider was registered with the API. */
  tracing: boolean;
  /** The registered provider (undefined when tracing is off). */
  tracerProvider: TracerProvider | undefined;
  /** Metrics (metrics-sdk.ts): the provider to hand createSurfacer and the Redis backend; undefined when off. */
  meterProvider: MeterProvider | undefined;
  /** What GET /metrics serves (OTEL_METRICS_EXPORTER=prometheus); undefined: no route. */
  metricsEndpoint: MetricsEndpoint | undefined;
  /** Where GET /metrics is served: SURFACER_METRICS_PORT / _HOST (absent: the main port). */
  metricsListen: { port: number; host?: string } | undefined;
  /** The resource (service name, version, instance id) shared by every signal. */
  resource: Resource | undefined;
  /** Flushes and stops every provider and unregisters them from the API; safe to call twice. */
  shutdown(): Promise<void>;
  /** Exports what is buffered now (tests, before reading an exporter). */
  forceFlush(): Promise<void>;
}

/** Telemetry that does nothing: what `surfacer serve` holds when no OTEL_* variable asks for more. */
export const NO_TELEMETRY: Telemetry = {
  tracing: false, tracerProvider: undefined, resource: undefined, meterProvider: undefined, metricsEndpoint: undefined, metricsListen: undefined,
  shutdown: async () => {}, forceFlush: async () => {},
};

/** Thrown by startTelemetry for settings it cannot start with (serve turns it into a usage error). */
export class TelemetryConfigError extends Error {
  override name = 'TelemetryConfigError';
}

/**
 * Starts what the environment asks for and registers it with @opentelemetry/api (global tracer
 * provider, the AsyncLocalStorage context manager so context flows through awaits, and the W3C
 * trace-context + baggage propagators). Other signals (metrics) are added here beside traces and
 * share `resource`.
 */
export async function startTelemetry(options: StartTelemetryOptions): Promise<Telemetry> {
  const read = telemetrySettings(options.env);
  if (!read.ok) throw new TelemetryConfigError(read.message);
  const { settings } = read;
  const disabled = nonEmpty(options.env.OTEL_SDK_DISABLED)?.toLowerCase() === 'true';
  const overridden = options.spanProcessors !== undefined || options.traceExporters !== undefined;
  const wantsTraces = !disabled && (overridden || settings.traces.length > 0);
  const metricsRead = metricsSettings(options.env);
  if (!metricsRead.ok) throw new TelemetryConfigError(metricsRead.message);
  const wantsMetrics = !disabled && (options.metricReaders !== undefined || metricsRead.settings.exporters.length > 0);
  if (!wantsTraces && !wantsMetrics) return NO_TELEMETRY;

  const resource = await surfacerResource(settings.serviceName);
  const metrics = wantsMetrics ? await startMetrics(metricsRead.settings, resource, options.metricReaders) : undefined;
  const metricsPart = {
    meterProvider: metrics?.meterProvider, metricsEndpoint: metrics?.endpoint, metricsListen: metricsListenOf(metrics, metricsRead.settings),
  };
  if (!wantsTraces) {
    return { ...NO_TELEMETRY, ...metricsPart, resource, forceFlush: () => metrics!.forceFlush(), shutdown: once(() => metrics!.shutdown()) };
  }
  const processors = await traceProcessors(settings, options);
  const { NodeTracerProvider } = await import('@opentelemetry/sdk-trace-node');
  const provider = new NodeTracerProvider({ resource, spanProcessors: processors });
  provider.register();
  let stopped: Promise<void> | undefined;
  return {
    tracing: true, tracerProvider: provider, resource, ...metricsPart,
    forceFlush: async () => { await provider.forceFlush(); await metrics?.forceFlush(); },
    shutdown: () => {
      stopped ??= (async () => {
        try {
          await Promise.all([provider.shutdown(), metrics?.shutdown()]);
        } finally {
          // Unregistered so a later start (tests, a restarted server in one process) can register again.
          trace.disable();
          context.disable();
          propagation.disable();
        }
      })();
      return stopped;
    },
  };
}

function metricsListenOf(metrics: { endpoint: MetricsEndpoint | undefined } | undefined, settings: MetricsSettings): Telemetry['metricsListen'] {
  if (metrics?.endpoint === undefined || settings.port === undefined) return undefined;
  return { port: settings.port, ...(settings.host !== undefined ? { host: settings.host } : {}) };
}

/** Runs `task` the first time; later calls get the same promise. */
function once(task: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => (done ??= task());
}

async function surfacerResource(serviceName: string): Promise<Resource> {
  const { defaultResource, detectResources, envDetector, resourceFromAttributes } = await import('@opentelemetry/resources');
  // Later merges win: our defaults over the SDK's, OTEL_RESOURCE_ATTRIBUTES over ours, and the
  // service name from the env given over all of them. The instance id tells instances apart when
  // several share Redis and one trace crosses them.
  return defaultResource()
    .merge(resourceFromAttributes({ 'service.version': surfacerVersion(), 'service.instance.id': randomUUID() }))
    .merge(detectResources({ detectors: [envDetector] }))
    .merge(resourceFromAttributes({ 'service.name': serviceName }));
}

async function traceProcessors(settings: TelemetrySettings, options: StartTelemetryOptions): Promise<SpanProcessor[]> {
  if (options.spanProcessors !== undefined) return options.spanProcessors;
  const { BatchSpanProcessor, SimpleSpanProcessor, ConsoleSpanExporter } = await import('@opentelemetry/sdk-trace-base');
  if (options.traceExporters !== undefined) return options.traceExporters.map((exporter) => new BatchSpanProcessor(exporter));
  const processors: SpanProcessor[] = [];
  for (const kind of settings.traces) {
    if (kind === 'console') {
      // Unbatched: the console exporter is for watching spans as they end.
      processors.push(new SimpleSpanProcessor(new ConsoleSpanExporter()));
    } else {
      const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
      processors.push(new BatchSpanProcessor(new OTLPTraceExporter(settings.otlpTracesUrl !== undefined ? { url: settings.otlpTracesUrl } : {})));
    }
  }
  return processors;
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}

function joinUrl(base: string | undefined, path: string): string | undefined {
  if (base === undefined) return undefined;
  return `${base.replace(/\/+$/, '')}/${path}`;
}
