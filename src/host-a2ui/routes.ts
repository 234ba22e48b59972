import { ServerResponse } from 'node:http';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { streamSSE } from 'hono/streaming';
import { StoreUnavailableError } from '../conversation/index.ts';
import { A2UI_VERSIONS, isA2uiVersion, type A2uiVersion } from '../compiler/index.ts';
import { advertisedInQuery, type CatalogChoice } from '../hosting/index.ts';
import { makeError, retryAfterOf } from '../errors/index.ts';
import { clientBundleOfAsset, type A2uiClientAssets, type ClientAsset } from './client-bundle.ts';
import type { A2uiFeed } from './feed.ts';
import { A2UI_PAGE_CSP, renderA2uiPage, type A2uiPageChrome } from './page.ts';
import { createDrainBatcher, createHeartbeat, nodeSink, webSink } from '../hosting/index.ts';
import { runConnection, serialise, type ConnectionParams } from './sse.ts';

export interface A2uiRouteDeps {
  /**
   * The feed of one wire version and catalogue (its hub, snapshot, catch-up): a stream, snapshot
   * or page asked with `?v=0.9` reads a v0.9 feed, without `v` (or `v=0.8`) a v0.8 one.
   */
  feed(version: A2uiVersion, catalog: CatalogChoice): A2uiFeed;
  /**
   * The catalogue of a client that advertised these catalogue ids (`?catalog=<id>`, repeated;
   * hosting/catalog-choice.ts). Absent: every client is a basic one.
   */
  catalog?(catalogIds: readonly string[] | undefined): CatalogChoice;
  /** The app catalogue's id: the app's own page advertises it (absent: the app has none). */
  appCatalogId?: string;
  /**
   * Session owner or bearer token (`Authorization: Bearer`). Only the stream also takes the
   * token as `?token=`, for external EventSource clients (which cannot set headers); the pages
   * use the session cookie. False → 404, indistinguishable from an unknown conversation.
   */
  authorize(c: Context, cid: string): boolean | Promise<boolean>;
  /** The shared ingress: raw body in, canonical status and JSON body out. */
  postEvent(cid: string, rawBody: string, headers: { idempotencyKey?: string }): Promise<{ status: number; body: unknown }>;
  /** What surrounds the panels on the page (chat, message box, texts); absent: the panels alone. */
  pageChrome?(c: Context, cid: string): Promise<A2uiPageChrome | undefined>;
  /** The conversation's bearer token, for the page's "Connect an A2UI client" box (absent: no box). */
  connectInfo?(c: Context, cid: string): Promise<{ token: string } | undefined>;
  /** Resolves the (cached) client bundle and stylesheet of a wire version's page; `a2uiClientAssets` in production. */
  clientAssets(version: A2uiVersion): Promise<A2uiClientAssets>;
  /** The app's theme stylesheet (AppDefinition.theme); absent: the pages' own look. */
  themeStyle?: ClientAsset;
  /** Interval of `: ping` comments on idle streams. Default 15 000. */
  heartbeatMs?: number;
  /** SSE `retry:` hint sent first on every stream. Default 2 000. */
  retryMs?: number;
  /** See NodeSinkOptions.socketWrites (default true; false only to measure the old path against it). */
  socketWrites?: boolean;
  /**
   * A stream asked with `?token=` may be read by a page of any origin (`Access-Control-Allow-Origin: *`):
   * the MCP App view, in a sandboxed iframe with an opaque origin, follows its conversation so.
   * Default false: no CORS header, as before.
   */
  crossOriginStreams?: boolean;
  /** Largest accepted POST body. Default 64 KiB. */
  maxEventBytes?: number;
  pageTitle?: string;
  /** A stream of `version` opened; the function returned is called once when it ends (live-stream metrics). */
  streamOpened?(version: A2uiVersion): () => void;
  /** A stream of `version` was ended by the hub: its client fell behind (`slow`) or its conversation was forgotten. */
  streamCut?(version: A2uiVersion, reason: string): void;
  /** Failures that cannot reach a client (snapshot or write errors). Default console.error. */
  onError?(error: unknown, where: { route: string; cid: string }): void;
}

export const A2UI_CLIENT_HEADER = 'x-surfacer-client';
export const SNAPSHOT_CONTENT_TYPE = 'application/jsonl; charset=utf-8';
/** Response header of the snapshot: send it back as Last-Event-ID to resume after it. */
export const SNAPSHOT_CHECKPOINT_HEADER = 'x-a2ui-checkpoint';

const ASSET_ROUTE = '/assets/:file{a2ui-client-(?:v09-)?[0-9a-f]{8,64}\\.(?:js|css)}';
const THEME_ROUTE = '/assets/:file{a2ui-theme-[0-9a-f]{8,64}\\.css}';

/** The wire version a request asks for: `?v=0.9`, `?v=0.9.1`, or v0.8 (no `v`, or `v=0.8`). */
function requestedVersion(c: Context): { ok: true; version: A2uiVersion } | { ok: false; response: Response } {
  const v = c.req.query('v');
  if (v === undefined || v === '') return { ok: true, version: '0.8' };
  if (isA2uiVersion(v)) return { ok: true, version: v };
  return {
    ok: false,
    response: c.json(makeError('HTTP_BAD_REQUEST', `unknown A2UI version ${JSON.stringify(v.slice(0, 20))}; v= takes ${A2UI_VERSIONS.join(', ')}`), 400),
  };
}

export function mountA2uiRoutes(app: Hono, deps: A2uiRouteDeps): void {
  const heartbeatMs = deps.heartbeatMs ?? 15_000;
  const retryMs = deps.retryMs ?? 2_000;
  const maxEventBytes = deps.maxEventBytes ?? 64 * 1024;
  const onError = deps.onError ?? ((error, where) => console.error(`[a2ui ${where.route} ${where.cid}]`, error));
  /** Undefined when ready; else the canonical 500 (the failure goes to onError). */
  const prepare = async (c: Context, feed: A2uiFeed, cid: string, route: string, lastEventId?: string): Promise<Response | undefined> => {
    try {
      await feed.prepare?.(cid, lastEventId);
      return undefined;
    } catch (error) {
      // The shared state is away: answered 503 with a retry hint (storeGuard).
      if (error instanceof StoreUnavailableError) throw error;
      onError(error, { route, cid });
      return c.json(makeError('INTERNAL_ERROR', 'the conversation could not be prepared for streaming'), 500);
    }
  };
  const heartbeat = createHeartbeat(heartbeatMs);
  const drains = createDrainBatcher();
  const sinkOptions = deps.socketWrites === false ? { socketWrites: false } : {};
  const allowed = async (c: Context): Promise<string | undefined> => {
    const cid = c.req.param('cid');
    return cid !== undefined && cid !== '' && (await deps.authorize(c, cid)) ? cid : undefined;
  };

  /** The catalogue a request's client has (`?catalog=<id>`, repeatable): the app's, or the basic one. */
  const catalogOf = (c: Context): CatalogChoice => deps.catalog?.(c.req.queries('catalog')) ?? 'basic';

  app.get('/a2ui/c/:cid/stream', storeGuard(async (c) => {
    const cid = await allowed(c);
    if (cid === undefined) return c.notFound();
    const asked = requestedVersion(c);
    if (!asked.ok) return asked.response;
    const feed = deps.feed(asked.version, catalogOf(c));
    // EventSource sends the header on its own reconnects; the query form serves manual ones.
    const lastEventId = c.req.header('last-event-id') ?? c.req.query('lastEventId');
    const failed = await prepare(c, feed, cid, 'stream', lastEventId);
    if (failed) return failed;
    const params: ConnectionParams = {
      feed, cid, lastEventId, retryMs, heartbeat, drains,
      ...(deps.streamCut ? { dropped: (reason: string) => { if (reason !== 'shutdown') deps.streamCut!(asked.version, reason); } } : {}),
    };
    /** Counted live from here until the connection is over (or failed to start). */
    const counted = (sink: Parameters<typeof runConnection>[0]): Promise<void> => {
      const closed = deps.streamOpened?.(asked.version);
      try {
        return closed === undefined ? runConnection(sink, params) : runConnection(sink, params).finally(closed);
      } catch (error) {
        closed?.();
        throw error;
      }
    };
    const outgoing = (c.env as { outgoing?: unknown } | undefined)?.outgoing;
    // `*` and no Allow-Credentials: a browser shares such an answer only with a request it sent
    // without cookies, so a session cookie (which also authorises this route, for the pages) can
    // never be what let a page of another origin read it. And it is sent only to a request that
    // carries its bearer token in the URL (`?token=`, the way an EventSource authenticates): the
    // same token any client may send from anywhere (curl, an A2A client), here from a browser
    // page, such as the MCP App view, whose origin is opaque ("null").
    const cors = deps.crossOriginStreams === true && (c.req.query('token') ?? '') !== '';
    if (outgoing instanceof ServerResponse) {
      // On @hono/node-server: write to the socket ourselves (see sse.ts), hono sends nothing;
      // nodeSink's writeHead merges what is set on the response here.
      if (cors) outgoing.setHeader('Access-Control-Allow-Origin', '*');
      try {
        void counted(nodeSink(outgoing, sinkOptions));
      } catch (error) {
        onError(error, { route: 'stream', cid });
        return c.json(makeError('INTERNAL_ERROR', 'the stream could not be initialised'), 500);
      }
      return RESPONSE_ALREADY_SENT;
    }
    c.header('X-Accel-Buffering', 'no');
    if (cors) c.header('Access-Control-Allow-Origin', '*');
    return streamSSE(c, async (stream) => {
      const sink = webSink(stream);
      try {
        await counted(sink);
      } catch (error) {
        onError(error, { route: 'stream', cid });
      }
    });
  }));

  app.get('/a2ui/c/:cid/snapshot.jsonl', storeGuard(async (c) => {
    const cid = await allowed(c);
    if (cid === undefined) return c.notFound();
    const asked = requestedVersion(c);
    if (!asked.ok) return asked.response;
    const feed = deps.feed(asked.version, catalogOf(c));
    const failed = await prepare(c, feed, cid, 'snapshot');
    if (failed) return failed;
    // Same tick: the checkpoint names exactly the state of the snapshot.
    feed.open?.(cid);
    const checkpoint = feed.hub.checkpoint(cid);
    const messages = feed.snapshot(cid);
    const body = messages.map((m) => `${serialise(m)}\n`).join('');
    return c.body(body, 200, {
      'Content-Type': SNAPSHOT_CONTENT_TYPE,
      'Cache-Control': 'no-store',
      [SNAPSHOT_CHECKPOINT_HEADER]: checkpoint.id,
    });
  }));

  app.post(
    '/a2ui/c/:cid/events',
    bodyLimit({
      maxSize: maxEventBytes,
      // Transport guard against unbounded reads; keep it above the ingress's own envelope limit.
      onError: (c) => c.json(makeError('HTTP_PAYLOAD_TOO_LARGE', `request body over ${maxEventBytes} bytes`), 413),
    }),
    storeGuard(async (c) => {
      const cid = await allowed(c);
      if (cid === undefined) return c.notFound();
      // A custom header (or Authorization: Bearer) cannot be sent cross-site without a CORS
      // preflight, which we never grant; hono/csrf would let a JSON POST without Origin through.
      // Other Authorization schemes (Basic, Negotiate, …) are no proof: a browser adds them on
      // its own behind an auth proxy.
      if (c.req.header(A2UI_CLIENT_HEADER) === undefined && !/^Bearer\s/i.test(c.req.header('authorization') ?? '')) {
        return c.json(makeError('HTTP_ORIGIN_FORBIDDEN', `missing ${A2UI_CLIENT_HEADER} or Authorization: Bearer header`), 403);
      }
      const raw = await c.req.text();
      const idempotencyKey = c.req.header('idempotency-key');
      let result: { status: number; body: unknown };
      try {
        result = await deps.postEvent(cid, raw, idempotencyKey === undefined ? {} : { idempotencyKey });
      } catch (error) {
        if (error instanceof StoreUnavailableError) throw error;
        onError(error, { route: 'events', cid });
        return c.json(makeError('INTERNAL_ERROR', 'event ingress failed'), 500);
      }
      c.header('Cache-Control', 'no-store');
      if (result.body === undefined || result.status === 204) return c.body(null, result.status as 204);
      const code = (result.body as { code?: unknown }).code;
      const retryAfter = typeof code === 'string' ? retryAfterOf(code) : undefined;
      if (retryAfter !== undefined) c.header('Retry-After', String(retryAfter));
      return c.json(result.body as object, result.status as 200);
    }),
  );

  app.get('/a2ui/c/:cid', async (c) => {
    const cid = await allowed(c);
    if (cid === undefined) return c.notFound();
    const asked = requestedVersion(c);
    if (!asked.ok) return asked.response;
    const { version } = asked;
    const assets = await deps.clientAssets(version);
    const base = `/a2ui/c/${encodeURIComponent(cid)}`;
    const connect = await deps.connectInfo?.(c, cid);
    const chrome = await deps.pageChrome?.(c, cid);
    const html = renderA2uiPage({
      title: deps.pageTitle ?? 'Surfacer',
      version,
      scriptPath: assets.script.path,
      stylePath: assets.style.path,
      ...(deps.themeStyle ? { themePath: deps.themeStyle.path } : {}),
      // The page advertises the app catalogue only when its client holds the app's elements.
      streamUrl: pageStreamUrl(`${base}/stream`, version, c.req.queries('catalog'), assets.appComponents === false ? undefined : deps.appCatalogId),
      eventsUrl: `${base}/events`,
      ...(connect ? { connect: { token: connect.token, origin: new URL(c.req.url).origin, base } } : {}),
      ...(chrome ? { chrome } : {}),
    });
    return c.html(html, 200, {
      'Content-Security-Policy': A2UI_PAGE_CSP,
      'Cache-Control': 'no-store',
      'Referrer-Policy': 'no-referrer',
      'X-Content-Type-Options': 'nosniff',
    });
  });

  app.get(THEME_ROUTE, (c) => (deps.themeStyle?.path === c.req.path ? serveAsset(c, deps.themeStyle) : c.notFound()));

  app.get(ASSET_ROUTE, async (c) => {
    const assets = await deps.clientAssets(clientBundleOfAsset(c.req.param('file') ?? ''));
    const asset = [assets.script, assets.style].find((a) => a.path === c.req.path);
    return asset === undefined ? c.notFound() : serveAsset(c, asset);
  });
}

/**
 * The stream the app's own page follows: it advertises the app catalogue (the page's renderer
 * registers the app's components), unless the page was asked with `catalog` parameters of its
 * own (e.g. `?catalog=<basic id>` to see the fallbacks), which it passes on.
 */
export function pageStreamUrl(stream: string, version: A2uiVersion, asked: readonly string[] | undefined, appCatalogId: string | undefined): string {
  const query = new URLSearchParams();
  if (version !== '0.8') query.set('v', version);
  // Bounded like any advertisement (catalog-choice.ts): the page never echoes more than a stream would read.
  const given = advertisedInQuery(asked).ids;
  const catalogs = given.length > 0 ? given : appCatalogId === undefined ? [] : [appCatalogId];
  for (const id of catalogs) query.append('catalog', id);
  const text = query.toString();
  return text === '' ? stream : `${stream}?${text}`;
}

/**
 * The shared state is away (e.g. Redis is down) while a request authorises, prepares or posts:
 * the canonical 503 with a retry hint, as JSON like every other answer of these client routes
 * (the app's error handler would answer a browser-looking request with an HTML page).
 */
function storeGuard(handler: (c: Context) => Promise<Response>): (c: Context) => Promise<Response> {
  return async (c) => {
    try {
      return await handler(c);
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) throw error;
      c.header('Retry-After', String(retryAfterOf('STORE_UNAVAILABLE')));
      return c.json(makeError('STORE_UNAVAILABLE', error.message), 503);
    }
  };
}

function serveAsset(c: Context, asset: ClientAsset): Response {
  // The file name carries the content hash, so it can be cached for good.
  const headers = {
    'Content-Type': asset.contentType,
    'Cache-Control': 'public, max-age=31536000, immutable',
    ETag: asset.etag,
    'X-Content-Type-Options': 'nosniff',
  };
  if (c.req.header('if-none-match') === asset.etag) return c.body(null, 304, headers);
  return c.body(asset.contents, 200, headers);
}
