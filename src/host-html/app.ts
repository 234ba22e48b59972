import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { csrf } from 'hono/csrf';
import { HTTPException } from 'hono/http-exception';
import { CONVERSATION_ID, resolveAppTexts, silentLogger, StoreUnavailableError } from '../conversation/index.ts';
import { makeError, type SurfacerError } from '../errors/index.ts';
import { loadAssets } from './assets.ts';
import { DEFAULT_HOST_LIMITS, type BackendStatus, type HostDeps } from './deps.ts';
import { readFields } from './form.ts';
import { appThemeStylesheet, clientAddress, createHeartbeat, createRateLimiter, secureHeadersOnNode } from '../hosting/index.ts';
import { PAGE_ID, type Host, type HostContext, type HostEnv } from './host.ts';
import { clientKind, htmxError, jsonError, retryHint, statusFor } from './responses.ts';
import { registerActionRoutes } from './routes/actions.ts';
import { registerEventRoutes } from './routes/events.ts';
import { registerPageRoutes } from './routes/page.ts';
import { registerTurnRoutes } from './routes/turns.ts';
import { createSessions } from './session.ts';
import { createStreamRegistry } from './streams.ts';
import { createViews } from './views.ts';
import { createRandomTokens } from '../ui-ir/index.ts';
import type { ComponentRegistry } from '../app-kit/component.ts';
import type { ResolvedAppTexts } from '../conversation/index.ts';
import type { PageContext } from './fragments.ts';
import type { Views } from './views.ts';
import { httpServerSpans } from '../telemetry/http-span.ts';
import { plannerBadge } from '../planner/index.ts';

/**
 * A request's page context. Fragments for a page are its rendering (its forms keep their keys); a
 * request from no known page gets a rendering of its own, drawn when first needed (JSON answers
 * need none). A class with the getter on its prototype, not an object literal with a getter: V8
 * makes a literal's accessor pair per object in the old generation, and that pair, pointing at a
 * closure over the request, kept everything the request touched (its answer, headers, Hono
 * context: ~20 KB) alive through every young-generation GC until the next full one.
 */
class RequestPage implements PageContext {
  views!: Views;
  cid!: string;
  base!: string;
  csrf!: string;
  plannerLabel!: string;
  maxMessageLength!: number;
  texts!: ResolvedAppTexts;
  components?: ComponentRegistry | undefined;
  actions!: readonly string[];
  readonly #pageId: string | undefined;
  readonly #draw: (bytes: number) => string;
  #renderId: string | undefined;

  constructor(fields: Omit<PageContext, 'renderId'>, pageId: string | undefined, draw: (bytes: number) => string) {
    Object.assign(this, fields);
    this.#pageId = pageId;
    this.#draw = draw;
  }

  get renderId(): string {
    return this.#renderId ??= this.#pageId ?? this.#draw(12);
  }
}

export interface HostApp {
  hono: Hono<HostEnv>;
  /** `env`: the server's bindings (@hono/node-server's `{ incoming, outgoing }`), passed through to routes. */
  fetch: (request: Request, env?: unknown) => Response | Promise<Response>;
  /** Tells every open SSE stream to finish (graceful shutdown). */
  closeStreams(): void;
  readonly openStreams: number;
}


/**
 * `new URL(url).origin`, remembered per scheme + plain authority (the URL up to its path): the
 * same few hosts ask again and again. Only an authority of host characters is cached (no `@`,
 * backslash, `?`, `#` or empty host, which WHATWG parsing treats specially), so the prefix has the
 * very same origin as the whole URL. The Host header is the client's, hence the bound.
 */
const PLAIN_PREFIX = /^https?:\/\/[A-Za-z0-9.:[\]-]+$/;
const origins = new Map<string, string>();
function originOf(url: string): string {
  const slash = url.indexOf('/', url.indexOf('://') + 3);
  const prefix = slash < 0 ? url : url.slice(0, slash);
  let origin = origins.get(prefix);
  if (origin === undefined) {
    origin = new URL(url).origin;
    if (!PLAIN_PREFIX.test(prefix)) return origin;
    if (origins.size >= 64) origins.delete(origins.keys().next().value!);
    origins.set(prefix, origin);
  }
  return origin;
}

/** Security headers of every page and fragment: a CSP that allows only our own scripts and styles. */
export const HOST_SECURE_HEADERS = {
  contentSecurityPolicy: {
    defaultSrc: ["'self'"], scriptSrc: ["'self'"], styleSrc: ["'self'"], connectSrc: ["'self'"],
    // Image blocks may show any http(s) image (the IR only admits those schemes).
    imgSrc: ["'self'", 'https:', 'http:'],
    formAction: ["'self'"], frameAncestors: ["'none'"], baseUri: ["'none'"], objectSrc: ["'none'"],
  },
  referrerPolicy: 'same-origin',
} satisfies Parameters<typeof secureHeadersOnNode>[0];

/** The HTML host: Hono routes over an injected conversation service. */
export function createApp(deps: HostDeps): HostApp {
  const limits = { ...DEFAULT_HOST_LIMITS, ...deps.limits };
  const logger = deps.logger ?? silentLogger;
  const randomToken = deps.randomToken ?? createRandomTokens();
  const assets = loadAssets(deps.conversations.app.components, appThemeStylesheet(deps.conversations.app));
  const views = createViews(assets);
  // The ingress allowlist, once: the page offers only controls it takes (HtmlCompileOptions.allowedActions).
  const appActionNames = deps.conversations.app.actions.definitions.map((d) => d.name);
  const sessions = createSessions({ secret: deps.sessionSecret, secure: deps.secureCookies ?? false, randomToken });
  const streams = createStreamRegistry();
  const heartbeat = createHeartbeat(limits.sseHeartbeatMs);
  const service = deps.conversations;
  const trusted = new Set(deps.trustedOrigins ?? []);
  const rateLimiter = deps.rateLimiter ?? ((_name: string, options: { perMinute: number; burst: number }) => createRateLimiter(options));
  const health = deps.health ?? (async () => ({ ok: true, engine: 'local' }));
  const texts = resolveAppTexts(deps.app);
  const status = deps.status ?? (() => ({ ok: true, engine: 'local' }));
  let draining = false;

  const host: Host = {
    deps, service, limits, logger, views, sessions, streams, heartbeat, randomToken,
    layout(c, extra) {
      const pc = c.get('pc');
      const headers: Record<string, string> = {};
      if (pc) headers['X-CSRF-Token'] = pc.csrf;
      if (extra.pageId) headers['X-Surfacer-Page'] = extra.pageId;
      return {
        title: extra.title, appName: deps.app.name,
        planner: plannerBadge(service.planner),
        ...(extra.withTrace && pc ? { traceUrl: `${pc.base}/trace` } : {}),
        // The A2UI view of the same conversation exists only when that host is mounted.
        ...(extra.withTrace && pc && deps.extend ? { a2uiUrl: `/a2ui${pc.base}` } : {}),
        ...(Object.keys(headers).length > 0 ? { hxHeaders: JSON.stringify(headers) } : {}),
      };
    },
  };

  const app = new Hono<HostEnv>();
  // First, so that every route of every host mounted here (A2UI, AG-UI, A2A) runs inside it.
  app.use('*', httpServerSpans());

  /** Errors outside an owned conversation: no flash to go back to, so a page for browsers. */
  function plainError(c: HostContext, error: SurfacerError, status = statusFor(error)): Response {
    const kind = clientKind(c);
    if (kind === 'json') return jsonError(c, error, status);
    if (kind === 'htmx') return htmxError(c, undefined, { level: 'error', text: error.message }, status);
    return c.html(views.page('error-page', host.layout(c, { title: `${status} · ${deps.app.name}` }), {
      heading: status === 404 ? 'Not found' : status === 403 ? 'Not allowed' : 'Something went wrong',
      alert: { level: 'error', text: error.message, code: error.code },
    }), status as 404);
  }

  const ownPath = (path: string): boolean => !path.startsWith('/a2ui/');
  const headers = secureHeadersOnNode(HOST_SECURE_HEADERS);
  app.use('*', (c, next) => (ownPath(c.req.path) ? headers(c, next) : next()));

  app.onError((err, c) => {
    if (err instanceof HTTPException && err.status === 403) {
      return plainError(c as HostContext, makeError('HTTP_ORIGIN_FORBIDDEN', 'Origin / Sec-Fetch-Site check failed'));
    }
    if (err instanceof StoreUnavailableError) {
      // Nothing was changed: the client may retry shortly, here or on another instance.
      logger.warn('shared state unavailable', { path: c.req.path, error: err.message });
      const error = makeError('STORE_UNAVAILABLE', err.message);
      retryHint(c, error);
      return plainError(c as HostContext, error);
    }
    logger.error('request failed', { path: c.req.path, error: err });
    return plainError(c as HostContext, makeError('INTERNAL_ERROR', 'unhandled error'));
  });
  app.notFound((c) => plainError(c as HostContext, makeError('HTTP_NOT_FOUND', `no route ${c.req.method} ${c.req.path}`)));

  // Origin / Sec-Fetch-Site check for form posts. It skips JSON and other non-simple content
  // types and requests without Origin, so every state change also needs the session's CSRF token.
  // Agent endpoints are exempt: bearer tokens, not cookies (deps.agentPaths).
  const originCheck = csrf({ origin: (origin, c) => origin === originOf(c.req.url) || trusted.has(origin) });
  const agentPaths = new Set(deps.agentPaths ?? []);
  app.use('*', (c, next) => (ownPath(c.req.path) && !agentPaths.has(c.req.path) ? originCheck(c, next) : next()));

  for (const asset of assets.all) {
    app.get(asset.path, (c) => c.body(asset.body, 200, { 'Content-Type': asset.type, 'Cache-Control': 'public, max-age=31536000, immutable' }));
  }

  // Liveness: this process answers, at once, whatever the backend does (an orchestrator that
  // restarted every instance during a Redis stall would add a restart storm to the outage);
  // the backend's last known state is only reported. Readiness: it can serve now (the backend
  // answers, not shutting down), decided within readyTimeoutMs.
  app.get('/healthz', (c) => c.json({ ok: true, store: status() }));
  /** The backend's answer, or not ready once three quarters of the deadline passed (whatever `health` does). */
  const backendReady = (): Promise<BackendStatus> => {
    const budget = Math.max(1, Math.floor(limits.readyTimeoutMs * 0.75));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<BackendStatus>((resolve) => {
      timer = setTimeout(() => resolve({ ...status(), ok: false, detail: `no answer within ${budget} ms` }), budget);
    });
    return Promise.race([
      health(budget).catch((error: unknown) => ({ ...status(), ok: false, detail: String(error) })), late,
    ]).finally(() => clearTimeout(timer));
  };
  app.get('/readyz', async (c) => {
    const store = draining ? status() : await backendReady();
    const ready = store.ok && !draining;
    // The planner does not decide readiness (the offline planner answers while the model cannot),
    // but an operator reads here that it is doing so.
    const { fallback } = service.planner;
    const planner = { label: service.planner.label, ...(fallback !== undefined ? { fallback } : {}) };
    return c.json({ ok: ready, draining, store, planner }, ready ? 200 : 503);
  });
  app.get('/favicon.ico', (c) => c.body(null, 204, { 'Cache-Control': 'public, max-age=86400' }));

  const creations = rateLimiter('conversation-creates', { perMinute: limits.conversationCreatesPerMinute, burst: limits.conversationCreatesPerMinute });
  app.get('/', async (c) => {
    if (!(await creations.take(clientAddress(c)))) {
      return plainError(c, makeError('HTTP_TOO_MANY_CONVERSATIONS', `over ${limits.conversationCreatesPerMinute} new conversations a minute from this address`));
    }
    const session = await sessions.ensure(c);
    // A soft cap: requests racing each other (on one instance or several) may pass it by as many.
    const count = await service.countOwnedBy(session.owner);
    if (count >= limits.maxConversationsPerSession) {
      return plainError(c, makeError('HTTP_TOO_MANY_CONVERSATIONS', `${count} conversations`));
    }
    const conversation = await service.create(session.owner);
    c.header('Cache-Control', 'no-store');
    return c.redirect(`/c/${conversation.id}`, 303);
  });

  const tooLarge = (c: HostContext): Response => plainError(c, makeError('HTTP_PAYLOAD_TOO_LARGE', `body over ${limits.maxBodyBytes} bytes`));
  const streamLimit = bodyLimit({ maxSize: limits.maxBodyBytes, onError: (c) => tooLarge(c as HostContext) });
  // With a Content-Length (Node's parser never reads past it) a header check suffices; only
  // chunked bodies need hono's counting stream wrapper, which is costly per request.
  app.use('/c/:cid/*', async (c, next) => {
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    const length = c.req.header('content-length');
    if (length === undefined) return streamLimit(c, next);
    if (!/^\d+$/.test(length) || Number(length) > limits.maxBodyBytes) return tooLarge(c);
    return next();
  });

  // Session → CSRF token (state changes) → ownership. Someone else's conversation is a 404,
  // exactly like a missing one.
  app.use('/c/:cid/*', async (c, next) => {
    const cid = c.req.param('cid');
    const session = await sessions.read(c);
    const mutating = c.req.method !== 'GET' && c.req.method !== 'HEAD';
    if (mutating) {
      const fields = await readFields(c);
      if (fields === undefined) return plainError(c, makeError('HTTP_BAD_REQUEST', 'unsupported or malformed body'), 415);
      const token = c.req.header('X-CSRF-Token') ?? (typeof fields['_csrf'] === 'string' ? fields['_csrf'] : undefined);
      delete fields['_csrf'];
      if (!session || !sessions.verifyCsrf(session, token)) return plainError(c, makeError('HTTP_CSRF_INVALID', 'missing or wrong CSRF token'));
      c.set('fields', fields);
    }
    const conversation = cid !== undefined && CONVERSATION_ID.test(cid) ? await service.get(cid) : undefined;
    if (!session || !conversation || conversation.ownerSessionId !== session.owner) {
      return plainError(c, makeError('HTTP_NOT_FOUND', 'no such conversation for this session'));
    }
    const page = c.req.header('X-Surfacer-Page');
    c.set('session', session);
    c.set('conversation', conversation);
    c.set('pageId', page !== undefined && PAGE_ID.test(page) ? page : undefined);
    c.set('pc', new RequestPage({
      views, cid: conversation.id, base: `/c/${conversation.id}`, csrf: session.csrf,
      plannerLabel: service.planner.label, maxMessageLength: limits.maxMessageLength, texts, components: service.app.components,
      actions: appActionNames,
    }, c.get('pageId'), randomToken));
    await next();
  });

  registerPageRoutes(app, host);
  registerTurnRoutes(app, host);
  registerActionRoutes(app, host);
  registerEventRoutes(app, host);
  // Hosts mounted below (src/host-a2ui) authorise the owner of a conversation themselves: they
  // find the request's session, if it has a valid one, as c.get('session'). Read only: they
  // never create sessions, and their own auth (bearer tokens, 404 for everyone else) applies.
  if (deps.extend) {
    app.use('/a2ui/*', async (c, next) => {
      const session = await sessions.read(c);
      if (session) c.set('session', session);
      await next();
    });
    deps.extend(app as unknown as Hono);
  }

  return {
    hono: app,
    fetch: (request, env) => app.fetch(request, env as never),
    closeStreams: () => {
      draining = true;
      streams.closeAll();
    },
    get openStreams() { return streams.size; },
  };
}
