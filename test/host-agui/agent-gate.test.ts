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

  it('body limits and content type: 413 over the host limit, 415 for anything but JSON', async () => {
    const surfacer = createSurfacer({ app: createDemoApp(), sessionSecret: SECRET, env: { SURFACER_API_TOKENS: 'tok-123456' }, hostLimits: { maxBodyBytes: 2048 } });
    const server = await surfacer.listen({ port: 0, hostname: '127.0.0.1' });
    try {
      const auth = { Authorization: 'Bearer tok-123456' };
      const big = JSON.stringify({ threadId: 't', runId: 'r', messages: [{ id: 'm', role: 'user', content: 'x'.repeat(4000) }] });
      const declared = await fetch(`${server.url}/ag-ui`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...auth }, body: big });
      expect(declared.status).toBe(413);
      expect(await declared.json()).toMatchObject({ code: 'HTTP_PAYLOAD_TOO_LARGE' });
      // Chunked (no Content-Length): counted while read.
      const chunked = await fetch(`${server.url}/ag-ui`, {
        method: 'POST', headers: { 'Content-Type': 'application/json', ...auth }, duplex: 'half',
        body: new ReadableStream({ start(c) { c.enqueue(new TextEncoder().encode(big)); c.close(); } }),
      } as RequestInit);
      expect(chunked.status).toBe(413);
      await chunked.arrayBuffer();
      const text = await fetch(`${server.url}/ag-ui`, { method: 'POST', headers: { 'Content-Type': 'application/xml', ...auth }, body: '{}' });
      expect(text.status).toBe(415);
      await text.arrayBuffer();
    } finally {
      await server.close(1000);
    }
  });

  it('loopback peers', () => {
    for (const a of ['127.0.0.1', '::1', '::ffff:127.0.0.1', '127.8.9.10']) expect(isLoopbackAddress(a), a).toBe(true);
    for (const a of ['10.0.0.1', '::ffff:10.0.0.1', 'unknown', '', '0.0.0.0']) expect(isLoopbackAddress(a), a).toBe(false);
  });
});
