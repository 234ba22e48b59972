import { streamSSE } from 'hono/streaming';
import type { ConversationEvent } from '../../conversation/index.ts';
import { openPushConnection, SSE_SHUTDOWN_FAREWELL, sseFrame, webSink, type PushConnection } from '../../hosting/index.ts';
import { changesHtml, refreshHtml } from '../fragments.ts';
import { PAGE_ID, type Host, type HostHono } from '../host.ts';
import { createPreview } from '../stream-preview.ts';

/**
 * Updates queued for one page beyond this mean it stopped reading: its stream ends, and the
 * browser's reconnect (Last-Event-ID) gets one full refresh instead.
 */
const MAX_PENDING_UPDATES = 64;

/**
 * GET /c/{cid}/events: server-initiated updates as HTML fragments (htmx SSE extension, event
 * `update`, all out-of-band swaps). Changes a page caused itself are skipped for that page (it
 * got them in its own response) but still advance the event id. A page that connects behind
 * the current version (`v`, or Last-Event-ID on reconnect) first gets a full refresh.
 * Through hono's streamSSE (not the raw Node response), so the host's security headers apply.
 */
export function registerEventRoutes(app: HostHono, host: Host): void {
  app.get('/c/:cid/events', async (c) => {
    const conversation = c.get('conversation');
    const page = c.req.query('page');
    const pageId = page !== undefined && PAGE_ID.test(page) ? page : undefined;
    // The stream's fragments belong to its page's rendering (the forms' idempotency keys).
    const pc = pageId === undefined ? c.get('pc') : { ...c.get('pc'), renderId: pageId };
    const since = Number(c.req.header('Last-Event-ID') ?? c.req.query('v') ?? Number.NaN);
    let pending: Array<{ version: number; frame: string }> = [];
    let connection: PushConnection | undefined;
    // Asked to end (too far behind, or shutdown) before the connection opened.
    let endWhenOpen = false;
    const end = (reason?: 'shutdown'): void => {
      if (connection) connection.end(reason === 'shutdown' ? SSE_SHUTDOWN_FAREWELL : undefined);
      else endWhenOpen = true;
    };
    // Too far behind: ended (the page reconnects and is refreshed), counted once.
    let wasCut = false;
    const cut = (): void => {
      if (!wasCut) host.deps.metrics?.streamCut('htmx', 'slow');
      wasCut = true;
      end();
    };
    // Subscribed before the current version is read: nothing falls between the two.
    const unsubscribe = host.service.subscribe(conversation.id, (event: ConversationEvent) => {
      // A streamed part reaches the page that asked too: its own response comes only at the end.
      const own = pageId !== undefined && event.cause.origin === pageId && event.cause.streamed !== true;
      const id = String(event.version);
      // A log rewritten by a failover (entries the page was shown are gone): the page is refreshed
      // whole, as on a reconnect, rather than patched from what it was shown.
      const data = event.rewritten === true ? refreshHtml(pc, event.next) : changesHtml(pc, event.prev, event.next);
      pending.push({ version: event.version, frame: own && event.rewritten !== true ? sseFrame({ id }) : sseFrame({ event: 'update', id, data }) });
      if (pending.length <= MAX_PENDING_UPDATES) connection?.drain();
      else cut();
    });
    // The assistant's words while its answer streams: previews, without an event id (not replayed on reconnect).
    const previewHtml = createPreview();
    const unsubscribeStream = host.service.subscribeStream(conversation.id, (event) => {
      const html = previewHtml(event);
      if (html === undefined) return;
      pending.push({ version: Number.MAX_SAFE_INTEGER, frame: sseFrame({ event: 'update', data: html }) });
      if (pending.length <= MAX_PENDING_UPDATES) connection?.drain();
      else cut();
    });
    const unregister = host.streams.add(end);
    let head = 'retry: 2000\n\n';
    try {
      // Before the response starts: a backend that does not answer gets the canonical 503 (and
      // Retry-After), not an empty stream that ends at once.
      const current = await host.service.get(conversation.id);
      // Behind, or ahead of the log (shown entries a failover then lost): refreshed either way.
      if (current && Number.isFinite(since) && current.version !== since) {
        head += sseFrame({ event: 'update', id: String(current.version), data: refreshHtml(pc, current.ir) });
        // The refresh already shows what these changes did (appending them again would repeat transcript entries).
        pending = pending.filter((p) => p.version > current.version);
      }
    } catch (error) {
      unsubscribe();
      unsubscribeStream();
      unregister();
      throw error;
    }
    c.header('X-Accel-Buffering', 'no');
    return streamSSE(c, async (stream) => {
      const closed = host.deps.metrics?.streamOpened('htmx');
      connection = openPushConnection(webSink(stream), host.heartbeat, {
        head,
        pull: () => pending.splice(0).map((p) => p.frame),
        onEnd: () => { unsubscribe(); unsubscribeStream(); unregister(); closed?.(); },
      });
      if (endWhenOpen) connection.end();
      await connection.finished;
    });
  });
}
