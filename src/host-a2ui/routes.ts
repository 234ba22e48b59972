import type { Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { streamSSE, type SSEStreamingApi } from 'hono/streaming';
import { makeError } from '../errors/index.ts';
import type { A2uiClientAssets, ClientAsset } from './client-bundle.ts';
import { formatEventId, formatInitEventId } from './event-id.ts';
import { HubClosedError, type A2uiHub, type HubSubscription, type SubscribeResult } from './hub.ts';
import { initMessages, type A2uiServerMessage } from './messages.ts';
import { A2UI_PAGE_CSP, renderA2uiPage } from './page.ts';

export interface A2uiRouteDeps {
  hub: A2uiHub;
  /** Full current state of every surface of the conversation (A2UI messages, in order). */
  snapshot(cid: string): readonly A2uiServerMessage[] | Promise<readonly A2uiServerMessage[]>;
  /**
   * Session owner or bearer token. Browsers cannot set headers on EventSource, so the page
   * sends its token as `?token=` on GET (stream, snapshot) and as `Authorization: Bearer` on
   * POST. False → 404, indistinguishable from an unknown conversation.
   */
  authorize(c: Context, cid: string): boolean | Promise<boolean>;
  /** The shared ingress: raw body in, canonical status and JSON body out. */
  postEvent(cid: string, rawBody: string, headers: { idempotencyKey?: string }): Promise<{ status: number; body: unknown }>;
  /** Resolves the (cached) client bundle and stylesheet; `a2uiClientAssets` in production. */
  clientAssets(): Promise<A2uiClientAssets>;
  /** Interval of `: ping` comments on idle streams. Default 15 000. */
  heartbeatMs?: number;
  /** SSE `retry:` hint sent first on every stream. Default 2 000. */
  retryMs?: number;
  /** Largest accepted POST body. Default 64 KiB. */
  maxEventBytes?: number;
  pageTitle?: string;
  /** Failures that cannot reach a client (snapshot or write errors). Default console.error. */
  onError?(error: unknown, where: { route: string; cid: string }): void;
}

export const A2UI_CLIENT_HEADER = 'x-surfacer-client';
export const SNAPSHOT_CONTENT_TYPE = 'application/jsonl; charset=utf-8';
/** Response header of the snapshot: send it back as Last-Event-ID to resume after it. */
export const SNAPSHOT_CHECKPOINT_HEADER = 'x-a2ui-checkpoint';

const ASSET_ROUTE = '/assets/:file{a2ui-client-[0-9a-f]{8,64}\\.(?:js|css)}';

export function mountA2uiRoutes(app: Hono, deps: A2uiRouteDeps): void {
  const heartbeatMs = deps.heartbeatMs ?? 15_000;
  const retryMs = deps.retryMs ?? 2_000;
  const maxEventBytes = deps.maxEventBytes ?? 64 * 1024;
  const onError = deps.onError ?? ((error, where) => console.error(`[a2ui ${where.route} ${where.cid}]`, error));
  const allowed = async (c: Context): Promise<string | undefined> => {
    const cid = c.req.param('cid');
    return cid !== undefined && cid !== '' && (await deps.authorize(c, cid)) ? cid : undefined;
  };

  app.get('/a2ui/c/:cid/stream', async (c) => {
    const cid = await allowed(c);
    if (cid === undefined) return c.notFound();
    // EventSource sends the header on its own reconnects; the query form serves manual ones.
    const lastEventId = c.req.header('last-event-id') ?? c.req.query('lastEventId');
    c.header('X-Accel-Buffering', 'no');
    return streamSSE(c, (stream) =>
      runStream(stream, { hub: deps.hub, snapshot: deps.snapshot, cid, lastEventId, heartbeatMs, retryMs, signal: c.req.raw.signal })
        .catch((error: unknown) => onError(error, { route: 'stream', cid })));
  });

  app.get('/a2ui/c/:cid/snapshot.jsonl', async (c) => {
    const cid = await allowed(c);
    if (cid === undefined) return c.notFound();
    const checkpoint = deps.hub.checkpoint(cid);
    const messages = await deps.snapshot(cid);
    const body = messages.map((m) => `${JSON.stringify(m)}\n`).join('');
    return c.body(body, 200, {
      'Content-Type': SNAPSHOT_CONTENT_TYPE,
      'Cache-Control': 'no-store',
      [SNAPSHOT_CHECKPOINT_HEADER]: checkpoint.id,
    });
  });

  app.post(
    '/a2ui/c/:cid/events',
    bodyLimit({
      maxSize: maxEventBytes,
      // Transport guard against unbounded reads; keep it above the ingress's own envelope limit.
      onError: (c) => c.json(makeError('HTTP_PAYLOAD_TOO_LARGE', `request body over ${maxEventBytes} bytes`), 413),
    }),
    async (c) => {
      const cid = await allowed(c);
      if (cid === undefined) return c.notFound();
      // A custom header (or Authorization) cannot be sent cross-site without a CORS preflight,
      // which we never grant; hono/csrf would let a JSON POST without Origin through.
      if (c.req.header(A2UI_CLIENT_HEADER) === undefined && c.req.header('authorization') === undefined) {
        return c.json(makeError('HTTP_ORIGIN_FORBIDDEN', `missing ${A2UI_CLIENT_HEADER} or Authorization header`), 403);
      }
      const raw = await c.req.text();
      const idempotencyKey = c.req.header('idempotency-key');
      let result: { status: number; body: unknown };
      try {
        result = await deps.postEvent(cid, raw, idempotencyKey === undefined ? {} : { idempotencyKey });
      } catch (error) {
        onError(error, { route: 'events', cid });
        return c.json(makeError('INTERNAL_ERROR', 'event ingress failed'), 500);
      }
      c.header('Cache-Control', 'no-store');
      if (result.body === undefined || result.status === 204) return c.body(null, result.status as 204);
      return c.json(result.body as object, result.status as 200);
    },
  );

  app.get('/a2ui/c/:cid', async (c) => {
    const cid = await allowed(c);
    if (cid === undefined) return c.notFound();
    const assets = await deps.clientAssets();
    const base = `/a2ui/c/${encodeURIComponent(cid)}`;
    const html = renderA2uiPage({
      title: deps.pageTitle ?? 'Surfacer',
      scriptPath: assets.script.path,
      stylePath: assets.style.path,
      streamUrl: `${base}/stream`,
      eventsUrl: `${base}/events`,
      token: c.req.query('token'),
    });
    return c.html(html, 200, {
      'Content-Security-Policy': A2UI_PAGE_CSP,
      'Cache-Control': 'no-store',
      'Referrer-Policy': 'no-referrer',
      'X-Content-Type-Options': 'nosniff',
    });
  });

  app.get(ASSET_ROUTE, async (c) => {
    const assets = await deps.clientAssets();
    const asset = [assets.script, assets.style].find((a) => a.path === c.req.path);
    return asset === undefined ? c.notFound() : serveAsset(c, asset);
  });
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

interface StreamParams {
  hub: A2uiHub;
  snapshot: A2uiRouteDeps['snapshot'];
  cid: string;
  lastEventId: string | undefined;
  heartbeatMs: number;
  retryMs: number;
  signal: AbortSignal;
}

/**
 * One SSE connection: init or resume, then every published batch, `: ping` when idle. Ends
 * when the client goes away, or the hub drops the subscriber (slow, forgotten, shutdown) — the
 * client then reconnects with Last-Event-ID and is resumed or re-initialised.
 */
async function runStream(stream: SSEStreamingApi, p: StreamParams): Promise<void> {
  let ended = false;
  let writing = false;
  let wake: (() => void) | undefined;
  const wakeUp = (): void => wake?.();
  const end = (): void => {
    ended = true;
    // A write stuck on a client that stopped reading would never return: cut it.
    if (writing) stream.abort();
    wakeUp();
  };

  let result: SubscribeResult;
  try {
    result = p.hub.subscribe(p.cid, p.lastEventId, { notify: wakeUp, dropped: end });
  } catch (error) {
    if (error instanceof HubClosedError) return;
    throw error;
  }
  const sub: HubSubscription = result.subscription;
  stream.onAbort(end);
  p.signal.addEventListener('abort', end, { once: true });
  const isOver = (): boolean => ended || stream.aborted;

  const write = async (text: string): Promise<void> => {
    writing = true;
    try {
      await stream.write(text);
    } finally {
      writing = false;
    }
  };
  const waitForWake = (ms: number): Promise<boolean> =>
    new Promise((resolve) => {
      const timer = setTimeout(() => {
        wake = undefined;
        resolve(false);
      }, ms);
      wake = () => {
        clearTimeout(timer);
        wake = undefined;
        resolve(true);
      };
    });

  try {
    await write(`retry: ${p.retryMs}\n\n`);
    if (result.mode === 'init') {
      const messages = initMessages(await p.snapshot(p.cid), result.knownSurfaceIds);
      for (let i = 0; i < messages.length && !isOver(); i += 1) {
        // Only the last message carries the checkpoint: a client cut off inside the init holds
        // a provisional id and is re-initialised, never resumed from a half-applied state.
        const id = i === messages.length - 1 ? formatEventId(result.stream, result.seq) : formatInitEventId(result.stream, result.seq, i);
        await write(frame(id, JSON.stringify(messages[i])));
      }
      // An id-only event sets the client's last event id without dispatching anything.
      if (messages.length === 0) await write(`id: ${formatEventId(result.stream, result.seq)}\n\n`);
    } else {
      for (const event of result.missed) {
        if (isOver()) break;
        await write(frame(event.id, event.data));
      }
    }
    while (!isOver()) {
      const events = sub.take();
      if (events.length > 0) {
        for (const event of events) {
          if (isOver()) break;
          await write(frame(event.id, event.data));
        }
        continue;
      }
      const woken = await waitForWake(p.heartbeatMs);
      if (!woken && !isOver()) await write(': ping\n\n');
    }
  } finally {
    sub.close();
    wakeUp();
    p.signal.removeEventListener('abort', end);
  }
}

/** One A2UI message per event; JSON.stringify never emits a raw newline, so one `data:` line. */
function frame(id: string, data: string): string {
  return `id: ${id}\ndata: ${data}\n\n`;
}
