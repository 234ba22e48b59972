import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createDemoApp, createFileCardLibrary, createRecordCardLibrary, parseSavedCard } from '../../app/index.ts';
import type { AppDefinition } from '../../conversation/app-definition.ts';
import { createLocalBackend, createRedisBackend, type Backend } from '../../backend/index.ts';
import { createJsonlStore, type ConversationService, type Logger } from '../../conversation/index.ts';
import type { A2uiHost, A2uiHostOptions } from '../../host-a2ui/index.ts';
import type { HostLimits, RunningServer } from '../../host-html/index.ts';
import { PlannerError, PlannerKind } from '../../llm/index.ts';
import type { Planner } from '../../planner/types.ts';
import { createSurfacer, MIN_SESSION_SECRET_LENGTH, SurfacerConfigError, type Surfacer } from '../../server/index.ts';
import { startTelemetry, TelemetryConfigError, type Telemetry } from '../../telemetry/sdk.ts';
import { createPinoLogger, logSettingsFromEnv } from '../../telemetry/log.ts';
import { surfacerMetrics } from '../../telemetry/metrics.ts';
import { createMetricsApp } from '../../telemetry/metrics-route.ts';
import { chooseAgentAuthenticate, isLoopbackHost, nodeEndOfLifeWarning, parseApiTokens } from '../../hosting/index.ts';
import { ListenError, startServer } from '../../host-html/index.ts';
import { usageOf } from '../commands-spec.ts';
import type { CliIo } from '../main.ts';
import { untilStopped } from '../until-stopped.ts';

const USAGE = usageOf('serve');

export interface ServeOptions {
  port: number;
  hostname: string;
  /**
   * A planner kind (see Language models in the README), or a planner of the caller's own (tests,
   * embedding: e.g. one that holds a turn until cancelled).
   */
  planner: PlannerKind | Planner;
  dataDir: string;
  /** Shared state on Redis (several instances); absent: the JSONL log in `dataDir`, this process only. */
  redisUrl?: string;
  env: NodeJS.ProcessEnv;
  logger: Logger;
  /** Tests and benches: A2UI host settings (hub limits, heartbeat, …). */
  a2ui?: Omit<A2uiHostOptions, 'service' | 'logger'>;
  /** Tests and benches: no fsync per log append. */
  fsync?: boolean;
  /** Tests: htmx host limits (e.g. a short SSE heartbeat); the environment's settings win. */
  hostLimits?: Partial<HostLimits>;
  /** Metrics (startTelemetry): the provider, what GET /metrics serves, and where (absent: the main port). */
  telemetry?: Pick<Telemetry, 'meterProvider' | 'metricsEndpoint' | 'metricsListen'>;
}

export interface ServeHandle extends RunningServer {
  plannerLabel: string;
  /** The agent endpoints answer without tokens (loopback callers only). */
  agentsOpen: boolean;
  conversations: ConversationService;
  a2ui: A2uiHost;
  backend: Backend;
  /** GET /metrics on a port of its own (SURFACER_METRICS_PORT), when served there. */
  metricsUrl?: string;
}

/** A setting `surfacer serve` cannot start with. */
export class ServeConfigError extends Error {
  override name = 'ServeConfigError';
}

/**
 * Everything `surfacer serve` and `surfacer mcp` run, before anything listens: the backend the
 * settings choose (Redis, or the JSONL log in the data directory), the app (the demo with its
 * card library, unless given), the Surfacer over them. Throws ServeConfigError on a setting it
 * cannot start with, having closed what it opened.
 */
export async function buildSurfacer(options: Omit<ServeOptions, 'port' | 'hostname'>, app?: AppDefinition): Promise<{ surfacer: Surfacer; backend: Backend; cards?: { close(): Promise<void> } | undefined }> {
  const secret = options.env.SURFACER_SESSION_SECRET;
  if (options.redisUrl !== undefined && (secret === undefined || secret.length < MIN_SESSION_SECRET_LENGTH)) {
    // Each instance would sign sessions with its own random secret: behind a load balancer users
    // would lose their session (and see 404 for their own conversations) on every other request.
    throw new ServeConfigError(`with --redis every instance needs the same SURFACER_SESSION_SECRET (${MIN_SESSION_SECRET_LENGTH} characters or more)`);
  }
  const commandTimeoutMs = positiveSetting(options.env, 'SURFACER_REDIS_COMMAND_TIMEOUT_MS');
  const maxInFlight = positiveSetting(options.env, 'SURFACER_REDIS_MAX_IN_FLIGHT');
  const ackReplicas = wholeSetting(options.env, 'SURFACER_REDIS_ACK_REPLICAS');
  const ackTimeoutMs = positiveSetting(options.env, 'SURFACER_REDIS_ACK_TIMEOUT_MS');
  const ackMode = options.env.SURFACER_REDIS_ACK_MODE;
  if (ackMode !== undefined && ackMode !== '' && ackMode !== 'available' && ackMode !== 'strict') {
    throw new ServeConfigError(`SURFACER_REDIS_ACK_MODE must be available or strict (got "${ackMode}")`);
  }
  const clusterFlag = options.env.SURFACER_REDIS_CLUSTER;
  if (clusterFlag !== undefined && clusterFlag !== '' && clusterFlag !== '0' && clusterFlag !== '1') {
    throw new ServeConfigError(`SURFACER_REDIS_CLUSTER must be 0 or 1 (got "${clusterFlag}")`);
  }
  const readyTimeoutMs = positiveSetting(options.env, 'SURFACER_READY_TIMEOUT_MS');
  const hostLimits = { ...options.hostLimits, ...(readyTimeoutMs !== undefined ? { readyTimeoutMs } : {}) };
  const offlineStream = offlineStreamPace(options.env.SURFACER_OFFLINE_STREAM);
  const agents = agentDoors(options.env.SURFACER_AGENTS);
  const meterProvider = options.telemetry?.meterProvider;
  const metricsListen = options.telemetry?.metricsEndpoint !== undefined ? options.telemetry.metricsListen : undefined;
  // The one place the engine is chosen: everything below sees only the Backend's interfaces.
  const backend = options.redisUrl !== undefined
    ? createRedisBackend({
      url: options.redisUrl, logger: options.logger,
      ...(options.env.SURFACER_REDIS_PREFIX ? { prefix: options.env.SURFACER_REDIS_PREFIX } : {}),
      ...(commandTimeoutMs !== undefined ? { commandTimeoutMs } : {}),
      ...(maxInFlight !== undefined ? { maxInFlight } : {}),
      ...(meterProvider ? { metrics: surfacerMetrics(meterProvider) } : {}),
      ...(clusterFlag === '1' ? { cluster: true } : {}),
      ...(ackReplicas !== undefined ? { ackReplicas } : {}),
      ...(ackTimeoutMs !== undefined ? { ackTimeoutMs } : {}),
      ...(ackMode === 'available' || ackMode === 'strict' ? { ackMode } : {}),
    })
    : createLocalBackend(createJsonlStore({ dir: options.dataDir, ...(options.fsync === false ? { fsync: false } : {}) }));
  // The demo app's own store, outside the conversation logs (docs/directives.md, Actions with side
  // effects): in the backend's shared records with Redis, so every instance saves into one library
  // with ids from one counter; in a fsynced JSONL file beside the logs otherwise.
  const cards = app !== undefined ? undefined : backend.engine === 'redis'
    ? createRecordCardLibrary(backend.records('card-library', parseSavedCard))
    : createFileCardLibrary({
      file: options.env.SURFACER_CARD_LIBRARY ?? join(options.dataDir, 'card-library', 'cards.jsonl'),
      ...(options.fsync === false ? { fsync: false } : {}),
    });
  const served = app ?? createDemoApp({ ...(cards ? { cards } : {}), ...(offlineStream ? { offlinePlanner: { stream: offlineStream } } : {}) });
  try {
    const surfacer = createSurfacer({
      app: served, planner: options.planner, backend, env: options.env, logger: options.logger,
      mode: options.env.SURFACER_STRICT === '1' ? 'strict' : 'best-effort',
      secureCookies: options.env.SURFACER_SECURE_COOKIES === '1',
      ...(options.env.SURFACER_SESSION_SECRET !== undefined ? { sessionSecret: options.env.SURFACER_SESSION_SECRET } : {}),
      ...(options.env.SURFACER_TRUSTED_ORIGINS ? { trustedOrigins: options.env.SURFACER_TRUSTED_ORIGINS.split(',').map((o) => o.trim()) } : {}),
      ...(options.a2ui ? { a2ui: options.a2ui } : {}),
      ...(agents ? { agents } : {}),
      ...(Object.keys(hostLimits).length > 0 ? { hostLimits } : {}),
      ...(meterProvider ? { meterProvider } : {}),
      // On the main port unless SURFACER_METRICS_PORT gives it one of its own.
      ...(options.telemetry?.metricsEndpoint && metricsListen === undefined ? { metricsEndpoint: options.telemetry.metricsEndpoint } : {}),
    });
    return { surfacer, backend, cards };
  } catch (error) {
    await backend.close();
    await cards?.close();
    if (error instanceof SurfacerConfigError) throw new ServeConfigError(error.message);
    throw error;
  }
}

/**
 * Builds and starts everything `npm start` runs: the htmx host and the A2UI host on one port
 * (createSurfacer). Without `app`, the demo app with its card library in the data directory.
 * Exported for tests (port 0).
 */
export async function startServe(options: ServeOptions, app?: AppDefinition): Promise<ServeHandle> {
  const { surfacer, backend, cards } = await buildSurfacer(options, app);
  const metricsListen = options.telemetry?.metricsEndpoint !== undefined ? options.telemetry.metricsListen : undefined;
  let server: RunningServer;
  try {
    server = await surfacer.listen({ port: options.port, hostname: options.hostname });
  } catch (error) {
    await surfacer.close();
    await cards?.close();
    // A bind the agent endpoints may not be open on (no SURFACER_API_TOKENS): a usage error.
    if (error instanceof SurfacerConfigError) throw new ServeConfigError(error.message);
    throw error;
  }
  let metricsServer: RunningServer | undefined;
  if (metricsListen !== undefined) {
    try {
      metricsServer = await startMetricsServer(options, metricsListen);
    } catch (error) {
      await server.close();
      await cards?.close();
      throw error;
    }
  }
  const close = async (...args: Parameters<RunningServer['close']>): Promise<void> => {
    await metricsServer?.close(...args);
    await server.close(...args);
    await cards?.close();
  };
  return {
    ...server, close, ...(metricsServer ? { metricsUrl: `${metricsServer.url}/metrics` } : {}), plannerLabel: surfacer.planner.label,
    conversations: surfacer.conversations, a2ui: surfacer.a2ui, backend, agentsOpen: surfacer.agentsOpen,
  };
}

/**
 * GET /metrics alone on SURFACER_METRICS_PORT (SURFACER_METRICS_HOST, default the server's
 * address): the same door as on the main port, so without SURFACER_API_TOKENS only on loopback.
 */
async function startMetricsServer(options: ServeOptions, listen: { port: number; host?: string }): Promise<RunningServer> {
  const hostname = listen.host ?? options.hostname;
  const auth = chooseAgentAuthenticate({ tokens: parseApiTokens(options.env.SURFACER_API_TOKENS) });
  if (auth.open && !isLoopbackHost(hostname)) {
    throw new ServeConfigError(`GET /metrics on ${hostname} needs SURFACER_API_TOKENS; set tokens or bind SURFACER_METRICS_HOST to 127.0.0.1`);
  }
  const app = createMetricsApp({ ...auth, endpoint: options.telemetry!.metricsEndpoint!, logger: options.logger });
  return startServer({ fetch: app.fetch, closeStreams: () => {} }, { port: listen.port, hostname });
}

/** A whole number of at least 1 from the environment, or undefined when unset; anything else cannot start. */
function positiveSetting(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const text = env[name];
  if (text === undefined || text === '') return undefined;
  if (!/^\d{1,9}$/.test(text) || Number(text) < 1) throw new ServeConfigError(`${name} must be a whole number of at least 1 (got "${text}")`);
  return Number(text);
}

/** A whole number (0 allowed) from the environment, or undefined when unset. */
function wholeSetting(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const text = env[name];
  if (text === undefined || text === '') return undefined;
  if (!/^\d{1,9}$/.test(text)) throw new ServeConfigError(`${name} must be a whole number (got "${text}")`);
  return Number(text);
}

/**
 * The process's log on stderr (stdout is the command's own output): pino JSON lines, or
 * pino-pretty's readable ones on a terminal or with SURFACER_LOG_FORMAT=pretty (src/telemetry/log.ts).
 */
function processLogger(io: CliIo): { ok: true; logger: Logger } | { ok: false; message: string } {
  const isTty = (io.stderr as { isTTY?: boolean }).isTTY === true;
  const settings = logSettingsFromEnv(io.env, isTty);
  if ('error' in settings) return { ok: false, message: settings.error };
  return { ok: true, logger: createPinoLogger({ ...settings, destination: io.stderr, colorize: isTty && settings.format === 'pretty' }) };
}

/** `surfacer serve`: runs until SIGINT/SIGTERM (or `stop` aborts), then shuts down gracefully. */
export async function run(args: string[], io: CliIo, stop?: AbortSignal): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args, allowPositionals: false, strict: true,
      options: {
        port: { type: 'string' }, planner: { type: 'string' }, data: { type: 'string' }, host: { type: 'string' },
        redis: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    io.stderr.write(`surfacer serve: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.help) { io.stdout.write(USAGE); return 0; }
  const portText = values.port ?? io.env.PORT ?? '8787';
  const port = Number(portText);
  if (!/^\d{1,5}$/.test(portText) || port > 65535) {
    io.stderr.write(`surfacer serve: ${values.port !== undefined ? '--port' : 'PORT'} is "${portText}"; it must be a whole number from 0 to 65535 (0 picks a free port)\n${USAGE}`);
    return 2;
  }
  const chosen = plannerAndStore(values, io.env);
  if ('problem' in chosen) {
    io.stderr.write(`surfacer serve: ${chosen.problem}\n${USAGE}`);
    return 2;
  }
  const { planner, redisUrl } = chosen;
  const made = processLogger(io);
  if (!made.ok) {
    io.stderr.write(`surfacer serve: ${made.message}\n${USAGE}`);
    return 2;
  }
  const { logger } = made;
  // Before the server: spans of the first requests already go to the exporter. Off (the API's
  // no-op) unless the OTEL_* variables ask for it; see docs/operate.md.
  let telemetry: Telemetry;
  try {
    telemetry = await startTelemetry({ env: io.env });
  } catch (error) {
    if (!(error instanceof TelemetryConfigError)) throw error;
    io.stderr.write(`surfacer serve: ${error.message}\n`);
    return 2;
  }
  let server: ServeHandle;
  try {
    server = await startServe({
      port, planner, hostname: values.host ?? io.env.HOST ?? '127.0.0.1', ...(redisUrl ? { redisUrl } : {}),
      dataDir: values.data ?? io.env.SURFACER_DATA_DIR ?? '.data/conversations', env: io.env, logger, telemetry,
    });
  } catch (error) {
    await telemetry.shutdown();
    io.stderr.write(`surfacer serve: ${startProblem(error)}\n`);
    return 2;
  }
  io.stdout.write(`Surfacer listening on ${server.url} (${server.plannerLabel}; ${server.backend.engine === 'redis' ? 'shared state on Redis' : 'JSONL log'}`
    + `${server.agentsOpen ? '; agent endpoints open to this machine without tokens' : ''})\n`);
  if (server.metricsUrl !== undefined) io.stdout.write(`Metrics for Prometheus at ${server.metricsUrl}\n`);
  const pastEndOfLife = nodeEndOfLifeWarning(process.version, new Date());
  if (pastEndOfLife !== undefined) logger.warn(pastEndOfLife);
  await untilStopped(stop);
  io.stdout.write('Shutting down…\n');
  await server.close();
  // After the server: the spans of the last requests are flushed, not dropped.
  await telemetry.shutdown();
  return 0;
}

const AGENT_DOORS = { 'ag-ui': 'agui', a2a: 'a2a', mcp: 'mcp' } as const;

/** SURFACER_AGENTS: the agent endpoints to serve (comma-separated ag-ui, a2a, mcp; `none`); unset: all. */
export function agentDoors(value: string | undefined): { agui: boolean; a2a: boolean; mcp: boolean } | undefined {
  const text = value?.trim() ?? '';
  if (text === '') return undefined;
  const names = text === 'none' ? [] : text.split(/[\s,]+/).filter((n) => n !== '');
  const unknown = names.filter((n) => !Object.hasOwn(AGENT_DOORS, n));
  if (unknown.length > 0) throw new ServeConfigError(`SURFACER_AGENTS is "${text}"; it must list ag-ui, a2a and mcp (comma-separated), or be none`);
  return { agui: names.includes('ag-ui'), a2a: names.includes('a2a'), mcp: names.includes('mcp') };
}

/** A setting the server cannot start with, as a line for stderr; anything else is rethrown. */
export function startProblem(error: unknown): string {
  if (error instanceof ServeConfigError) return error.message;
  if (error instanceof ListenError) {
    return error.code === 'EADDRNOTAVAIL'
      ? `${error.message}; choose another with --host ADDR or HOST=ADDR (127.0.0.1 is this machine)`
      : `${error.message}; choose another port with --port N or PORT=N (0 picks a free one)`;
  }
  if (error instanceof PlannerError) return `${error.error.message} ${error.error.technical_detail}`;
  throw error;
}

/**
 * `--planner` and `--redis` (or their variables), as `serve` and `mcp` both take them; or the
 * problem with them, in a line for stderr.
 */
export function plannerAndStore(values: { planner?: string | undefined; redis?: string | undefined }, env: NodeJS.ProcessEnv):
  { planner: PlannerKind; redisUrl?: string } | { problem: string } {
  // A problem names what the person set: the flag when given, else the variable.
  const plannerText = values.planner ?? env.SURFACER_PLANNER ?? 'offline';
  const planner = PlannerKind.safeParse(plannerText);
  if (!planner.success) {
    return { problem: `${values.planner !== undefined ? '--planner' : 'SURFACER_PLANNER'} is "${plannerText}"; it must be one of ${PlannerKind.options.join(', ')}` };
  }
  const redisUrl = values.redis ?? env.SURFACER_REDIS_URL;
  // Several comma-separated URLs: seeds of a Redis Cluster.
  if (redisUrl !== undefined && !redisUrl.split(',').every((u) => /^rediss?:\/\//.test(u.trim()))) {
    return { problem: `${values.redis !== undefined ? '--redis' : 'SURFACER_REDIS_URL'} is "${redisUrl}"; it must be a redis:// or rediss:// URL (or several, comma-separated, for a cluster)` };
  }
  return { planner: planner.data, ...(redisUrl === undefined ? {} : { redisUrl }) };
}

/**
 * SURFACER_OFFLINE_STREAM=<chars>/<ms>: the offline planner streams its answer, `chars`
 * characters every `ms` (docs/streaming.md) — progress without a model, for demos and browser
 * tests. Anything else: off.
 */
function offlineStreamPace(value: string | undefined): { chars: number; everyMs: number } | undefined {
  const match = /^(\d{1,4})\/(\d{1,5})$/.exec(value?.trim() ?? '');
  return match === null ? undefined : { chars: Math.max(1, Number(match[1])), everyMs: Number(match[2]) };
}
