import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/commands/serve.ts';
import { memoryIo } from '../support/cli-io.ts';
import { HttpClient } from '../support/http-client.ts';
import { openConversation } from './support/page.ts';

const dirs: string[] = [];
afterAll(() => { for (const dir of dirs) rmSync(dir, { recursive: true, force: true }); });

function io(env: NodeJS.ProcessEnv = {}) {
  const memory = memoryIo({ env });
  return { io: memory, out: memory.out, err: memory.err };
}

describe('surfacer serve', () => {
  it('serves the demo app, persists to the data dir, and shuts down with an SSE stream open', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'surfacer-serve-'));
    dirs.push(dir);
    const t = io({ SURFACER_SESSION_SECRET: 'a-long-enough-secret-for-tests' });
    const stop = new AbortController();
    const exit = run(['--port', '0', '--data', dir], t.io, stop.signal);
    for (let i = 0; i < 200 && !/listening on/.test(t.out()); i++) await new Promise((r) => setTimeout(r, 20));
    const url = /listening on (http:\/\/\S+)/.exec(t.out())![1]!;
    expect(t.out()).toMatch(/Offline planner/i);
    const client = new HttpClient(url);
    expect((await client.get('/healthz')).status).toBe(200);
    const c = await openConversation(client);
    const turn = await client.post(`${c.base}/messages`, { _csrf: c.csrf, text: 'create a character card' }, { as: 'json' });
    expect(turn.status).toBe(200);
    expect(readdirSync(dir)).toEqual([`${c.cid}.jsonl`]);
    const stream = await client.get(`${c.base}/events?page=servetest1&v=0`);
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    const started = Date.now();
    stop.abort();
    expect(await exit).toBe(0);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(t.out()).toMatch(/Shutting down/);
    await stream.body?.cancel().catch(() => undefined);
  });

  it('rejects bad arguments with exit code 2', async () => {
    const t = io();
    expect(await run(['--port', 'abc'], t.io)).toBe(2);
    expect(t.err()).toMatch(/(--port|PORT) is ".*"; it must be a whole number from 0 to 65535/);
    expect(await run(['--planner', 'gpt'], t.io)).toBe(2);
    expect(await run(['--nope'], t.io)).toBe(2);
    expect(await run(['--redis', 'http://x'], t.io)).toBe(2);
    expect(t.err()).toMatch(/redis:\/\//);
    // Cluster seeds: every one of them a redis:// URL.
    expect(await run(['--redis', 'redis://127.0.0.1:1,http://x'], t.io)).toBe(2);
    expect(t.err()).toMatch(/comma-separated, for a cluster/);
    // Several instances must sign sessions alike: no starting on Redis without the shared secret.
    expect(await run(['--port', '0', '--redis', 'redis://127.0.0.1:1'], t.io)).toBe(2);
    expect(t.err()).toMatch(/SURFACER_SESSION_SECRET/);
    expect(await run(['--help'], t.io)).toBe(0);
  });
});

describe('the HTTP server', () => {
  it('keeps idle keep-alive sockets longer than clients and load balancers do, so a reused socket never races its close', async () => {
    const { startServer, KEEP_ALIVE_MS } = await import('../../src/host-html/server.ts');
    const running = await startServer({ fetch: () => new Response('ok'), closeStreams() {} });
    try {
      // undici (Node's fetch) keeps idle sockets 4 s, common load balancers 60 s.
      expect(KEEP_ALIVE_MS).toBeGreaterThan(60_000);
      expect(running.server.keepAliveTimeout).toBe(KEEP_ALIVE_MS);
      expect(running.server.headersTimeout).toBeGreaterThan(KEEP_ALIVE_MS);
      expect(await (await fetch(running.url)).text()).toBe('ok');
    } finally {
      await running.close();
    }
  });
});
