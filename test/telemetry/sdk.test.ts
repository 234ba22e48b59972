import { context, propagation, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { NO_TELEMETRY, startTelemetry, telemetrySettings, TelemetryConfigError, type Telemetry } from '../../src/telemetry/sdk.ts';

describe('telemetrySettings: the standard OTEL_* variables', () => {
  it('starts nothing when no variable asks for it', () => {
    expect(telemetrySettings({})).toEqual({ ok: true, settings: { traces: [], serviceName: 'surfacer' } });
  });

  it('an OTLP endpoint alone means the OTLP exporter, on its /v1/traces path', () => {
    expect(telemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318/' })).toEqual({
      ok: true, settings: { traces: ['otlp'], serviceName: 'surfacer', otlpTracesUrl: 'http://127.0.0.1:4318/v1/traces' },
    });
    // The signal-specific endpoint is used as given.
    const specific = telemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://b:4318/t' });
    expect(specific.ok && specific.settings.otlpTracesUrl).toBe('http://b:4318/t');
  });

  it('reads a list of exporters; none wins; unknown names are refused', () => {
    const both = telemetrySettings({ OTEL_TRACES_EXPORTER: 'console, otlp', OTEL_SERVICE_NAME: 'desk' });
    expect(both).toEqual({ ok: true, settings: { traces: ['console', 'otlp'], serviceName: 'desk' } });
    const none = telemetrySettings({ OTEL_TRACES_EXPORTER: 'otlp,none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318' });
    expect(none.ok && none.settings.traces).toEqual([]);
    const bad = telemetrySettings({ OTEL_TRACES_EXPORTER: 'zipkin' });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.message).toContain('zipkin');
  });

  it('OTEL_SDK_DISABLED=true turns everything off', () => {
    const off = telemetrySettings({ OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'otlp' });
    expect(off.ok && off.settings.traces).toEqual([]);
  });
});

describe('startTelemetry', () => {
  let started: Telemetry = NO_TELEMETRY;
  afterEach(async () => { await started.shutdown(); started = NO_TELEMETRY; });

  it('without any variable returns the no-op and registers nothing', async () => {
    started = await startTelemetry({ env: {} });
    expect(started).toBe(NO_TELEMETRY);
    expect(trace.getTracer('t').startSpan('x').isRecording()).toBe(false);
  });

  it('refuses an unknown exporter name with a TelemetryConfigError', async () => {
    await expect(startTelemetry({ env: { OTEL_TRACES_EXPORTER: 'jaeger' } })).rejects.toBeInstanceOf(TelemetryConfigError);
  });

  it('registers a provider, the context manager and the W3C propagator; shutdown unregisters them', async () => {
    const exporter = new InMemorySpanExporter();
    started = await startTelemetry({ env: { OTEL_SERVICE_NAME: 'surfacer-test' }, spanProcessors: [new SimpleSpanProcessor(exporter)] });
    expect(started.tracing).toBe(true);
    const tracer = trace.getTracer('t');
    await tracer.startActiveSpan('outer', async (outer) => {
      // Context flows through an await (the AsyncLocalStorage context manager).
      await new Promise((resolve) => setTimeout(resolve, 1));
      tracer.startSpan('inner').end();
      const carrier: Record<string, string> = {};
      propagation.inject(context.active(), carrier);
      expect(carrier.traceparent).toMatch(new RegExp(`^00-${outer.spanContext().traceId}-${outer.spanContext().spanId}-01$`));
      outer.end();
    });
    const spans = exporter.getFinishedSpans();
    const outer = spans.find((s) => s.name === 'outer');
    const inner = spans.find((s) => s.name === 'inner');
    expect(inner?.parentSpanContext?.spanId).toBe(outer?.spanContext().spanId);
    expect(outer?.resource.attributes['service.name']).toBe('surfacer-test');
    expect(outer?.resource.attributes['service.version']).toMatch(/^\d+\.\d+\.\d+/);
    expect(typeof outer?.resource.attributes['service.instance.id']).toBe('string');

    await started.shutdown();
    expect(trace.getTracer('t').startSpan('after').isRecording()).toBe(false);
    // A second start in the same process registers again.
    started = await startTelemetry({ env: {}, spanProcessors: [new SimpleSpanProcessor(exporter)] });
    expect(trace.getTracer('t').startSpan('again').isRecording()).toBe(true);
  });

  it('OTEL_SDK_DISABLED wins even over processors given by a test', async () => {
    started = await startTelemetry({ env: { OTEL_SDK_DISABLED: 'true' }, spanProcessors: [new SimpleSpanProcessor(new InMemorySpanExporter())] });
    expect(started.tracing).toBe(false);
  });
});
