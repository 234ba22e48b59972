import type { Context, Hono } from 'hono';
import { unguardA2uiValue, type A2uiCompileOptions } from '../compiler/index.ts';
import { CONVERSATION_ID, silentLogger, surfaceSummary, type ConversationService, type Logger } from '../conversation/index.ts';
import { httpStatusOf, type SurfacerError } from '../errors/index.ts';
import type { IngressRequest } from '../ingress/index.ts';
import { createRateLimiter, type RateLimiter } from '../hosting/index.ts';
import { createA2uiBridges, type A2uiBridges } from './bridge.ts';
import { a2uiClientAssets, type A2uiClientAssets } from './client-bundle.ts';
import { createA2uiHub, type A2uiHub, type HubOptions } from './hub.ts';
import { mountA2uiRoutes, type A2uiRouteDeps } from './routes.ts';

/*
 * The A2UI host over a real conversation service: bridges (service → hub), the shared ingress
 * for client events, and the authorisation rule of design §8 — the session that owns the
 * conversation, or a holder of the conversation's bearer token; anyone else gets a 404.
 */

export interface A2uiHostOptions {
  service: ConversationService;
  /**
   * The owner id (Conversation.ownerSessionId) of the request's session, if any. Default: the
   * HTML host's session, which createApp puts on `/a2ui/*` requests as `c.get('session')`.
   */
  sessionOwner?: (c: Context) => string | undefined | Promise<string | undefined>;
  hub?: A2uiHub;
  hubOptions?: HubOptions;
  compile?: Omit<A2uiCompileOptions, 'reinit' | 'priorTypes'>;
  /** See BridgeOptions.idleMs. */
  bridgeIdleMs?: number;
  logger?: Logger;
  heartbeatMs?: number;
  retryMs?: number;
  maxEventBytes?: number;
  pageTitle?: string;
  clientAssets?: () => Promise<A2uiClientAssets>;
  /**
   * Client `error` events that may rotate one surface's epoch: a burst of this many, then this
   * many a minute (a renderer stuck in a loop stops here). Default 5.
   */
  clientResetsPerMinute?: number;
  now?: () => number;
  /** Token buckets (shared by every instance with the Redis backend); default in-process. */
  rateLimiter?: (name: string, options: { perMinute: number; burst: number }) => RateLimiter;
}

export interface A2uiHost {
  readonly hub: A2uiHub;
  readonly bridges: A2uiBridges;
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
  const hub = options.hub ?? createA2uiHub(options.hubOptions);
  const bridges = createA2uiBridges({
    service, hub, logger,
    ...(options.compile ? { compile: options.compile } : {}),
    ...(options.bridgeIdleMs !== undefined ? { idleMs: options.bridgeIdleMs } : {}),
  });
  const sessionOwner = options.sessionOwner ?? defaultSessionOwner;
  const resetsPerMinute = options.clientResetsPerMinute ?? 5;
  const resets = options.rateLimiter?.('a2ui-client-resets', { perMinute: resetsPerMinute, burst: resetsPerMinute })
    ?? createRateLimiter({ perMinute: resetsPerMinute, burst: resetsPerMinute, clock: now });

  async function authorize(c: Context, cid: string): Promise<boolean> {
    if (!CONVERSATION_ID.test(cid)) return false;
    // Browsers cannot put headers on an EventSource: GETs may carry the token in the query.
    const token = bearerToken(c) ?? (c.req.method === 'GET' ? c.req.query('token') : undefined);
    if (token !== undefined && token !== '' && token.length <= 256 && await service.verifyA2uiToken(cid, token)) return true;
    const owner = await sessionOwner(c);
    if (owner === undefined) return false;
    const conversation = await service.get(cid);
    return conversation !== undefined && conversation.ownerSessionId === owner;
  }

  async function postEvent(cid: string, raw: string, headers: { idempotencyKey?: string }): Promise<{ status: number; body: unknown }> {
    const parsed = service.ingress.parseA2ui(raw, headers.idempotencyKey === undefined ? {} : { idempotencyKey: headers.idempotencyKey });
    if (!parsed.ok) return failure(parsed.error, parsed.status, parsed.issues);
    const result = await service.applyAction(cid, unguard(parsed.request), { origin: A2UI_ORIGIN });
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
    hub,
    prepare: async (cid, lastEventId) => {
      if (!(await bridges.prepare(cid, lastEventId))) throw new Error(`conversation ${cid} is gone`);
    },
    open: (cid) => bridges.open(cid),
    catchUp: (cid, since) => bridges.catchUp(cid, since),
    snapshot: (cid) => bridges.snapshot(cid),
    surfaceIds: (cid) => bridges.surfaceIds(cid),
    authorize,
    postEvent,
    connectInfo: async (_c, cid) => {
      const conversation = await service.get(cid);
      return conversation === undefined ? undefined : { token: conversation.a2uiToken };
    },
    clientAssets: options.clientAssets ?? a2uiClientAssets,
    onError: (error, where) => logger.error('A2UI route failed', { ...where, error: error instanceof Error ? error.message : String(error) }),
    ...(options.heartbeatMs !== undefined ? { heartbeatMs: options.heartbeatMs } : {}),
    ...(options.retryMs !== undefined ? { retryMs: options.retryMs } : {}),
    ...(options.maxEventBytes !== undefined ? { maxEventBytes: options.maxEventBytes } : {}),
    pageTitle: options.pageTitle ?? service.app.name,
  };

  return {
    hub,
    bridges,
    mount: (app) => mountA2uiRoutes(app as Hono, deps),
    close() {
      hub.close();
      bridges.close();
    },
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
 * The compiler guards JSON-looking and id-shaped strings with a trailing U+2060 (compiler/a2ui
 * text.ts); whatever a client echoes back from the data model carries it. Undone here, before
 * the shared ingress checks the context, so the app sees exactly what the user typed (nested keys were
 * already checked by the parser: no `__proto__`).
 */
function unguard(request: IngressRequest): IngressRequest {
  if (request.kind !== 'action') return request;
  // fromEntries defines own properties, whatever the key.
  const context = Object.fromEntries(Object.entries(request.context).map(([key, value]) => [key, unguardA2uiValue(value)]));
  return { ...request, context };
}

function failure(error: SurfacerError, status: number, issues?: ReadonlyArray<{ pointer: string; message: string }>): { status: number; body: unknown } {
  return { status, body: issues && issues.length > 0 ? { ...error, issues } : error };
}
