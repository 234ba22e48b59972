import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { MeterProvider } from '@opentelemetry/api';
import type { Hono } from 'hono';
import { createLocalBackend, type Backend } from '../backend/index.ts';
import { safeResolveTheme } from '../app-kit/index.ts';
import type { AppDefinition } from '../conversation/app-definition.ts';
import {
  createMemoryStore, silentLogger, type ConversationService, type ConversationStore, type DirectivesMode, type Logger, type ServiceLimits,
} from '../conversation/index.ts';
import { directiveJsonSchema, renderSystemPrompt } from '../directives/index.ts';
import { createA2uiHost, type A2uiHost, type A2uiHostOptions } from '../host-a2ui/index.ts';
import { AGUI_PATH, createAguiHost, type AguiHost } from '../host-agui/index.ts';
import { createApp, createConversationStack, DEFAULT_HOST_LIMITS, startServer, type HostLimits, type RunningServer } from '../host-html/index.ts';
import {
  agentCors, AgentOriginsError, agentGate, chooseAgentAuthenticate, parseAgentOrigins, parsedUrl, isLoopbackHost, parseApiTokens, type Authenticate,
} from '../hosting/index.ts';
import { A2A_PATH, AGENT_CARD_PATH, createA2aHost } from '../host-a2a/index.ts';
import { createMcpHost, MCP_PATH, mcpViewHtml, PROTECTED_RESOURCE_PATHS, type McpHost } from '../host-mcp/index.ts';
import { DEFAULT_IDEMPOTENCY_TTL_MS } from '../ingress/index.ts';
import { createConfiguredPlanner, plannerConfigFromEnv, type PlannerKind } from '../llm/index.ts';
import type { Planner } from '../planner/types.ts';
import { instrumentPlanner } from '../telemetry/instrument.ts';
import { instrumentService, instrumentStore } from './instrument.ts';
import { surfacerMetrics, type SurfacerMetrics } from '../telemetry/metrics.ts';
import { surfacerVersion } from '../package-root.ts';
import { METRICS_PATH, metricsHandler, type MetricsEndpoint } from '../telemetry/metrics-route.ts';
import { createSystemSource, type EntropySource } from '../ui-ir/index.ts';

/** Options createSurfacer cannot start with. */
export class SurfacerConfigError extends Error {
  override name = 'SurfacerConfigError';
}

/** Shorter session secrets are refused (a random one is used instead, with a warning). */
export const MIN_SESSION_SECRET_LENGTH = 16;

export interface SurfacerOptions {
  /** The product: its directives, actions and offline planner (see README "Build your own app"). */
  app: AppDefinition;
  /**
   * A planner of your own, or a kind configured from `env` (README "Language models"). Default
   * `'offline'`: the app's own offline planner.
   */
  planner?: PlannerKind | Planner;
  /**
   * Where shared state lives (src/backend: the local JSONL/memory log, or Redis for several
   * instances). Default: a local backend over `store`.
   */
  backend?: Backend;
  /** The conversation log when no `backend` is given. Default: in memory (lost on restart). */
  store?: ConversationStore;
  /** Signs session cookies; at least 16 characters. Default: random (sessions end with the process). */
  sessionSecret?: string;
  /** Mark cookies Secure (serve behind HTTPS). */
  secureCookies?: boolean;
  /** Origins besides the request's own accepted by the form Origin check (behind a proxy). */
  trustedOrigins?: readonly string[];
  /** `strict` refuses model output that needed repair (README "Directives"). Default `best-effort`. */
  mode?: DirectivesMode;
  /** Model settings when `planner` is a kind (OLLAMA_HOST, OPENAI_API_KEY, …). Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
  /** Clock, ids and nonces (tests inject a seeded source). Default: the system's. */
  entropy?: EntropySource;
  serviceLimits?: Partial<ServiceLimits>;
  hostLimits?: Partial<HostLimits>;
  /** A2UI host settings (hub limits, heartbeat, …). */
  a2ui?: Omit<A2uiHostOptions, 'service' | 'logger'>;
  /** The agent endpoints, all mounted unless turned off here: AG-UI (`POST /ag-ui`), A2A, MCP (`/mcp`). */
  agents?: { agui?: boolean; a2a?: boolean; mcp?: boolean };
  /**
   * Authorization servers the MCP door's Protected Resource Metadata names (RFC 9728), for MCP
   * hosts that sign their users in with OAuth (docs/connect-mcp.md). Default:
   * `SURFACER_MCP_AUTHORIZATION_SERVERS` in `env` (comma-separated https URLs); none without it.
   */
  mcpAuthorizationServers?: readonly string[];
  /**
   * Origins whose pages may call the agent endpoints from a browser (CORS), e.g.
   * `['https://app.example.com']`. Default: `SURFACER_AGENT_ORIGINS` in `env` (comma-separated);
   * none without it. Callers still need a token: this only lets their browser read the answers.
   */
  agentOrigins?: readonly string[];
  /**
   * The origin where the MCP App view can reach this server (its public origin, e.g.
   * `https://surfacer.example.com`). Set, the view's resource declares it
   * (`_meta.ui.csp.connectDomains`), every UI tool result names the conversation's A2UI v0.9
   * stream there (`structuredContent.stream.url`, its token in the URL), and that stream answers
   * a cross-origin EventSource: in a host that allows the origin, changes made on other doors
   * reach the view live. Default: `SURFACER_MCP_VIEW_ORIGIN` in `env`; unset, the view makes no
   * request of its own (docs/connect-mcp.md, "The view").
   */
  mcpViewStreamOrigin?: string;
  /**
   * Who may call the agent endpoints. Default: bearer tokens from `SURFACER_API_TOKENS` in `env`;
   * with none, every caller is one local principal and `listen` refuses a non-loopback bind.
   */
  authenticate?: Authenticate;
  /**
   * Where metrics go (docs/operate.md). Default: the global MeterProvider, the OpenTelemetry
   * API's no-op one unless an SDK registered before createSurfacer.
   */
  meterProvider?: MeterProvider;
  /**
   * Serves `GET /metrics` (Prometheus text) behind the agent endpoints' door: bearer tokens from
   * `SURFACER_API_TOKENS` (or `authenticate`), loopback callers only without. Absent: no route.
   */
  metricsEndpoint?: MetricsEndpoint;
}

export interface ListenOptions {
  /** Default 0: any free port (see `RunningServer.port`). */
  port?: number;
  /** Default 127.0.0.1. */
  hostname?: string;
}

export interface Surfacer {
  /** The Hono app serving both hosts: the htmx pages at `/`, the A2UI client at `/a2ui/`. */
  readonly hono: Hono<any>;
  /** The fetch handler of `hono` (any runtime that speaks Request/Response). */
  readonly fetch: (request: Request, env?: unknown) => Response | Promise<Response>;
  readonly conversations: ConversationService;
  readonly a2ui: A2uiHost;
  /** Whether the agent endpoints answer without tokens (loopback callers only, one local principal). */
  readonly agentsOpen: boolean;
  /** The AG-UI host, unless `agents.agui` is false. */
  readonly agui: AguiHost | undefined;
  /** The MCP door (`/mcp`), unless `agents.mcp` is false. */
  readonly mcp: McpHost | undefined;
  readonly backend: Backend;
  readonly planner: Planner;
  /** Tells every open SSE stream of both hosts to finish. */
  closeStreams(): void;
  /** Starts a Node HTTP server; its `close()` ends the streams, then the connections, then the backend. */
  listen(options?: ListenOptions): Promise<RunningServer>;
  /** Without `listen`: closes the streams and the backend (waits for appends in flight). */
  close(): Promise<void>;
}

/**
 * Assembles everything a Surfacer server runs — the conversation service over the backend, the
 * htmx host and the A2UI host on one Hono app, sharing one service so a change made in one shows
 * live in the other. `surfacer serve` and every embedding app go through here.
 */
export function createSurfacer(options: SurfacerOptions): Surfacer {
  const logger = options.logger ?? silentLogger;
  const { app } = options;
  // Checked again here: an AppDefinition need not come from defineApp.
  const theme = app.theme === undefined ? undefined : safeResolveTheme(app.theme);
  if (theme !== undefined && !theme.ok) throw new SurfacerConfigError(theme.reason);
  const env = options.env ?? process.env;
  const metrics = surfacerMetrics(options.meterProvider);
  const { planner, repairAttempts } = choosePlanner(app, options.planner ?? 'offline', env, metrics, logger);
  const backend = options.backend ?? createLocalBackend(options.store ?? createMemoryStore());
  const secret = options.sessionSecret;
  if (backend.store.writers === 'many' && (secret === undefined || secret.length < MIN_SESSION_SECRET_LENGTH)) {
    // Instances with random secrets of their own would each reject the others' session cookies.
    throw new SurfacerConfigError(`a backend shared by several instances needs the same sessionSecret everywhere (${MIN_SESSION_SECRET_LENGTH} characters or more)`);
  }
  if (secret === undefined || secret.length < MIN_SESSION_SECRET_LENGTH) {
    logger.warn('SURFACER_SESSION_SECRET not set (or under 16 characters): using a random one; sessions end when the server stops');
  }
  // Metrics around the service's ports (./instrument.ts), not inside it.
  const conversations = instrumentService(createConversationStack({
    app, planner, store: instrumentStore(backend.store, metrics), turns: backend.turns,
    idempotency: backend.idempotency('client-errors', { ttlMs: DEFAULT_IDEMPOTENCY_TTL_MS }),
    entropy: options.entropy ?? createSystemSource(), logger,
    mode: options.mode ?? 'best-effort',
    limits: { maxRepairAttempts: repairAttempts, ...options.serviceLimits },
  }), metrics);
  const rateLimiter = backend.rateLimiter.bind(backend);
  const mcpOn = options.agents?.mcp !== false;
  // Checked even with the MCP door off: a bad value is reported, never ignored.
  const viewOrigin = viewStreamOriginOf(options.mcpViewStreamOrigin, env);
  const viewStreamOrigin = mcpOn ? viewOrigin : undefined;
  const a2ui = createA2uiHost({
    rateLimiter, metrics, ...options.a2ui,
    // The MCP App view (an opaque origin) follows the stream with the token in its URL.
    ...(viewStreamOrigin !== undefined ? { crossOriginStreams: true } : {}),
    service: conversations, logger,
  });
  // The agent endpoints share one door: who calls, how much they send (agent-gate.ts).
  const hostLimits = { ...DEFAULT_HOST_LIMITS, ...options.hostLimits };
  const agentAuth = chooseAgentAuthenticate({
    ...(options.authenticate ? { authenticate: options.authenticate } : {}), tokens: parseApiTokens(env.SURFACER_API_TOKENS),
  });
  const gate = agentGate({ ...agentAuth, maxBodyBytes: hostLimits.maxBodyBytes });
  const agui = options.agents?.agui === false ? undefined : createAguiHost({
    service: conversations, bridges: (catalog) => a2ui.wire('0.9', catalog).bridges, gate, logger, rateLimiter,
    answered: backend.idempotency('ag-ui-answered', { ttlMs: DEFAULT_IDEMPOTENCY_TTL_MS }),
    conversationCreatesPerMinute: hostLimits.conversationCreatesPerMinute,
    maxConversationsPerOwner: hostLimits.maxConversationsPerSession,
  });
  // A2A (src/host-a2a): the same conversations, as an agent A2A clients call with bearer tokens.
  const a2a = options.agents?.a2a === false ? undefined : createA2aHost({
    service: conversations, a2ui, logger, rateLimiter, gate,
    answered: backend.idempotency('a2a-answered', { ttlMs: DEFAULT_IDEMPOTENCY_TTL_MS }),
    // The htmx host's limits, for the same reasons: conversations started per minute and held.
    ...(options.hostLimits?.conversationCreatesPerMinute !== undefined ? { conversationCreatesPerMinute: options.hostLimits.conversationCreatesPerMinute } : {}),
    ...(options.hostLimits?.maxConversationsPerSession !== undefined ? { maxConversationsPerOwner: options.hostLimits.maxConversationsPerSession } : {}),
  });
  const agentOrigins = agentOriginsOf(options.agentOrigins, env);
  // MCP (src/host-mcp): the same conversations, directives as tools for the host's model, the surfaces as an MCP App view.
  const mcpCreatesPerMinute = hostLimits.conversationCreatesPerMinute;
  const mcp = !mcpOn ? undefined : createMcpHost({
    service: conversations, bridges: () => a2ui.wire('0.9', 'basic').bridges, viewHtml: mcpViewHtml, logger,
    serverInfo: { name: app.name, version: surfacerVersion() },
    creations: rateLimiter('mcp-conversation-creates', { perMinute: mcpCreatesPerMinute, burst: mcpCreatesPerMinute }),
    conversationCreatesPerMinute: mcpCreatesPerMinute, maxConversationsPerOwner: hostLimits.maxConversationsPerSession,
    ...agentAuth, maxBodyBytes: hostLimits.maxBodyBytes, agentOrigins,
    authorizationServers: authorizationServersOf(options.mcpAuthorizationServers, env),
    ...(viewStreamOrigin !== undefined ? { viewStreamOrigin } : {}),
  });
  const cors = agentCors(agentOrigins);
  const metricsEndpoint = options.metricsEndpoint;
  const agentsMounted = agui !== undefined || a2a !== undefined || mcp !== undefined || metricsEndpoint !== undefined;
  const otelTraceUrl = traceUrlTemplate(env.SURFACER_OTEL_TRACE_URL);
  const host = createApp({
    app, conversations, logger, rateLimiter, metrics,
    health: (timeoutMs) => backend.health(timeoutMs), status: () => backend.status(),
    extend: (hono) => {
      // Before the routes: a preflight is answered here, and every answer of theirs gets its CORS headers.
      for (const path of [...(agui ? [AGUI_PATH] : []), ...(a2a ? [A2A_PATH, AGENT_CARD_PATH] : []), ...(mcp ? [MCP_PATH, ...PROTECTED_RESOURCE_PATHS] : [])]) hono.use(path, cors);
      a2ui.mount(hono);
      agui?.mount(hono);
      a2a?.mount(hono);
      mcp?.mount(hono);
      if (metricsEndpoint) hono.get(METRICS_PATH, metricsHandler({ ...agentAuth, endpoint: metricsEndpoint, logger }));
    },
    agentPaths: [...(agui ? [AGUI_PATH] : []), ...(a2a ? [A2A_PATH] : []), ...(mcp ? [MCP_PATH] : [])],
    sessionSecret: secret !== undefined && secret.length >= MIN_SESSION_SECRET_LENGTH ? secret : randomBytes(32).toString('base64url'),
    secureCookies: options.secureCookies ?? false,
    ...(options.trustedOrigins ? { trustedOrigins: options.trustedOrigins } : {}),
    ...(options.hostLimits ? { limits: options.hostLimits } : {}),
    ...(otelTraceUrl !== undefined ? { otelTraceUrl } : {}),
  });
  // Shutdown: the A2UI hub first (its streams end, no new ones start), then the htmx streams.
  const closeStreams = (): void => {
    agui?.close();
    void mcp?.close();
    a2ui.close();
    host.closeStreams();
  };
  return {
    hono: host.hono, fetch: host.fetch, conversations, a2ui, agui, mcp, backend, planner, closeStreams, agentsOpen: agentsMounted && agentAuth.open,
    async listen(listenOptions = {}) {
      if (agentsMounted && agentAuth.open) {
        const hostname = listenOptions.hostname ?? '127.0.0.1';
        if (!isLoopbackHost(hostname)) {
          const doors = [agui && 'AG-UI', a2a && 'A2A', mcp && 'MCP', metricsEndpoint && '/metrics'].filter(Boolean).join(', ');
          throw new SurfacerConfigError(`the agent endpoints (${doors}) need SURFACER_API_TOKENS (or authenticate) to listen on ${hostname}; set tokens, turn them off (SURFACER_AGENTS=none with surfacer serve, the agents option of createSurfacer), or bind to 127.0.0.1`);
        }
        logger.warn('agent endpoints open without SURFACER_API_TOKENS: loopback callers only, as one local principal; a request that sends a token is refused (401)', { hostname });
      }
      const server = await startServer({ fetch: host.fetch, closeStreams }, listenOptions);
      // After the last connection: wait for appends still in flight, then close the log files.
      const close = async (...args: Parameters<RunningServer['close']>): Promise<void> => {
        await server.close(...args);
        await backend.close();
      };
      return { ...server, close };
    },
    async close() {
      closeStreams();
      await backend.close();
    },
  };
}

/** Throws an LLM_CONFIG_INVALID PlannerError on a bad planner configuration. */
function choosePlanner(app: AppDefinition, choice: PlannerKind | Planner, env: NodeJS.ProcessEnv, metrics: SurfacerMetrics, logger: Logger): { planner: Planner; repairAttempts: number } {
  const config = plannerConfigFromEnv(env, typeof choice === 'string' ? choice : 'offline');
  // A planner of the caller's own is measured as a model's, unless it says it is offline.
  if (typeof choice !== 'string') return { planner: choice.name === 'offline' ? choice : instrumentPlanner(choice, metrics), repairAttempts: config.repairAttempts };
  const planner = createConfiguredPlanner(config, {
    offline: app.offlinePlanner, systemPrompt: renderSystemPrompt(app.directives), envelopeSchema: directiveJsonSchema(app.directives),
    readFile: (path) => readFileSync(path, 'utf8'), metrics,
    // Once when the model stops answering, once when it is back: the badge and /readyz say it meanwhile.
    onFallback: (fallback, model) => {
      metrics.plannerFallback(fallback !== undefined);
      if (fallback !== undefined) logger.warn(`${model} cannot be reached: ${fallback.answeredBy} answers until it is back`, { code: fallback.code });
      else logger.info(`${model} answers again`);
    },
  });
  return { planner, repairAttempts: config.repairAttempts };
}

/** The library's `agentOrigins`, else SURFACER_AGENT_ORIGINS: checked origins (agent-cors.ts). */
function agentOriginsOf(option: readonly string[] | undefined, env: NodeJS.ProcessEnv): string[] {
  return option !== undefined ? checkedOrigins(option.join(','), 'agentOrigins') : checkedOrigins(env.SURFACER_AGENT_ORIGINS, 'SURFACER_AGENT_ORIGINS');
}

/** The library's `mcpViewStreamOrigin`, else SURFACER_MCP_VIEW_ORIGIN: one checked origin, or undefined (unset or empty). */
function viewStreamOriginOf(option: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  const source = option !== undefined ? 'mcpViewStreamOrigin' : 'SURFACER_MCP_VIEW_ORIGIN';
  const origins = checkedOrigins(option ?? env.SURFACER_MCP_VIEW_ORIGIN, source);
  if (origins.length > 1) throw new SurfacerConfigError(`${source}: one origin (where the MCP App view reaches this server), not ${origins.length}`);
  return origins[0];
}

/** `text`'s origins (agent-cors.ts's rules); a value that is not one is a SurfacerConfigError naming `source`. */
function checkedOrigins(text: string | undefined, source: string): string[] {
  try {
    return parseAgentOrigins(text, source);
  } catch (error) {
    if (error instanceof AgentOriginsError) throw new SurfacerConfigError(error.message);
    throw error;
  }
}

/** The library's `mcpAuthorizationServers`, else SURFACER_MCP_AUTHORIZATION_SERVERS: https URLs (http on loopback, for tests). */
function authorizationServersOf(option: readonly string[] | undefined, env: NodeJS.ProcessEnv): string[] {
  const values = option ?? (env.SURFACER_MCP_AUTHORIZATION_SERVERS ?? '').split(/[\s,]+/).filter((v) => v !== '');
  const source = option === undefined ? 'SURFACER_MCP_AUTHORIZATION_SERVERS' : 'mcpAuthorizationServers';
  return values.map((value) => {
    const url = parsedUrl(value);
    if (url === undefined || !(url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname))) || url.search !== '' || url.hash !== '') {
      throw new SurfacerConfigError(`${source}: "${value}" is not an authorization server's issuer URL; write each as https://host[/path]`);
    }
    return url.href.replace(/\/$/, '');
  });
}

/** SURFACER_OTEL_TRACE_URL: an http(s) URL with `{trace_id}` where the trace page links a turn's OpenTelemetry trace. */
function traceUrlTemplate(value: string | undefined): string | undefined {
  const text = value?.trim();
  if (text === undefined || text === '') return undefined;
  if (!/^https?:\/\/[^\s"'<>]+$/.test(text) || !text.includes('{trace_id}')) {
    throw new SurfacerConfigError(`SURFACER_OTEL_TRACE_URL must be an http(s) URL with {trace_id} in it (got "${text}")`);
  }
  return text;
}
