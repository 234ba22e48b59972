import { SpanKind, trace } from '@opentelemetry/api';
import { createRedisBackend } from '../../src/backend/index.ts';
import { LOG_VERSION } from '../../src/conversation/log.ts';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { newConversation, stream, type E2eServer } from '../e2e/support/stack.ts';
import { startCluster, type SessionClient } from '../scale/support/cluster.ts';
import { clusterSuite } from '../scale/support/cluster-suite.ts';
import { formOnPage, turn } from '../scale/support/user.ts';
import { clientTrace, idOf, parentOf, recordSpansForTestFile } from './support.ts';

/**
 * Issue 25: two instances on one real redis-server (startServe with --redis), one
 * conversation. Each request is one trace (its client's), holding the request's own work on
 * whichever instance served it (the Redis batches among it); the work a Redis notification
 * starts on the other instance (catching up) belongs to no request's trace.
 */
const recorded = recordSpansForTestFile();
const suite = clusterSuite(() => startCluster(2, 'otel-inst:'));
const { streams } = suite;

const ns = (t: [number, number]): number => t[0] * 1e9 + t[1];

function traceOf(traceId: string): ReadableSpan[] {
  return recorded.spans().filter((s) => s.spanContext().traceId === traceId);
}

/** One server span, continuing the client's span; every other span descends from it. */
function expectOneRequest(trace: ReturnType<typeof clientTrace>): { server: ReadableSpan; spans: ReadableSpan[] } {
  const spans = traceOf(trace.traceId);
  const servers = spans.filter((s) => s.kind === SpanKind.SERVER);
  expect(servers.map((s) => s.name)).toHaveLength(1);
  const server = servers[0]!;
  expect(parentOf(server)).toBe(trace.spanId);
  const ids = new Set(spans.map(idOf));
  for (const span of spans) if (span !== server) expect(ids.has(parentOf(span)!), `${span.name} hangs off the request's tree`).toBe(true);
  return { server, spans };
}

describe('two instances on Redis: one trace per request', () => {
  it('a turn on B and an action on A at once: two traces, each with its own Redis batches; catch-ups join neither', async () => {
    const { cluster } = suite;
    const [A, B] = cluster.instances as [E2eServer, E2eServer];
    const [ca, cb] = cluster.clients as [SessionClient, SessionClient];
    const c = await newConversation(A, ca);
    expect(await turn(ca, c, 'create a character card')).toMatchObject({ status: 200 });
    // B follows the conversation over A2UI: every append on A reaches B through Redis pub/sub,
    // and B catches up (reads the log) in the background.
    const opened = clientTrace();
    streams.push(await stream(B, c, { traceparent: opened.traceparent }));
    const form = await formOnPage(ca, c);

    const action = clientTrace();
    const message = clientTrace();
    const [acted, turned] = await Promise.all([
      ca.post(`${c.base}/actions`, { ...form, _csrf: c.csrf, _idem: 'otel-1', _action: 'form.submit', name: 'Aria', personality: 'Brave.', tags: 'brave' }, { as: 'json', headers: { traceparent: action.traceparent } }),
      cb.post(`${c.base}/messages`, { _csrf: c.csrf, text: 'scene settings' }, { as: 'json', headers: { traceparent: message.traceparent } }),
    ]);
    expect([200, 409]).toContain(acted.status);
    expect(turned.status).toBe(200);
    await acted.arrayBuffer();
    await turned.arrayBuffer();
    // Let B's background catch-ups after both appends run.
    await new Promise((resolve) => setTimeout(resolve, 300));

    const onA = expectOneRequest(action);
    expect(onA.server.name).toBe('POST /c/:cid/actions');
    expect(onA.spans.some((s) => s.name === 'surfacer.action')).toBe(true);
    const onB = expectOneRequest(message);
    expect(onB.server.name).toBe('POST /c/:cid/messages');
    expect(onB.spans.some((s) => s.name === 'surfacer.turn')).toBe(true);
    for (const { spans } of [onA, onB]) {
      const redis = spans.filter((s) => s.name.startsWith('redis '));
      expect(redis.length).toBeGreaterThan(0);
      for (const span of redis) {
        expect(span.kind).toBe(SpanKind.CLIENT);
        expect(span.attributes['db.system.name']).toBe('redis');
        expect(span.attributes['db.operation.name']).toEqual(expect.any(String));
      }
    }
    // The turn claimed the conversation's turn lease and appended its entry, on Redis, in its own trace.
    expect(onB.spans.map((s) => s.name)).toEqual(expect.arrayContaining(['redis turn.claim', 'redis log.append', 'redis turn.release']));
    if (acted.status === 200) expect(onA.spans.map((s) => s.name)).toContain('redis log.append');

    // The stream's request ended when its stream was handed over; nothing B did later for its
    // subscribers (catching up after A's appends) was counted as that request's work.
    const { server: streamSpan, spans: streamSpans } = expectOneRequest(opened);
    expect(streamSpan.name).toBe('GET /a2ui/c/:cid/stream');
    for (const span of streamSpans) expect(ns(span.startTime), `${span.name} after the stream request ended`).toBeLessThanOrEqual(ns(streamSpan.endTime));
    // Nor anything of any other request: no trace holds a span started after its request ended.
    for (const trace of [action, message]) {
      const { server, spans } = expectOneRequest(trace);
      for (const span of spans) expect(ns(span.startTime), `${span.name} after ${server.name} ended`).toBeLessThanOrEqual(ns(server.endTime));
    }
  });

  it('a notification arriving while the request that first subscribed is still running does not join its trace', async () => {
    const options = { url: suite.cluster.redis.url, prefix: 'otel-sub:' };
    const watching = createRedisBackend(options);
    const writing = createRedisBackend(options);
    try {
      const cid = 'cotelsub0001';
      let calls = 0;
      let subscribed!: () => void;
      const ready = new Promise<void>((resolve) => { subscribed = resolve; });
      let notified!: (reads: Promise<unknown>) => void;
      const read = new Promise<Promise<unknown>>((resolve) => { notified = resolve; });
      // A request, still running, is the first to watch a conversation: the pub/sub connection is made now.
      await trace.getTracer('test').startActiveSpan('long request', async (span) => {
        const stop = watching.store.watch!(cid, () => {
          calls += 1;
          // The first call is the watch's own look after subscribing (the request's work); the next is the notification.
          if (calls === 1) subscribed();
          else notified(watching.store.read(cid));
        });
        await ready;
        await trace.getTracer('test').startActiveSpan('elsewhere', { root: true }, async (other) => {
          await writing.store.append(cid, { type: 'created', v: LOG_VERSION, cid, ownerSessionId: 'o', a2uiToken: 't'.repeat(24), at: new Date(0).toISOString() }, 0);
          other.end();
        });
        await (await read);
        stop();
        span.end();
        const mine = traceOf(span.spanContext().traceId).filter((s) => s.name.startsWith('redis '));
        // Only what the request itself did (none of the reads the notification started).
        expect(mine.map((s) => s.name)).not.toContain('redis log.read');
      });
    } finally {
      await watching.close();
      await writing.close();
    }
  });
});
