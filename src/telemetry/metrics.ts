import { metrics as otelMetrics, type Attributes, type Meter, type MeterProvider } from '@opentelemetry/api';

/*
 * Surfacer's metrics, through @opentelemetry/api only: without an SDK the global meter is the
 * API's no-op one and every record below is an empty call. `surfacer serve` registers the SDK
 * (src/telemetry/sdk.ts); an embedding app passes its own MeterProvider to createSurfacer.
 *
 * The GenAI names and attributes follow the OpenTelemetry GenAI semantic conventions
 * (experimental: their names are copied here, as OTel advises for incubating conventions,
 * rather than imported from the semantic-conventions package's unstable entry point).
 */

/** The instrumentation scope every instrument is created under. */
export const SURFACER_METER_NAME = 'surfacer';

// GenAI conventions (semconv 1.40): metric and attribute names, bucket boundaries they advise.
export const GEN_AI_TOKEN_USAGE = 'gen_ai.client.token.usage';
export const GEN_AI_OPERATION_DURATION = 'gen_ai.client.operation.duration';
const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];
const GEN_AI_SECONDS_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
/** Surfacer's own latencies are mostly sub-millisecond to a few hundred (fan-out, Redis). */
const FAST_SECONDS_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** Where a live stream goes: the htmx page's SSE, or an A2UI client's (v0.8 / v0.9). */
export type StreamTransport = 'htmx' | 'a2ui';

/** One model request as the planner made it (a repair follow-up is one more). */
export interface ModelCallRecord {
  /** `gen_ai.provider.name`: `openai`, `ollama`, … (the planner's name). */
  provider: string;
  requestModel?: string;
  responseModel?: string;
  seconds: number;
  /** `error.type` when the call failed (the canonical code). */
  errorType?: string;
  inputTokens?: number;
  outputTokens?: number;
}

export interface TurnRecord {
  /** The trace's outcome (`applied`, `planner_failed`, `cancelled`), or `refused` when the turn never ran. */
  outcome: string;
  /** The canonical code of a refusal or a planner failure. */
  errorType?: string;
  /** Repair follow-ups the turn asked for (0: the first answer passed, or no answer). */
  repairs: number;
  /** Every repair was used and the last answer still failed. */
  repairsExhausted: boolean;
  seconds: number;
}

export type ActionOutcome = 'applied' | 'replayed' | 'recover' | 'rejected';

export type LogAppendOutcome = 'ok' | 'conflict' | 'unavailable' | 'failed';

/** What Surfacer records; every method is cheap and never throws. */
export interface SurfacerMetrics {
  modelCall(call: ModelCallRecord): void;
  turn(turn: TurnRecord): void;
  action(outcome: ActionOutcome, errorType?: string): void;
  /** A live stream opened; the function returned counts it closed (once, however often it is called). */
  streamOpened(transport: StreamTransport, version?: string): () => void;
  /** A live stream this instance ended itself: its client fell behind (`slow`) or its conversation was forgotten. */
  streamCut(transport: StreamTransport, reason: string, version?: string): void;
  /** A change compiled and handed to every live stream of the conversation on this instance. */
  fanout(seconds: number, version: string): void;
  /** One Redis command (or pipeline) answered or failed; `errorType` names the failure. */
  redisCommand(seconds: number, errorType?: string): void;
  /** One append to a conversation log, as it ended. */
  logAppend(outcome: LogAppendOutcome, kind: string): void;
  /** A durable Redis write acknowledged with fewer replicas than configured, because its primary had no more (SURFACER_REDIS_ACK_MODE available). */
  redisUnreplicated(): void;
  /** The model stopped answering and the offline planner answers in its place (`true`), or it answers again (`false`). */
  plannerFallback(active: boolean): void;
}

/** Builds the instruments once on `meter`; with the API's no-op meter, every record is a no-op. */
export function createSurfacerMetrics(meter: Meter): SurfacerMetrics {
  const tokenUsage = meter.createHistogram(GEN_AI_TOKEN_USAGE, {
    unit: '{token}', description: 'Number of input and output tokens used', advice: { explicitBucketBoundaries: TOKEN_BUCKETS },
  });
  const operationDuration = meter.createHistogram(GEN_AI_OPERATION_DURATION, {
    unit: 's', description: 'GenAI operation duration', advice: { explicitBucketBoundaries: GEN_AI_SECONDS_BUCKETS },
  });
  const turns = meter.createCounter('surfacer.turns', { unit: '{turn}', description: 'Planner turns, by outcome' });
  const turnDuration = meter.createHistogram('surfacer.turn.duration', {
    unit: 's', description: 'Planner turn duration, from the request to the answer applied', advice: { explicitBucketBoundaries: GEN_AI_SECONDS_BUCKETS },
  });
  const repairs = meter.createCounter('surfacer.repairs', { unit: '{repair}', description: 'Repair follow-ups asked of the model' });
  const actions = meter.createCounter('surfacer.actions', { unit: '{action}', description: 'User actions through the ingress, by outcome and canonical code' });
  const streams = meter.createUpDownCounter('surfacer.streams.active', { unit: '{stream}', description: 'Live event streams held by this instance' });
  const cuts = meter.createCounter('surfacer.streams.cut', { unit: '{stream}', description: 'Live streams ended by this instance because the client fell behind or the conversation was forgotten' });
  const fanout = meter.createHistogram('surfacer.fanout.duration', {
    unit: 's', description: 'Time to compile a change and hand it to every live stream of its conversation', advice: { explicitBucketBoundaries: FAST_SECONDS_BUCKETS },
  });
  const redisDuration = meter.createHistogram('surfacer.redis.command.duration', {
    unit: 's', description: 'Redis command round trip, as the caller waited for it', advice: { explicitBucketBoundaries: FAST_SECONDS_BUCKETS },
  });
  const redisErrors = meter.createCounter('surfacer.redis.command.errors', { unit: '{command}', description: 'Redis commands that failed, by error type' });
  const appends = meter.createCounter('surfacer.log.appends', { unit: '{entry}', description: 'Appends to conversation logs, by outcome' });
  const fallbacks = meter.createUpDownCounter('surfacer.planner.fallback', {
    unit: '{planner}', description: 'Model planners answered by the offline planner now, because the model cannot be reached (1 while it lasts)',
  });
  const unreplicated = meter.createCounter('surfacer.redis.writes.unreplicated', {
    unit: '{write}', description: 'Durable Redis writes acknowledged with fewer replicas than configured, because their primary had no more',
  });

  return {
    modelCall(call) {
      const attributes: Attributes = {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': call.provider,
        ...(call.requestModel !== undefined ? { 'gen_ai.request.model': call.requestModel } : {}),
        ...(call.responseModel !== undefined ? { 'gen_ai.response.model': call.responseModel } : {}),
      };
      operationDuration.record(call.seconds, call.errorType !== undefined ? { ...attributes, 'error.type': call.errorType } : attributes);
      // The conventions ask for no token metric when the provider reported none (never a guess).
      if (call.inputTokens !== undefined) tokenUsage.record(call.inputTokens, { ...attributes, 'gen_ai.token.type': 'input' });
      if (call.outputTokens !== undefined) tokenUsage.record(call.outputTokens, { ...attributes, 'gen_ai.token.type': 'output' });
    },
    turn(turn) {
      const attributes: Attributes = {
        'surfacer.turn.outcome': turn.outcome, 'surfacer.turn.repaired': turn.repairs > 0,
        ...(turn.errorType !== undefined ? { 'error.type': turn.errorType } : {}),
      };
      turns.add(1, attributes);
      turnDuration.record(turn.seconds, { 'surfacer.turn.outcome': turn.outcome });
      if (turn.repairs > 0) repairs.add(turn.repairs, { 'surfacer.repair.exhausted': turn.repairsExhausted });
    },
    action(outcome, errorType) {
      actions.add(1, errorType !== undefined ? { 'surfacer.action.outcome': outcome, 'error.type': errorType } : { 'surfacer.action.outcome': outcome });
    },
    streamOpened(transport, version) {
      const attributes: Attributes = { 'surfacer.transport': transport, ...(version !== undefined ? { 'surfacer.a2ui.version': version } : {}) };
      streams.add(1, attributes);
      let open = true;
      return () => {
        if (!open) return;
        open = false;
        streams.add(-1, attributes);
      };
    },
    streamCut(transport, reason, version) {
      cuts.add(1, { 'surfacer.transport': transport, 'surfacer.stream.cut_reason': reason, ...(version !== undefined ? { 'surfacer.a2ui.version': version } : {}) });
    },
    fanout(seconds, version) {
      fanout.record(seconds, { 'surfacer.a2ui.version': version });
    },
    redisCommand(seconds, errorType) {
      redisDuration.record(seconds, errorType !== undefined ? { 'error.type': errorType } : {});
      if (errorType !== undefined) redisErrors.add(1, { 'error.type': errorType });
    },
    logAppend(outcome, kind) {
      appends.add(1, { 'surfacer.log.outcome': outcome, 'surfacer.log.entry': kind });
    },
    redisUnreplicated() {
      unreplicated.add(1);
    },
    plannerFallback(active) {
      fallbacks.add(active ? 1 : -1);
    },
  };
}

/**
 * The metrics of `provider`, or of the global MeterProvider (the API's no-op one until an SDK
 * registers). Read when a component is built: a provider registered later is not seen by it.
 */
export function surfacerMetrics(provider?: MeterProvider): SurfacerMetrics {
  return createSurfacerMetrics((provider ?? otelMetrics.getMeterProvider()).getMeter(SURFACER_METER_NAME));
}

/** Seconds since a `performance.now()` reading. */
export function secondsSince(startedAt: number): number {
  return (performance.now() - startedAt) / 1000;
}
