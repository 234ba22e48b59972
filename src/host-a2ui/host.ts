import type { Context, Hono } from 'hono';
import {
  a2uiWire, a2uiWireOfMessageVersion, appCatalogV08, appCatalogV09, type A2uiCompileOptions, type A2uiVersion, type A2uiWire,
} from '../compiler/index.ts';
import {
  CONVERSATION_ID, resolveAppTexts, silentLogger, surfaceSummary, type AppDefinition, type ConversationService, type Logger,
} from '../conversation/index.ts';
import { httpStatusOf, type SurfacerError } from '../errors/index.ts';
import type { IngressRequest } from '../ingress/index.ts';
import { advertisedInQuery, appCatalogOffer, appThemeStylesheet, chooseCatalog, createRateLimiter, PAGE_MESSAGES, recentTranscript, type CatalogChoice, type RateLimiter } from '../hosting/index.ts';
import { createA2uiBridges, type A2uiBridges } from './bridge.ts';
import { a2uiClientAssets, a2uiThemeAsset, appElementsOf, type A2uiClientAssets } from './client-bundle.ts';
import type { A2uiFeed } from './feed.ts';
import { createA2uiHub, type A2uiHub, type HubOptions } from './hub.ts';
import { mountCatalogRoutes, serverCapabilities, type CatalogDocuments } from './catalog-routes.ts';
import { mountA2uiRoutes, type A2uiRouteDeps } from './routes.ts';
import type { SurfacerMetrics } from '../telemetry/metrics.ts';
import { plannerBadge } from '../planner/index.ts';

/*
 * The A2UI host over a real conversation service: bridges (service → hub), the shared ingress
 * for client events, and the authorisation rule of design §8 — the session that owns the
 * conversation, or a holder of the conversation's bearer token; anyone else gets a 404.
 *
 * Wire versions: one hub and one set of bridges per A2UI version (v0.8, v0.9, v0.9.1) and
 * catalogue (the app's, for clients that advertise it, or the basic one: catalog-choice.ts), made
 * when the first client of that pair comes: a conversation nobody watches in v0.9 costs no v0.9
 * compile, and a pair's event ids name its own streams. Every version follows the same log,
 * so v0.8 clients, v0.9 clients and htmx pages of one conversation see the same changes, on any
 * instance. Client messages of every version come in through the one events route.
 */

export interface A2uiHostOptions {
  service: ConversationService;
  /**
   * The owner id (Conversation.ownerSessionId) of the request's session, if any. Default: the
   * HTML host's session, which createApp puts on `/a2ui/*` requests as `c.get('session')`.
   */
  sessionOwner?: (c: Context) => string | undefined | Promise<string | undefined>;
  /** The v0.8 hub (tests inject one); other versions' hubs are made with `hubOptions`. */
  hub?: A2uiHub;
  hubOptions?: HubOptions;
  compile?: Omit<A2uiCompileOptions, 'reinit' | 'priorTypes'>;
  /** See BridgeOptions.idleMs. */
  bridgeIdleMs?: number;
  logger?: Logger;
  heartbeatMs?: number;
  retryMs?: number;
  /** See A2uiRouteDeps.socketWrites. */
  socketWrites?: boolean;
  /** See A2uiRouteDeps.crossOriginStreams (createSurfacer sets it with `mcpViewStreamOrigin`). */
  crossOriginStreams?: boolean;
  maxEventBytes?: number;
  pageTitle?: string;
  /** The message box's limit (the HTML host's maxMessageLength). Default 4000. */
  maxMessageLength?: number;
  clientAssets?: () => Promise<A2uiClientAssets>;
  /**
   * Client `error` events that may rotate one surface's epoch: a burst of this many, then this
   * many a minute (a renderer stuck in a loop stops here). Default 5.
   */
  clientResetsPerMinute?: number;
  now?: () => number;
  /** Token buckets (shared by every instance with the Redis backend); default in-process. */
  rateLimiter?: (name: string, options: { perMinute: number; burst: number }) => RateLimiter;
  /** Live streams and fan-out latency (src/telemetry); absent: none recorded. */
  metrics?: SurfacerMetrics;
}

export interface A2uiHost {
  /** The v0.8 hub and bridges (`wire('0.8')`). */
  readonly hub: A2uiHub;
  readonly bridges: A2uiBridges;
  /** The hub and bridges of a wire version and catalogue (default basic), made on first use. */
  wire(version: A2uiVersion, catalog?: CatalogChoice): { readonly hub: A2uiHub; readonly bridges: A2uiBridges };
  /** Adds the `/a2ui/...` routes and the client assets to `app` (createApp's `extend`). */
  mount(app: Hono<any>): void;
  /** Ends every stream (shutdown) and stops following conversations. Call before server.close(). */
  close(): void;
}

/** `origin` recorded on changes made through this host (htmx pages skip only their own ids). */
export const A2UI_ORIGIN = 'a2ui';

export function createA2uiHost(options: A2uiHostOptions): A2uiHost {
  const { service } = options;
  const logger = options.logger ?? silentLogger;
  const now = options.now ?? Date.now;
  const wires = new Map<string, { hub: A2uiHub; bridges: A2uiBridges; feed: A2uiFeed }>();
  const appCatalog = appCatalogOffer(service.app);
  let closed = false;
  function wireOf(version: A2uiVersion, catalog: CatalogChoice = 'basic'): { hub: A2uiHub; bridges: A2uiBridges; feed: A2uiFeed } {
    // Without an app catalogue every client is a basic one: one compile per version, as before.
    if (appCatalog === undefined) catalog = 'basic';
    const key = `${version}|${catalog}`;
    let made = wires.get(key);
    if (made !== undefined) return made;
    const wire = a2uiWire(version);
    const hub = (version === '0.8' && catalog === 'basic' ? options.hub : undefined) ?? createA2uiHub(options.hubOptions);
    const compile = compileOptionsFor(service.app, catalog, options.compile);
    const bridges = createA2uiBridges({
      service, hub, logger, wire,
      ...(options.metrics ? { metrics: options.metrics } : {}),
      ...(options.compile ? { compile: options.compile } : {}),
      ...(options.bridgeIdleMs !== undefined ? { idleMs: options.bridgeIdleMs } : {}),
      // This client's catalogue: it names the stream, and its compile options carry the app's components.
      catalog, ...(compile ? { compile } : {}),
    });
    // A version first asked for after close() starts closed, like the others.
    if (closed) {
      hub.close();
      bridges.close();
    }
    made = { hub, bridges, feed: feedOf(wire, hub, bridges) };
    wires.set(key, made);
    return made;
  }
  const { hub, bridges } = wireOf('0.8');
  const sessionOwner = options.sessionOwner ?? defaultSessionOwner;
  const resetsPerMinute = options.clientResetsPerMinute ?? 5;
  const resets = options.rateLimiter?.('a2ui-client-resets', { perMinute: resetsPerMinute, burst: resetsPerMinute })
    ?? createRateLimiter({ perMinute: resetsPerMinute, burst: resetsPerMinute, clock: now });

  async function authorize(c: Context, cid: string): Promise<boolean> {
    if (!CONVERSATION_ID.test(cid)) return false;
    // External EventSource clients cannot send headers: the stream alone also takes `?token=`
    // (a URL may end up in proxy logs: the pages use the session cookie, nothing logs the query).
    const token = bearerToken(c) ?? (c.req.method === 'GET' && c.req.path.endsWith('/stream') ? c.req.query('token') : undefined);
    if (token !== undefined && token !== '' && token.length <= 256 && await service.verifyA2uiToken(cid, token)) return true;
    const owner = await sessionOwner(c);
    if (owner === undefined) return false;
    const conversation = await service.get(cid);
    return conversation !== undefined && conversation.ownerSessionId === owner;
  }

  async function postEvent(cid: string, raw: string, headers: { idempotencyKey?: string }): Promise<{ status: number; body: unknown }> {
    const parsed = service.ingress.parseA2ui(raw, headers.idempotencyKey === undefined ? {} : { idempotencyKey: headers.idempotencyKey });
    if (!parsed.ok) return failure(parsed.error, parsed.status, parsed.issues);
    // The ingress knows only the dialects a wire of ours speaks.
    const wire = a2uiWireOfMessageVersion(parsed.dialect === 'v0.8' ? undefined : parsed.dialect)!;
    const result = await service.applyAction(cid, asTheIrHeldIt(parsed.request, wire), { origin: A2UI_ORIGIN });
    if (!result.ok) return failure(result.error, result.status ?? httpStatusOf(result.error.code), result.issues);
    if (result.kind === 'recover') {
      let reset: 'done' | 'skipped' | 'failed' = 'skipped';
      // A replayed report already triggered its reset, unless that reset failed (the surface is
      // still at the reported epoch: try again; ifEpoch keeps it to one). A renderer that keeps
      // failing is capped.
      const stillBroken = result.next.surfaces.find((s) => s.id === result.surfaceId)?.epoch === result.epoch;
      if (result.recovery === 'epoch_reset' && (!result.replayed || stillBroken) && await resets.take(`${cid}\n${result.surfaceId}`)) {
        // Reports of one broken rendering may reach several instances: it is reset once.
        const done = await service.resetSurfaceEpoch(cid, result.surfaceId, { reason: 'a2ui_client_error', origin: A2UI_ORIGIN, ifEpoch: result.epoch });
        reset = done.ok ? 'done' : 'failed';
        if (!done.ok) logger.warn('epoch reset after a client error failed', { cid, surfaceId: result.surfaceId, code: done.error.code });
        const current = done.ok ? done.next : result.next;
        return { status: 202, body: { ok: true, recovery: result.recovery, reset, replayed: result.replayed, surface: surfaceSummary(current, result.surfaceId) } };
      }
      return { status: 202, body: { ok: true, recovery: result.recovery, reset, replayed: result.replayed, surface: surfaceSummary(result.next, result.surfaceId) } };
    }
    // An action that continues the conversation: answered now; its turn's changes reach the
    // client over the stream like any other change.
    void result.continuation?.then((turn) => {
      if (turn?.ok === false) logger.warn('continuation turn did not run', { cid, code: turn.error.code });
    });
    return {
      status: 200,
      body: {
        ok: true, replayed: result.replayed, action: result.action, surface: surfaceSummary(result.next, result.surfaceId),
        ...(result.toast ? { toast: result.toast } : {}), ...(result.continuation ? { continuing: true } : {}),
      },
    };
  }

  const deps: A2uiRouteDeps = {
    feed: (version, catalog) => wireOf(version, catalog).feed,
    catalog: (catalogIds) => chooseCatalog(appCatalog, advertisedInQuery(catalogIds)),
    ...(appCatalog === undefined ? {} : { appCatalogId: appCatalog.id }),
    authorize,
    postEvent,
    pageChrome: async (c, cid) => {
      const conversation = await service.get(cid);
      if (conversation === undefined) return undefined;
      const texts = resolveAppTexts(service.app);
      // The message box posts as the htmx page does: only the session that owns the conversation.
      const session = c.get('session' as never) as { owner?: unknown; csrf?: unknown } | undefined;
      const owns = typeof session?.csrf === 'string' && session.owner === conversation.ownerSessionId;
      return {
        appName: service.app.name, description: texts.description,
        planner: plannerBadge(service.planner),
        htmlUrl: `/c/${cid}`, emptyState: texts.emptyState, hints: texts.hints,
        ...((recent) => ({
          transcript: recent.entries.map((e) => ({ role: e.role, text: e.text })),
          ...(recent.earlier > 0 ? { earlier: { count: recent.earlier, url: `/c/${cid}?messages=${recent.shown + PAGE_MESSAGES}#transcript` } } : {}),
        }))(recentTranscript(conversation.ir.transcript)),
        ...(owns ? { composer: { action: `/c/${cid}/messages`, csrf: session.csrf as string, placeholder: texts.placeholder, maxLength: options.maxMessageLength ?? 4000 } } : {}),
      };
    },
    ...((css) => (css === undefined ? {} : { themeStyle: a2uiThemeAsset(css) }))(appThemeStylesheet(service.app)),
    connectInfo: async (_c, cid) => {
      const conversation = await service.get(cid);
      return conversation === undefined ? undefined : { token: conversation.a2uiToken };
    },
    // The app's own pages: their clients hold the app's elements (bundled on first use).
    clientAssets: options.clientAssets ?? ((version) => a2uiClientAssets(version, appElementsOf(service.app), {
      // esbuild's message names the app's own module and quotes its source, never what a
      // person or the model wrote: written whole, like a store's infrastructure errors.
      onBundleError: (error) => logger.error('the app\'s A2UI client could not be bundled; its pages show the fallbacks', {
        version, error: error instanceof Error ? error.message : String(error),
      }),
    })),
    ...(options.metrics ? {
      streamOpened: (version: A2uiVersion) => options.metrics!.streamOpened('a2ui', version),
      streamCut: (version: A2uiVersion, reason: string) => options.metrics!.streamCut('a2ui', reason, version),
    } : {}),
    onError: (error, where) => logger.error('A2UI route failed', { ...where, error }),
    ...(options.heartbeatMs !== undefined ? { heartbeatMs: options.heartbeatMs } : {}),
    ...(options.retryMs !== undefined ? { retryMs: options.retryMs } : {}),
    ...(options.socketWrites !== undefined ? { socketWrites: options.socketWrites } : {}),
    ...(options.crossOriginStreams ? { crossOriginStreams: true } : {}),
    ...(options.maxEventBytes !== undefined ? { maxEventBytes: options.maxEventBytes } : {}),
    pageTitle: options.pageTitle ?? service.app.name,
  };

  return {
    hub,
    bridges,
    wire: (version, catalog) => wireOf(version, catalog),
    mount: (app) => {
      mountCatalogRoutes(app as Hono, catalogDocuments(service.app, appCatalog?.id));
      mountA2uiRoutes(app as Hono, deps);
    },
    close() {
      closed = true;
      for (const made of wires.values()) {
        made.hub.close();
        made.bridges.close();
      }
    },
  };
}

/**
 * A client's compile options: the app's actions (what buttons and controls may carry), the app's
 * theme (beginRendering.styles / createSurface.theme) and the app's components with its catalogue
 * (the app's elements, or their fallbacks).
 */
function compileOptionsFor(app: AppDefinition, catalog: CatalogChoice, base: A2uiHostOptions['compile']): A2uiHostOptions['compile'] {
  // The ingress takes only the app's actions: a button or table control for any other would be
  // refused (403), so it is not offered (an app with ui.show_table but not TABLE_ACTIONS gets
  // tables without sort and page controls, as on the htmx page).
  const allowed = base?.allowedActions !== undefined ? base : { ...base, allowedActions: app.actions.definitions.map((d) => d.name) };
  const themed = app.theme === undefined || allowed.theme !== undefined ? allowed : {
    ...allowed, theme: { primaryColor: app.theme.primaryColor, ...(app.theme.fontFamily === undefined ? {} : { font: app.theme.fontFamily }) },
  };
  if (app.components === undefined) return themed;
  const registry = app.components;
  // 'app' only ever comes with a catalogue id (appCatalogOffer); without one every client is basic.
  return { ...themed, components: catalog === 'app' && app.catalog !== undefined ? { registry, catalog, catalogId: app.catalog.id } : { registry, catalog: 'basic' } };
}

/**
 * What the catalogue routes serve: the app catalogue (an app with components; generated from
 * their zod schemas, compiler/components) and the server capabilities.
 */
function catalogDocuments(app: AppDefinition, appCatalogId: string | undefined): CatalogDocuments {
  const capabilities = serverCapabilities(appCatalogId);
  if (appCatalogId === undefined || app.components === undefined) return { capabilities };
  return { capabilities, v08: appCatalogV08(app.components, appCatalogId), v09: appCatalogV09(app.components, appCatalogId, `${app.name}: A2UI catalogue`) };
}

/** The routes' view of one wire version: its hub, and the bridges compiling the conversations to it. */
function feedOf(wire: A2uiWire, hub: A2uiHub, bridges: A2uiBridges): A2uiFeed {
  return {
    hub,
    prepare: async (cid, lastEventId) => {
      if (!(await bridges.prepare(cid, lastEventId))) throw new Error(`conversation ${cid} is gone`);
    },
    open: (cid) => bridges.open(cid),
    catchUp: (cid, since) => bridges.catchUp(cid, since),
    snapshot: (cid) => bridges.snapshot(cid),
    surfaceIds: (cid) => bridges.surfaceIds(cid),
    deleteSurface: (surfaceId) => wire.deleteSurface(surfaceId),
  };
}

function defaultSessionOwner(c: Context): string | undefined {
  const session = c.get('session' as never) as { owner?: unknown } | undefined;
  return typeof session?.owner === 'string' ? session.owner : undefined;
}

function bearerToken(c: Context): string | undefined {
  const header = c.req.header('authorization');
  const match = header === undefined ? null : /^Bearer\s+([A-Za-z0-9._~+/=-]+)\s*$/i.exec(header);
  return match?.[1];
}

/**
 * What a client echoes back from its data model, as the IR held it: the v0.8 compiler guards
 * JSON-looking and id-shaped strings with a trailing U+2060 (compiler/a2ui-v0_8 text.ts), which
 * is undone here, before the shared ingress checks the context, so the app sees exactly what the
 * user typed; v0.9 strings travel unguarded (A2uiWire.readClientValue). Nested keys were already
 * checked by the parser: no `__proto__`.
 */
export function asTheIrHeldIt(request: IngressRequest, wire: A2uiWire): IngressRequest {
  if (request.kind !== 'action') return request;
  // fromEntries defines own properties, whatever the key.
  const context = Object.fromEntries(Object.entries(request.context).map(([key, value]) => [key, wire.readClientValue(value)]));
  return { ...request, context };
}

function failure(error: SurfacerError, status: number, issues?: ReadonlyArray<{ pointer: string; message: string }>): { status: number; body: unknown } {
  return { status, body: issues && issues.length > 0 ? { ...error, issues } : error };
}
