import type { AppDefinition } from '../conversation/app-definition.ts';
import type { ConversationService, Logger } from '../conversation/index.ts';
import type { RateLimiter } from '../hosting/index.ts';
import type { SurfacerMetrics } from '../telemetry/metrics.ts';

export interface HostLimits {
  /** Largest request body (form posts, uploads included). */
  maxBodyBytes: number;
  /** Longest chat message, in characters. */
  maxMessageLength: number;
  /** Conversations one session may create (GET /); counted by the store, so restarts keep it. */
  maxConversationsPerSession: number;
  /**
   * Conversations one client address may create per minute (GET / persists one, and needs no
   * cookie, so another site could trigger it with an image tag). Bursts up to the same number.
   */
  conversationCreatesPerMinute: number;
  /** SSE comment ping interval, so proxies keep the stream open. */
  sseHeartbeatMs: number;
  /**
   * `GET /readyz` answers within this (a backend that has not answered its ping by three
   * quarters of it counts as not ready; the rest is the answer's own way out).
   */
  readyTimeoutMs: number;
}

export const DEFAULT_HOST_LIMITS: HostLimits = {
  maxBodyBytes: 1024 * 1024,
  maxMessageLength: 4000,
  maxConversationsPerSession: 200,
  conversationCreatesPerMinute: 120,
  sseHeartbeatMs: 15_000,
  readyTimeoutMs: 500,
};

/** Everything the HTML host needs, injected: no singletons. */
export interface HostDeps {
  app: AppDefinition;
  /** The conversation service (shared with the A2UI host); its planner's label is shown. */
  conversations: ConversationService;
  /** Signs session/flash cookies and derives CSRF tokens. */
  sessionSecret: string;
  limits?: Partial<HostLimits>;
  /** Live htmx streams (src/telemetry); absent: none recorded. */
  metrics?: SurfacerMetrics;
  logger?: Logger;
  /** Mark cookies Secure (serve behind HTTPS). */
  secureCookies?: boolean;
  /** Origins besides the request's own accepted by the Origin check (e.g. behind a proxy). */
  trustedOrigins?: readonly string[];
  /**
   * Adds routes of other hosts (e.g. src/host-a2ui mountA2uiRoutes) to the same app. Paths under
   * `/a2ui/` get neither our CSP nor the form Origin check: that host sets its own.
   */
  extend?: (app: import('hono').Hono<any>) => void;
  /**
   * Paths of agent endpoints `extend` mounts (AG-UI, A2A): no form Origin check there. They
   * authenticate with bearer tokens, not cookies, so there is no ambient credential to forge a
   * request with, and they take JSON only (their own gate answers 415 for anything else).
   */
  agentPaths?: readonly string[];
  /** Random url-safe tokens (session ids, page ids); default the CSPRNG (crypto.randomBytes, pooled: createRandomTokens). */
  randomToken?: (bytes: number) => string;
  /** Token buckets (shared by every instance with the Redis backend); default in-process. */
  rateLimiter?: (name: string, options: { perMinute: number; burst: number }) => RateLimiter;
  /** `GET /readyz`: does the shared state answer within `timeoutMs`? Default: always. */
  health?: (timeoutMs: number) => Promise<BackendStatus>;
  /** The details of `GET /healthz`: the shared state as last seen, without waiting on it. Default: always ok. */
  status?: () => BackendStatus;
  /**
   * Where the trace page links a turn's OpenTelemetry trace id: an http(s) URL with `{trace_id}`
   * (SURFACER_OTEL_TRACE_URL, e.g. Jaeger's `http://127.0.0.1:16686/trace/{trace_id}`). Absent: the id is shown unlinked.
   */
  otelTraceUrl?: string;
}

export interface BackendStatus {
  ok: boolean;
  engine: string;
  detail?: string;
  latencyMs?: number;
  state?: string;
}
