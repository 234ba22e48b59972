import { streamSSE } from 'hono/streaming';
import type { ConversationEvent } from '../../conversation/index.ts';
import { changesHtml, refreshHtml } from '../fragments.ts';
import { PAGE_ID, type Host, type HostHono } from '../host.ts';

/**
 * GET /c/{cid}/events: server-initiated updates as HTML fragments (htmx SSE extension, event
 * `update`, all out-of-band swaps). Changes a page caused itself are skipped for that page (it
 * got them in its own response) but still advance the event id. A page that connects behind
 * the current version (`v`, or Last-Event-ID on reconnect) first gets a full refresh.
 */
export function registerEventRoutes(app: HostHono, host: Host): void {
  app.get('/c/:cid/events', (c) => {
    const conversation = c.get('conversation');
    const pc = c.get('pc');
    const page = c.req.query('page');
    const pageId = page !== undefined && PAGE_ID.test(page) ? page : undefined;
    const since = Number(c.req.header('Last-Event-ID') ?? c.req.query('v') ?? Number.NaN);
    c.header('X-Accel-Buffering', 'no');
    return streamSSE(c, async (stream) => {
      const queue: Array<{ id: number; data?: string }> = [];
      let wake: (() => void) | undefined;
      let closed = false;
      const notify = (): void => { const w = wake; wake = undefined; w?.(); };
      const unsubscribe = host.service.subscribe(conversation.id, (event: ConversationEvent) => {
        const own = pageId !== undefined && event.cause.origin === pageId;
        queue.push(own ? { id: event.version } : { id: event.version, data: changesHtml(pc, event.prev, event.next) });
        notify();
      });
      const unregister = host.streams.add(() => { closed = true; notify(); });
      stream.onAbort(() => { closed = true; notify(); });
      try {
        const current = await host.service.get(conversation.id);
        if (current && Number.isFinite(since) && current.version > since) {
          queue.unshift({ id: current.version, data: refreshHtml(pc, current.ir) });
        }
        await stream.write('retry: 2000\n\n');
        while (!closed && !stream.aborted) {
          const next = queue.shift();
          if (next) {
            if (next.data === undefined) await stream.write(`id: ${next.id}\n\n`);
            else await stream.writeSSE({ event: 'update', id: String(next.id), data: next.data });
            continue;
          }
          let timer: NodeJS.Timeout | undefined;
          const pinged = await new Promise<boolean>((resolve) => {
            wake = () => resolve(false);
            timer = setTimeout(() => resolve(true), host.limits.sseHeartbeatMs);
          });
          clearTimeout(timer);
          if (pinged && !closed) await stream.write(': ping\n\n');
        }
      } finally {
        unsubscribe();
        unregister();
      }
    });
  });
}
