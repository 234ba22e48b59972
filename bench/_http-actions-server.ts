/**
 * Child process of bench/http-actions.ts (kept out of the client's process so autocannon and
 * the servers do not share one event loop). Does nothing unless started with
 * SURFACER_BENCH_SERVER=1 (bench/run.ts imports every bench/*.ts).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { secureHeaders } from 'hono/secure-headers';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createDemoApp } from '../src/app/index.ts';
import { createLocalBackend, createRedisBackend, type Backend } from '../src/backend/index.ts';
import { DEFAULT_IDEMPOTENCY_TTL_MS } from '../src/ingress/index.ts';
import { createJsonlStore, createMemoryStore } from '../src/conversation/index.ts';
import { createApp, createConversationStack, HOST_SECURE_HEADERS, startServer } from '../src/host-html/index.ts';
import { secureHeadersOnNode } from '../src/hosting/index.ts';
import { createSystemSource } from '../src/ui-ir/index.ts';

function listen(fetch: (request: Request) => Response | Promise<Response>): Promise<number> {
  return new Promise<number>((resolve) => {
    const server = serve({ fetch, port: 0, hostname: '127.0.0.1' }) as Server;
    server.once('listening', () => resolve((server.address() as AddressInfo).port));
  });
}

/**
 * The size of the host's answer to an accepted character-card submit (the surface fragment, its
 * message, the status and alert regions): 6,254 bytes since issue 32's field checks (data-rules,
 * patterns) on 2026-12-02; 5,065 before, and the 2026-11-23 build answers 5,127.
 */
export const ACTION_ANSWER_BYTES = 6254;

/**
 * The floor under any answer to an action: what Hono alone costs to read a form post and send
 * an HTML answer of the host's size with the host's security headers (set the way the host sets
 * them), checking nothing.
 */
function floorApp(headers: 'host' | 'hono'): Hono {
  const app = new Hono();
  const answer = `<section>${'x'.repeat(ACTION_ANSWER_BYTES - 19)}</section>`;
  // 'hono': hono's own secureHeaders middleware, to show what setting them the host's way saves.
  app.use('*', headers === 'host' ? secureHeadersOnNode(HOST_SECURE_HEADERS) : secureHeaders(HOST_SECURE_HEADERS));
  app.post('/c/:cid/actions', async (c) => {
    const fields = new URLSearchParams(await c.req.text());
    return fields.has('_action') ? c.html(answer) : c.text('no action', 400);
  });
  return app;
}

async function main(): Promise<void> {
  const hello = new Hono();
  hello.get('/', (c) => c.text('Hello, world!'));
  const baseline = await listen(hello.fetch);
  const ports: Record<string, number> = { baseline, floor: await listen(floorApp('host').fetch), floorHono: await listen(floorApp('hono').fetch) };
  // BENCH_REDIS_URL adds an instance on the Redis backend (bench/redis-scale.ts starts the server).
  const redisUrl = process.env.BENCH_REDIS_URL;
  const backends: Record<string, () => Backend> = {
    memory: () => createLocalBackend(createMemoryStore()),
    jsonl: () => createLocalBackend(createJsonlStore({ dir: mkdtempSync(join(tmpdir(), 'surfacer-bench-')) })),
    ...(redisUrl ? { redis: () => createRedisBackend({ url: redisUrl, prefix: `bench${process.pid}:` }) } : {}),
  };
  for (const [name, make] of Object.entries(backends)) {
    const backend = make();
    const app = createDemoApp();
    const conversations = createConversationStack({
      app, entropy: createSystemSource(), store: backend.store, turns: backend.turns,
      idempotency: backend.idempotency('client-errors', { ttlMs: DEFAULT_IDEMPOTENCY_TTL_MS }),
      limits: { maxQueuePerConversation: 1000 },
    });
    const host = createApp({
      app, conversations, sessionSecret: 'bench-secret-0123456789abcdef', rateLimiter: backend.rateLimiter.bind(backend),
      limits: { maxConversationsPerSession: 10_000, conversationCreatesPerMinute: 100_000 },
    });
    ports[name] = (await startServer(host, { port: 0 })).port;
  }
  process.send!({ ports });
}

/**
 * BENCH_HEAP_SAMPLING=1 (bench/profile-actions.ts HEAP=1): V8's sampling heap profiler, started
 * and stopped by the parent ('heap:start', 'heap:stop' → `{ heap }`) around the measured run, with
 * the objects garbage collected since kept, so it counts what each function allocated, not
 * what is still alive.
 */
async function answerHeapSampling(): Promise<void> {
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  process.on('message', (message) => {
    void (async () => {
      if (message === 'heap:start') {
        await session.post('HeapProfiler.startSampling', { samplingInterval: 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
        process.send!('heap:started');
      } else if (message === 'heap:stop') {
        const { profile } = await session.post('HeapProfiler.stopSampling');
        process.send!({ heap: profile });
      }
    })();
  });
}

if (process.env.SURFACER_BENCH_SERVER === '1') {
  // A normal exit on SIGTERM lets `--cpu-prof` (bench/profile-actions.ts) write its profile.
  process.once('SIGTERM', () => process.exit(0));
  if (process.env.BENCH_HEAP_SAMPLING === '1') await answerHeapSampling();
  await main();
}
