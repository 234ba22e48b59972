import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secureHeadersOnNode } from '../../src/hosting/index.ts';

const TRANSPORT = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

function headerMap(response: Response): Record<string, string> {
  const out: Record<string, string> = {};
  response.headers.forEach((value, name) => { if (!TRANSPORT.has(name)) out[name] = value; });
  return out;
}

describe('secureHeadersOnNode', () => {
  const app = new Hono();
  app.use('*', secureHeadersOnNode({ contentSecurityPolicy: { defaultSrc: ["'self'"], frameAncestors: ["'none'"] }, referrerPolicy: 'same-origin' }));
  app.get('/page', (c) => c.html('<p>hi</p>'));
  app.post('/form', async (c) => c.html(`<p>${(await c.req.text()).length}</p>`, 201, { 'Cache-Control': 'no-store' }));
  app.get('/stream', (c) => streamSSE(c, async (stream) => { await stream.write('data: x\n\n'); }));
  // What the Node response already holds when the handler runs (none through app.request).
  app.get('/probe', (c) => {
    const outgoing = (c.env as { outgoing?: { getHeader(name: string): unknown } } | undefined)?.outgoing;
    return c.text(String(outgoing?.getHeader('content-security-policy') ?? 'no node response'));
  });
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => { server.close(() => resolve()); }));

  it.each([['GET', '/page'], ['POST', '/form'], ['GET', '/missing'], ['GET', '/stream']])(
    'sends the very headers of hono\'s own middleware over real HTTP as through app.request (%s %s)', async (method, path) => {
      const init = method === 'POST' ? { method, body: 'a=1' } : { method };
      const viaHono = await app.request(path, init);
      const viaNode = await fetch(`${base}${path}`, init);
      await Promise.all([viaHono.text(), viaNode.text()]);
      expect(viaNode.status).toBe(viaHono.status);
      expect(headerMap(viaNode)).toEqual(headerMap(viaHono));
      expect(headerMap(viaNode)['content-security-policy']).toBe("default-src 'self'; frame-ancestors 'none'");
      expect(headerMap(viaNode)['referrer-policy']).toBe('same-origin');
    },
  );

  it('on @hono/node-server the lines are on the Node response before the handler runs (no Headers object)', async () => {
    expect(await (await fetch(`${base}/probe`)).text()).toBe("default-src 'self'; frame-ancestors 'none'");
    expect(await (await app.request('/probe')).text()).toBe('no node response');
  });
});
