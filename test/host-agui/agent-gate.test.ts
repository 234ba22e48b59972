import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createDemoApp } from '../../src/app/index.ts';
import type { Logger } from '../../src/conversation/index.ts';
import { isLoopbackAddress, ownerOfPrincipal } from '../../src/hosting/index.ts';
import { createSurfacer, SurfacerConfigError } from '../../src/server/index.ts';
import { AguiClient, types } from './support.ts';

/*
 * Who may call the agent endpoints, at start-up and per request: with no tokens they are open to
 * loopback callers only (listen refuses a wider bind, and says so in the log on a loopback one);
 * createSurfacer({ authenticate }) replaces the tokens; agents.agui false unmounts AG-UI.
 */
function recording(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const line = (level: string) => (message: string) => { lines.push(`${level} ${message}`); };
  return { logger: { info: line('info'), warn: line('warn'), error: line('error') }, lines };
}

const SECRET = 'agent-gate-test-secret-0123456';

describe('the agent endpoints at start-up', () => {
  it('without tokens, listen refuses a non-loopback bind before binding anything', async () => {
    const surfacer = createSurfacer({ app: createDemoApp(), sessionSecret: SECRET, env: {} });
    for (const hostname of ['0.0.0.0', '::', '192.0.2.10', 'example.test']) {
      await expect(surfacer.listen({ port: 0, hostname })).rejects.toThrow(SurfacerConfigError);
    }
    await surfacer.close();
  });

  it('without tokens on loopback: open to the one local principal, and the log says so', async () => {
    const { logger, lines } = recording();
    const surfacer = createSurfacer({ app: createDemoApp(), sessionSecret: SECRET, env: {}, logger });
    const server = await surfacer.listen({ port: 0, hostname: '127.0.0.1' });
    try {
      expect(lines.some((l) => l.startsWith('warn agent endpoints open without SURFACER_API_TOKENS: loopback callers only'))).toBe(true);
      const client = new AguiClient(server.url, undefined);
      client.say('create a character card');
      const run = await client.run();
      expect(run.error).toBeUndefined();
      expect(types(run.events).at(-1)).toBe('RUN_FINISHED');
      const conversation = await surfacer.conversations.get(client.threadId);
      expect(conversation!.ownerSessionId).toBe(ownerOfPrincipal({ id: 'local' }));
    } finally {
      await server.close(1000);
    }
  });

  it('without tokens, a request under another host name is refused (DNS rebinding), on both agent endpoints', async () => {
    const surfacer = createSurfacer({ app: createDemoApp(), sessionSecret: SECRET, env: {} });
    const server = await surfacer.listen({ port: 0, hostname: '127.0.0.1' });
    const port = Number(new URL(server.url).port);
    try {
      const body = JSON.stringify({ threadId: 'cRebindThread1', runId: 'r1', messages: [{ id: 'm1', role: 'user', content: 'create a character card' }] });
      for (const path of ['/ag-ui', '/a2a']) {
        for (const host of ['evil.example', `evil.example:${port}`, `localhost.evil.example:${port}`]) {
          const answer = await rawPost(port, path, host, body);
          expect(answer.status, `${path} Host: ${host}`).toBe(401);
          expect(JSON.parse(answer.body).code, `${path} Host: ${host}`).toBe('HTTP_UNAUTHORIZED');
        }
      }
      for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]) {
        expect((await rawPost(port, '/ag-ui', host, body)).status, `Host: ${host}`).toBe(200);
      }
      expect(await surfacer.conversations.get('cRebindThread1')).toBeDefined();
    } finally {
      await server.close(1000);
    }
  });

  it('a library authenticate replaces the tokens (and may name the owner it acts as)', async () => {
    const surfacer = createSurfacer({
      app: createDemoApp(), sessionSecret: SECRET, env: { SURFACER_API_TOKENS: 'ignored-token-123' },
      authenticate: (request) => (request.headers.get('x-api-key') === 'k1' ? { id: 'alice', owner: 'owner-of-alice' } : undefined),
    });
    const server = await surfacer.listen({ port: 0, hostname: '127.0.0.1' });
    try {
      const post = (headers: Record<string, string>) => fetch(`${server.url}/ag-ui`, {
        method: 'POST', headers: { 'Content-Type': 'application/json', ...headers },
        body: JSON.stringify({ threadId: 'cAliceThread1', runId: 'r1', messages: [{ id: 'm1', role: 'user', content: 'create a character card' }] }),
      });
      expect((await post({ Authorization: 'Bearer ignored-token-123' })).status).toBe(401);
      const ok = await post({ 'x-api-key': 'k1' });
      expect(ok.status).toBe(200);
      expect(ok.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(await ok.text()).toContain('"RUN_FINISHED"');
      expect((await surfacer.conversations.get('cAliceThread1'))!.ownerSessionId).toBe('owner-of-alice');
    } finally {
      await server.close(1000);
    }
  });

  it('agents.agui false: no AG-UI endpoint, and no loopback rule to keep', async () => {
    const surfacer = createSurfacer({ app: createDemoApp(), sessionSecret: SECRET, env: {}, agents: { agui: false } });
    expect(surfacer.agui).toBeUndefined();
    const server = await surfacer.listen({ port: 0, hostname: '127.0.0.1' });
    try {
      const response = await fetch(`${server.url}/ag-ui`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
      expect(response.status).toBe(404);
      await response.arrayBuffer();
    } finally {
      await server.close(1000);
    }
  });

  it('one door for both agent endpoints: 401 with the scheme, 413 over the host limit, 415 for anything but JSON', async () => {
    const surfacer = createSurfacer({ app: createDemoApp(), sessionSecret: SECRET, env: { SURFACER_API_TOKENS: 'tok-123456' }, hostLimits: { maxBodyBytes: 2048 } });
    const server = await surfacer.listen({ port: 0, hostname: '127.0.0.1' });
    try {
      const auth = { Authorization: 'Bearer tok-123456' };
      const big = JSON.stringify({ threadId: 't', runId: 'r', messages: [{ id: 'm', role: 'user', content: 'x'.repeat(4000) }] });
      for (const path of ['/ag-ui', '/a2a']) {
        const anonymous = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
        expect(anonymous.status, path).toBe(401);
        expect(anonymous.headers.get('www-authenticate'), path).toBe('Bearer realm="surfacer"');
        expect(await anonymous.json(), path).toMatchObject({ code: 'HTTP_UNAUTHORIZED' });
        const declared = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...auth }, body: big });
        expect(declared.status, path).toBe(413);
        expect(await declared.json(), path).toMatchObject({ code: 'HTTP_PAYLOAD_TOO_LARGE' });
        // Chunked (no Content-Length): counted while read.
        const chunked = await fetch(`${server.url}${path}`, {
          method: 'POST', headers: { 'Content-Type': 'application/json', ...auth }, duplex: 'half',
          body: new ReadableStream({ start(c) { c.enqueue(new TextEncoder().encode(big)); c.close(); } }),
        } as RequestInit);
        expect(chunked.status, path).toBe(413);
        expect(await chunked.json(), path).toMatchObject({ code: 'HTTP_PAYLOAD_TOO_LARGE' });
        const xml = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/xml', ...auth }, body: '{}' });
        expect(xml.status, path).toBe(415);
        expect(await xml.json(), path).toMatchObject({ code: 'HTTP_BAD_REQUEST' });
      }
    } finally {
      await server.close(1000);
    }
  });

  it('no CSRF page for the agent endpoints: form content types, cross-site or not, get the gate\'s JSON 415 (or 401)', async () => {
    const surfacer = createSurfacer({ app: createDemoApp(), sessionSecret: SECRET, env: { SURFACER_API_TOKENS: 'tok-123456' } });
    const server = await surfacer.listen({ port: 0, hostname: '127.0.0.1' });
    try {
      const auth = { Authorization: 'Bearer tok-123456' };
      const types = ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x'];
      for (const path of ['/ag-ui', '/a2a']) {
        for (const type of types) {
          for (const origin of [undefined, 'https://evil.example']) {
            const headers: Record<string, string> = { 'Content-Type': type, ...auth, ...(origin ? { Origin: origin, 'Sec-Fetch-Site': 'cross-site' } : {}) };
            const res = await fetch(`${server.url}${path}`, { method: 'POST', headers, body: '{}' });
            expect(res.status, `${path} ${type} ${origin}`).toBe(415);
            expect(res.headers.get('content-type'), `${path} ${type}`).toMatch(/^application\/json/);
            expect(await res.json()).toMatchObject({ code: 'HTTP_BAD_REQUEST' });
          }
        }
        // Without a token the door says so first, still as JSON.
        const anonymous = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'text/plain', Origin: 'https://evil.example' }, body: '{}' });
        expect(anonymous.status, path).toBe(401);
        expect(await anonymous.json()).toMatchObject({ code: 'HTTP_UNAUTHORIZED' });
      }
      // The htmx host's own form posts keep the Origin check.
      const form = await fetch(`${server.url}/c`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: 'https://evil.example' }, body: 'a=b', redirect: 'manual' });
      expect(form.status).toBe(403);
      await form.arrayBuffer();
    } finally {
      await server.close(1000);
    }
  });

  it('loopback peers', () => {
    for (const a of ['127.0.0.1', '::1', '::ffff:127.0.0.1', '127.8.9.10']) expect(isLoopbackAddress(a), a).toBe(true);
    for (const a of ['10.0.0.1', '::ffff:10.0.0.1', 'unknown', '', '0.0.0.0']) expect(isLoopbackAddress(a), a).toBe(false);
  });
});

/** A POST with the Host header as given (fetch sets its own): what a rebound page's request carries. */
function rawPost(port: number, path: string, host: string, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), host };
    const req = request({ host: '127.0.0.1', port, path, method: 'POST', headers, setHost: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => { text += chunk; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
