import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import { a2uiWire } from '../../src/compiler/index.ts';
import { a2uiClientAssets, createA2uiHub, mountA2uiRoutes, SNAPSHOT_CHECKPOINT_HEADER } from '../../src/host-a2ui/index.ts';
import { SHUTDOWN_RETRY_MS } from '../../src/hosting/index.ts';
import { openSse, SseParser, type SseConnection, type SseEvent } from '../support/sse-client.ts';
import { eventually, formSurface, noteSurface, startTestServer, titleUpdate, type TestServer, type TestServerOptions } from './fixtures.ts';

let server: TestServer | undefined;
const open: SseConnection[] = [];

async function start(options: TestServerOptions = {}): Promise<TestServer> {
  server = await startTestServer(options);
  return server;
}

async function stream(s: TestServer, cid: string, headers: Record<string, string> = {}): Promise<SseConnection> {
  const conn = await openSse(`${s.url}/a2ui/c/${cid}/stream`, { headers });
  open.push(conn);
  return conn;
}

const parsed = (events: SseEvent[]): unknown[] => events.map((e) => JSON.parse(e.data) as unknown);

afterEach(async () => {
  for (const conn of open.splice(0)) conn.close();
  await server?.close();
  server = undefined;
});

describe('SSE parser', () => {
  it('follows the spec: CRLF/CR, BOM, multi-line data, comments, id-only events', () => {
    const events: SseEvent[] = [];
    const comments: string[] = [];
    const p = new SseParser({ onEvent: (e) => events.push(e), onComment: (c) => comments.push(c) });
    p.feed('\uFEFFretry: 10\r\n\r\n: ping\n\nid: 1\ndata: a\ndata: b\r');
    p.feed('\n\r\nid: 2\n\nevent: x\ndata:c\n\n');
    expect(events).toEqual([
      { type: 'message', data: 'a\nb', lastEventId: '1' },
      { type: 'x', data: 'c', lastEventId: '2' },
    ]);
    expect(comments).toEqual(['ping']);
    expect(p.lastEventId).toBe('2');
  });
});

describe('GET /a2ui/c/:cid/stream', () => {
  it('initialises every surface (deleteSurface first), one message per event with ids, then live batches', async () => {
    const s = await start({ snapshotMessages: [...formSurface('main'), ...noteSurface('side', 'hello')] });
    const conn = await stream(s, 'c1');
    expect(conn.response.status).toBe(200);
    expect(conn.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const init = await conn.take(7);
    expect(parsed(init)).toEqual([
      { deleteSurface: { surfaceId: 'main' } },
      { deleteSurface: { surfaceId: 'side' } },
      ...formSurface('main'),
      ...noteSurface('side', 'hello'),
    ]);
    const { stream: streamId } = s.hub.checkpoint('c1');
    expect(init.slice(0, 6).map((e) => e.lastEventId)).toEqual([0, 1, 2, 3, 4, 5].map((k) => `${streamId}-0-i${k}`));
    expect(init[6]!.lastEventId).toBe(`${streamId}-0`);
    expect(conn.retries).toEqual([2000]);
    expect(s.snapshotCalls).toEqual(['c1']);

    s.publish('c1', [titleUpdate('main', 'Updated'), titleUpdate('side', 'x')]);
    const live = await conn.take(2);
    // One log version, two messages: only the last carries the version's own id.
    expect(live.map((e) => e.lastEventId)).toEqual([`${streamId}-1.0`, `${streamId}-1`]);
    expect(parsed(live)).toEqual([titleUpdate('main', 'Updated'), titleUpdate('side', 'x')]);
  });

  it('sends an id-only checkpoint when there is nothing to initialise', async () => {
    const s = await start({ snapshotMessages: [] });
    const conn = await stream(s, 'empty');
    await eventually(() => conn.parser.lastEventId !== '', 3000, 'checkpoint id');
    expect(conn.parser.lastEventId).toBe(s.hub.checkpoint('empty').id);
    expect(conn.events).toEqual([]);
  });

  it('resumes with Last-Event-ID from the buffer, without re-initialising', async () => {
    const s = await start();
    const first = await stream(s, 'c2');
    await first.take(4);
    s.publish('c2', [titleUpdate('main', 'one')]);
    const one = await first.next();
    first.close();
    await eventually(() => s.hub.subscriberCount('c2') === 0, 3000, 'unsubscribe');
    s.publish('c2', [titleUpdate('main', 'two')]);
    s.publish('c2', [titleUpdate('main', 'three')]);

    const resumed = await stream(s, 'c2', { 'Last-Event-ID': one.lastEventId });
    expect(parsed(await resumed.take(2))).toEqual([titleUpdate('main', 'two'), titleUpdate('main', 'three')]);
    expect(s.snapshotCalls).toEqual(['c2']);
    // The query form (for clients that reconnect by hand) behaves the same.
    const byQuery = await openSse(`${s.url}/a2ui/c/c2/stream?lastEventId=${encodeURIComponent(one.lastEventId)}`);
    open.push(byQuery);
    expect(parsed(await byQuery.take(2))).toEqual([titleUpdate('main', 'two'), titleUpdate('main', 'three')]);
  });

  it('re-initialises when Last-Event-ID is older than the buffer or provisional', async () => {
    const s = await start({ hubOptions: { limits: { bufferMessages: 3 } } });
    const first = await stream(s, 'c3');
    const init = await first.take(4);
    first.close();
    for (let i = 0; i < 5; i += 1) s.publish('c3', [titleUpdate('main', `t${i}`)]);
    s.publish('c3', noteSurface('gone', 'closed later'));
    s.publish('c3', [{ deleteSurface: { surfaceId: 'gone' } }]);

    const again = await stream(s, 'c3', { 'Last-Event-ID': init[3]!.lastEventId });
    const events = await again.take(5);
    expect(parsed(events)).toEqual([
      { deleteSurface: { surfaceId: 'main' } },
      { deleteSurface: { surfaceId: 'gone' } },
      ...formSurface('main'),
    ]);
    expect(events[4]!.lastEventId).toBe(s.hub.checkpoint('c3').id);

    const partial = await stream(s, 'c3', { 'Last-Event-ID': init[1]!.lastEventId });
    expect(parsed(await partial.take(1))).toEqual([{ deleteSurface: { surfaceId: 'main' } }]);
  });

  it('prepares the conversation first, then takes snapshot and checkpoint together; extra surface ids are deleted too', async () => {
    const calls: string[] = [];
    const s = await start({
      prepare: async (cid) => {
        calls.push(`prepare ${cid}`);
        // Something is published while the conversation is being prepared: the snapshot taken
        // afterwards already reflects it, and the stream must not repeat it.
        server!.publish(cid, [titleUpdate('main', 'during prepare')]);
      },
      surfaceIds: (cid) => { calls.push(`ids ${cid}`); return ['old--e3']; },
    });
    const conn = await stream(s, 'p1');
    const init = await conn.take(5);
    expect(calls).toEqual(['prepare p1', 'ids p1']);
    expect(parsed(init)).toEqual([
      { deleteSurface: { surfaceId: 'main' } }, { deleteSurface: { surfaceId: 'old--e3' } }, ...formSurface('main'),
    ]);
    expect(init[4]!.lastEventId).toBe(s.hub.checkpoint('p1').id);
    expect(s.hub.checkpoint('p1').version).toBe(1);
    s.publish('p1', [titleUpdate('main', 'after')]);
    expect(parsed([await conn.next()])).toEqual([titleUpdate('main', 'after')]);
  });

  it('ends the request when prepare fails, without subscribing', async () => {
    const s = await start({ prepare: () => { throw new Error('gone'); } });
    const res = await fetch(`${s.url}/a2ui/c/p2/stream`);
    expect(res.status).toBe(500);
    expect(((await res.json()) as { code: string }).code).toBe('INTERNAL_ERROR');
    expect((await fetch(`${s.url}/a2ui/c/p2/snapshot.jsonl`)).status).toBe(500);
    expect(s.hub.stats().subscribers).toBe(0);
  });

  it('sends heartbeats on an idle stream', async () => {
    const s = await start({ heartbeatMs: 40 });
    const conn = await stream(s, 'c4');
    await conn.take(4);
    await conn.waitForComments((c) => c.filter((t) => t === 'ping').length >= 3, 3000);
    expect(conn.events).toHaveLength(4);
  });

  it('unsubscribes when the client disconnects', async () => {
    const s = await start({ heartbeatMs: 30 });
    const a = await stream(s, 'c5');
    const b = await stream(s, 'c5');
    await a.take(4);
    await b.take(4);
    expect(s.hub.subscriberCount('c5')).toBe(2);
    a.close();
    await eventually(() => s.hub.subscriberCount('c5') === 1, 3000, 'first unsubscribe');
    b.close();
    await eventually(() => s.hub.subscriberCount('c5') === 0, 3000, 'second unsubscribe');
    s.publish('c5', [titleUpdate('main', 'nobody listens')]);
    expect(s.hub.stats().queuedMessages).toBe(0);
  });

  it('drops a client that stops reading and frees its subscription', async () => {
    const s = await start({ hubOptions: { limits: { queueMessages: 8, queueBytes: 64 * 1024 } } });
    const url = new URL(s.url);
    const socket = connect(Number(url.port), url.hostname);
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write('GET /a2ui/c/c6/stream HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n');
    socket.pause(); // never read: kernel buffers fill, writes stall, the queue overflows
    await eventually(() => s.hub.subscriberCount('c6') === 1, 3000, 'subscribe');
    const big = 'x'.repeat(32 * 1024);
    let published = 0;
    while (published < 2_000 && s.hub.subscriberCount('c6') > 0) {
      s.publish('c6', [titleUpdate('main', `${published}${big}`)]);
      published += 1;
      await new Promise((r) => setImmediate(r));
    }
    await eventually(() => s.hub.subscriberCount('c6') === 0, 5000, 'slow client dropped');
    // Far more than one queue's worth went out before the socket stalled and the queue filled.
    expect(published).toBeGreaterThan(8);
    expect(published).toBeLessThan(2_000);
    expect(s.hub.stats('c6').queuedBytes).toBe(0);
    socket.destroy();
  });

  it('ends open streams on hub shutdown with a short retry hint, so clients move to another instance soon', async () => {
    const s = await start();
    const conn = await stream(s, 'c7');
    await conn.take(4);
    s.hub.close();
    await conn.ended;
    expect(conn.retries).toEqual([2000, SHUTDOWN_RETRY_MS]);
    expect(s.hub.subscriberCount('c7')).toBe(0);
  });

  it('answers 404 to a conversation the caller may not see', async () => {
    const s = await start();
    for (const path of ['/stream', '/snapshot.jsonl', '']) {
      const res = await fetch(`${s.url}/a2ui/c/forbidden${path}`);
      expect(res.status, path).toBe(404);
    }
    const post = await fetch(`${s.url}/a2ui/c/forbidden/events`, {
      method: 'POST', headers: { 'X-Surfacer-Client': 'a2ui' }, body: '{}',
    });
    expect(post.status).toBe(404);
    expect(s.hub.stats().subscribers).toBe(0);
  });
});

describe('GET /a2ui/c/:cid/stream without @hono/node-server (app.request)', () => {
  it('falls back to hono\'s streamSSE with the same framing, and ends on hub shutdown', async () => {
    const hub = createA2uiHub();
    const app = new Hono();
    mountA2uiRoutes(app, {
      feed: () => ({ hub, open: (cid) => hub.open(cid, 'web', 0), snapshot: () => formSurface(), deleteSurface: a2uiWire('0.8').deleteSurface }),
      authorize: () => true, heartbeatMs: 60_000, onError: () => {},
      postEvent: async () => ({ status: 202, body: {} }), clientAssets: (version) => a2uiClientAssets(version),
    });
    const res = await app.request('/a2ui/c/w1/stream');
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events: SseEvent[] = [];
    const parser = new SseParser({ onEvent: (e) => events.push(e) });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    const read = (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        parser.feed(decoder.decode(value, { stream: true }));
      }
    })();
    await eventually(() => events.length === 4, 3000, 'init over web streams');
    hub.publish('w1', 1, [titleUpdate('main', 'web')]);
    await eventually(() => events.length === 5, 3000, 'live batch over web streams');
    expect(JSON.parse(events[4]!.data)).toEqual(titleUpdate('main', 'web'));
    expect(events[4]!.lastEventId).toBe(`${hub.checkpoint('w1').stream}-1`);
    hub.close();
    await read;
    expect(hub.stats().subscribers).toBe(0);
  });
});

describe('GET /a2ui/c/:cid/snapshot.jsonl', () => {
  it('returns the snapshot as JSONL with a checkpoint to resume the stream from', async () => {
    const s = await start();
    s.publish('c8', [titleUpdate('main', 'before')]);
    const res = await fetch(`${s.url}/a2ui/c/c8/snapshot.jsonl`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/jsonl; charset=utf-8');
    const text = await res.text();
    expect(text.endsWith('\n')).toBe(true);
    expect(text.trimEnd().split('\n').map((l) => JSON.parse(l) as unknown)).toEqual(formSurface());
    const checkpoint = res.headers.get(SNAPSHOT_CHECKPOINT_HEADER);
    expect(checkpoint).toBe(s.hub.checkpoint('c8').id);

    s.publish('c8', [titleUpdate('main', 'after')]);
    const conn = await stream(s, 'c8', { 'Last-Event-ID': checkpoint! });
    expect(parsed([await conn.next()])).toEqual([titleUpdate('main', 'after')]);
  });
});

describe('POST /a2ui/c/:cid/events', () => {
  const body = JSON.stringify({ userAction: { name: 'form.submit', surfaceId: 'main', sourceComponentId: 'form.save', timestamp: '2026-01-01T00:00:00.000Z', context: {} } });

  it('passes the raw body and Idempotency-Key to the ingress and relays its answer', async () => {
    const s = await start({ postStatus: () => 409 });
    const res = await fetch(`${s.url}/a2ui/c/c9/events`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Surfacer-Client': 'a2ui', 'Idempotency-Key': 'k-1' },
      body,
    });
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({ code: 'A2UI_C2S_SURFACE_STALE', message: 'UI is out of date. Please regenerate.' });
    expect(s.posts).toEqual([{ cid: 'c9', raw: body, body: JSON.parse(body) as unknown, idempotencyKey: 'k-1' }]);
  });

  it('refuses a POST without the client header or a bearer token (CSRF)', async () => {
    const s = await start();
    const res = await fetch(`${s.url}/a2ui/c/c9/events`, { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { code: string }).code).toBe('HTTP_ORIGIN_FORBIDDEN');
    const bearer = await fetch(`${s.url}/a2ui/c/c9/events`, { method: 'POST', headers: { Authorization: 'Bearer t' }, body });
    expect(bearer.status).toBe(202);
    expect(s.posts).toHaveLength(1);
  });

  it('accepts only the Bearer scheme as the custom-header proof (a browser adds Basic on its own)', async () => {
    const s = await start();
    for (const authorization of ['Basic dXNlcjpwdw==', 'Negotiate abc', 'Bearer', 'Bearerx t']) {
      const res = await fetch(`${s.url}/a2ui/c/c9/events`, { method: 'POST', headers: { Authorization: authorization }, body });
      expect(res.status, authorization).toBe(403);
      expect(((await res.json()) as { code: string }).code).toBe('HTTP_ORIGIN_FORBIDDEN');
    }
    expect(s.posts).toHaveLength(0);
    const lower = await fetch(`${s.url}/a2ui/c/c9/events`, { method: 'POST', headers: { Authorization: 'bEaReR t' }, body });
    expect(lower.status).toBe(202);
    const withClient = await fetch(`${s.url}/a2ui/c/c9/events`, {
      method: 'POST', headers: { Authorization: 'Basic dXNlcjpwdw==', 'X-Surfacer-Client': 'a2ui' }, body,
    });
    expect(withClient.status).toBe(202);
    expect(s.posts).toHaveLength(2);
  });

  it('refuses an oversized body with the canonical 413 error', async () => {
    const s = await start({ maxEventBytes: 1024 });
    const res = await fetch(`${s.url}/a2ui/c/c9/events`, {
      method: 'POST', headers: { 'X-Surfacer-Client': 'a2ui' }, body: 'x'.repeat(4096),
    });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { code: string }).code).toBe('HTTP_PAYLOAD_TOO_LARGE');
    expect(s.posts).toEqual([]);
  });
});

describe('GET /a2ui/c/:cid and the client assets', () => {
  it('serves a CSP page without inline script, wired through data attributes, and immutable assets', async () => {
    const s = await start();
    const res = await fetch(`${s.url}/a2ui/c/c10?token=${encodeURIComponent('t"<1>')}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await res.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/fonts\.googleapis|https?:\/\/(?!www\.w3)/);
    expect(html).toContain('data-stream-url="/a2ui/c/c10/stream"');
    expect(html).toContain('data-events-url="/a2ui/c/c10/events"');
    // A query token is never echoed into the page: the page's stream and posts use the session cookie.
    expect(html).not.toContain('data-token');
    expect(html).not.toContain('t&quot;&lt;1&gt;');
    const script = /src="(\/assets\/a2ui-client-[0-9a-f]+\.js)"/.exec(html)?.[1];
    const style = /href="(\/assets\/a2ui-client-[0-9a-f]+\.css)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    expect(style).toBeDefined();

    const js = await fetch(`${s.url}${script}`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(js.headers.get('cache-control')).toContain('immutable');
    expect((await js.text()).length).toBeGreaterThan(10_000);
    const again = await fetch(`${s.url}${script}`, { headers: { 'If-None-Match': js.headers.get('etag')! } });
    expect(again.status).toBe(304);
    const css = await fetch(`${s.url}${style}`);
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
    expect(await fetch(`${s.url}/assets/a2ui-client-0000000000000000.js`).then((r) => r.status)).toBe(404);
  });
});
