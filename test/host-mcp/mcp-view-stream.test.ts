import { request, type IncomingHttpHeaders } from 'node:http';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDemoApp } from '../../src/app/index.ts';
import { createClientSimV09 } from '../../src/clientsim/index.ts';
import type { ServeHandle } from '../../src/cli/commands/serve.ts';
import { READ_TOOL, VIEW_ACTION_TOOL } from '../../src/host-mcp/index.ts';
import { createStreamBatcher, readSurfacerResult } from '../../src/host-mcp/view/result.ts';
import { createSurfacer, SurfacerConfigError } from '../../src/server/index.ts';
import { fillAndSubmitV09, newConversation, type E2eServer } from '../e2e/support/stack.ts';
import { HttpClient } from '../support/http-client.ts';
import { call, mcpClient, startMcp, textOf, TOKEN_A, type McpStack, type ToolResult } from './support.ts';

/*
 * Issue 30, the view's live path over HTTP (the Chromium side: mcp-apps-live-browser.test.ts).
 * With `mcpViewStreamOrigin` (SURFACER_MCP_VIEW_ORIGIN) the view's resource declares that origin
 * (`_meta.ui.csp.connectDomains`), every UI result names the conversation's A2UI v0.9 stream
 * there with its token, and that stream, asked with `?token=`, answers any origin
 * (`Access-Control-Allow-Origin: *`, no credentials). Without it, nothing of this.
 */
const ORIGIN = 'https://surfacer.example.com';
const SECRET = 'view-stream-secret-0123456789';

/** A stream's status and headers, and its first bytes; the connection is then closed. */
function openStream(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      let body = '';
      const done = (): void => {
        res.destroy();
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
      };
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
        if (res.headers['content-type']?.startsWith('text/event-stream') !== true || body.includes('createSurface') || body.length > 100_000) done();
      });
      res.on('end', done);
    });
    req.on('error', reject);
    req.end();
  });
}

const structured = (result: ToolResult): Record<string, unknown> => {
  expect(result.structuredContent, textOf(result)).toBeDefined();
  return result.structuredContent as unknown as Record<string, unknown>;
};

describe('SURFACER_MCP_VIEW_ORIGIN / mcpViewStreamOrigin', () => {
  const make = (options: { env?: NodeJS.ProcessEnv; mcpViewStreamOrigin?: string; agents?: { mcp?: boolean } }) =>
    createSurfacer({ app: createDemoApp(), sessionSecret: SECRET, env: {}, ...options });

  it('takes one http(s) origin; anything else is a SurfacerConfigError naming the setting', async () => {
    for (const bad of ['*', 'surfacer.example.com', 'https://surfacer.example.com/mcp', 'ftp://surfacer.example.com', 'https://a.example?x=1', 'null']) {
      expect(() => make({ env: { SURFACER_MCP_VIEW_ORIGIN: bad } }), bad).toThrow(SurfacerConfigError);
      expect(() => make({ env: { SURFACER_MCP_VIEW_ORIGIN: bad } }), bad).toThrow(/^SURFACER_MCP_VIEW_ORIGIN: /);
      expect(() => make({ mcpViewStreamOrigin: bad }), bad).toThrow(/^mcpViewStreamOrigin: /);
    }
    expect(() => make({ env: { SURFACER_MCP_VIEW_ORIGIN: 'https://a.example,https://b.example' } })).toThrow(/SURFACER_MCP_VIEW_ORIGIN: one origin/);
    // Checked even with the MCP door off.
    expect(() => make({ env: { SURFACER_MCP_VIEW_ORIGIN: 'nope' }, agents: { mcp: false } })).toThrow(SurfacerConfigError);
    for (const good of [{ env: { SURFACER_MCP_VIEW_ORIGIN: `${ORIGIN}/` } }, { env: { SURFACER_MCP_VIEW_ORIGIN: '' } }, { mcpViewStreamOrigin: 'http://127.0.0.1:8787' }]) {
      await make(good).close();
    }
  });
});

describe('the view\'s reading of the stream (result.ts)', () => {
  it('takes a result\'s stream URL only when it is http(s)', () => {
    const read = (stream: unknown) => readSurfacerResult({ structuredContent: { conversationId: 'c', stream } })?.streamUrl;
    expect(read({ url: `${ORIGIN}/a2ui/c/c/stream?v=0.9&token=t` })).toBe(`${ORIGIN}/a2ui/c/c/stream?v=0.9&token=t`);
    for (const bad of [undefined, 'https://x.example', { url: '' }, { url: 'javascript:alert(1)' }, { url: '/a2ui/c/c/stream' }, { url: 42 }]) {
      expect(read(bad), JSON.stringify(bad)).toBeUndefined();
    }
  });

  it('gathers the stream\'s events into the batches the server published (event-id.ts), an init marked', () => {
    const batches = createStreamBatcher();
    const m = (n: number) => JSON.stringify({ version: 'v0.9', deleteSurface: { surfaceId: `s${n}` } });
    // An init: provisional ids, the last one the checkpoint.
    expect(batches.push(m(1), 'l0w09-5-i0')).toBeUndefined();
    expect(batches.push(m(2), 'l0w09-5-i1')).toBeUndefined();
    expect(batches.push(m(3), 'l0w09-5')).toEqual({ messages: [JSON.parse(m(1)), JSON.parse(m(2)), JSON.parse(m(3))], init: true, unreadable: 0 });
    // A published batch of two, then one of one.
    expect(batches.push(m(4), 'l0w09-6.0')).toBeUndefined();
    expect(batches.push('not json', 'l0w09-6')).toEqual({ messages: [JSON.parse(m(4))], init: false, unreadable: 1 });
    expect(batches.push(m(5), 'l0w09-7')).toEqual({ messages: [JSON.parse(m(5))], init: false, unreadable: 0 });
    // A batch cut short by a reconnect is forgotten: the server sends it again.
    expect(batches.push(m(6), 'l0w09-8-i0')).toBeUndefined();
    batches.reset();
    expect(batches.push(m(7), 'l0w09-8')).toEqual({ messages: [JSON.parse(m(7))], init: false, unreadable: 0 });
  });
});

describe.each([
  { setting: 'unset', options: {} },
  // Written with a trailing slash: the origin is what is used.
  { setting: 'set', options: { env: { SURFACER_API_TOKENS: TOKEN_A, SURFACER_MCP_VIEW_ORIGIN: `${ORIGIN}/` } } },
] as const)('the view\'s live path, setting $setting', ({ setting, options }) => {
  let stack: McpStack;
  let client: Client;
  const on = setting === 'set';
  beforeAll(async () => {
    stack = await startMcp(options);
    client = await mcpClient(stack.url, TOKEN_A);
  });
  afterAll(async () => {
    await client.close();
    await stack.close();
  });

  it(on ? 'declares the origin as the view\'s only connect domain' : 'declares no domain for the view', async () => {
    const meta = { ui: { csp: on ? { connectDomains: [ORIGIN] } : {}, prefersBorder: false } };
    const read = await client.readResource({ uri: 'ui://surfacer/view.html' });
    expect(read.contents[0]!._meta).toEqual(meta);
    const { resources } = await client.listResources();
    expect(resources.find((r) => r.uri === 'ui://surfacer/view.html')!._meta).toEqual(meta);
  });

  it(on
    ? 'names the conversation\'s A2UI v0.9 stream, with its token, in every UI result; the stream answers any origin when asked with ?token='
    : 'names no stream, and the stream sends no CORS header', async () => {
    const shown = await call(client, 'show_form', { payload: { template: 'character_card' } });
    const cid = structured(shown).conversationId as string;
    const token = (await stack.surfacer.conversations.get(cid))!.a2uiToken;
    const path = `/a2ui/c/${cid}/stream?v=0.9&token=${token}`;
    const expected = on ? { stream: { url: `${ORIGIN}${path}` } } : {};
    const pick = (result: ToolResult) => ('stream' in structured(result) ? { stream: structured(result).stream } : {});
    expect(pick(shown)).toEqual(expected);
    expect(pick(await call(client, READ_TOOL, { conversationId: cid }))).toEqual(expected);
    // The view's action tool too (a Save of the card), and a refused call carries none.
    const sim = createClientSimV09();
    sim.applyAll((structured(shown).a2ui as { messages: Array<Record<string, unknown>> }).messages);
    const message = fillAndSubmitV09(createClientSimV09({ state: sim.state() }), [...sim.state().surfaces.keys()][0]!, { name: 'Mira', personality: 'Curious.' });
    const saved = await call(client, VIEW_ACTION_TOOL, { conversationId: cid, message, idempotencyKey: 'live-1' });
    expect(structured(saved).outcome, textOf(saved)).toBe('applied');
    expect(pick(saved)).toEqual(expected);
    const stale = await call(client, VIEW_ACTION_TOOL, { conversationId: cid, message, idempotencyKey: 'live-2' });
    expect(structured(stale).outcome).toBe('stale');
    expect(pick(stale)).toEqual(expected);
    const refused = await call(client, 'show_form', { conversationId: cid, payload: { template: 'nope' } });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).not.toHaveProperty('stream');

    // The stream at this server, as the view's EventSource asks for it (an opaque origin: "null").
    const viaToken = await openStream(`${stack.url}${path}`, { Origin: 'null' });
    expect(viaToken.status).toBe(200);
    expect(viaToken.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(viaToken.body).toContain('"createSurface"');
    expect(viaToken.headers['access-control-allow-origin']).toBe(on ? '*' : undefined);
    // Never with credentials: a browser shares a `*` answer only with a request sent without cookies.
    expect(viaToken.headers['access-control-allow-credentials']).toBeUndefined();
    // The same token in a header (not an EventSource): no CORS header, as before.
    const viaHeader = await openStream(`${stack.url}/a2ui/c/${cid}/stream?v=0.9`, { Authorization: `Bearer ${token}`, Origin: 'null' });
    expect(viaHeader.status).toBe(200);
    expect(viaHeader.headers['access-control-allow-origin']).toBeUndefined();
    // A wrong token: the usual 404, nothing to share.
    const wrong = await openStream(`${stack.url}/a2ui/c/${cid}/stream?v=0.9&token=${'x'.repeat(token.length)}`, { Origin: 'null' });
    expect(wrong.status).toBe(404);
    expect(wrong.headers['access-control-allow-origin']).toBeUndefined();
    // Off @hono/node-server (hono's streamSSE): the same header.
    const response = await stack.surfacer.fetch(new Request(`http://127.0.0.1${path}`, { headers: { Origin: 'null' } }));
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe(on ? '*' : null);
    await response.body?.cancel();
    expect(stack.errors).toEqual([]);
  });

  it('sends no CORS header to the session cookie that owns the conversation (the htmx and A2UI pages\' way in)', async () => {
    const session = new HttpClient(stack.url);
    const e2e = {
      url: stack.url, errors: stack.errors, client: () => session, close: stack.close,
      handle: { conversations: stack.surfacer.conversations, a2ui: stack.surfacer.a2ui } as unknown as ServeHandle,
    } satisfies E2eServer;
    const c = await newConversation(e2e, session, 'create a character card');
    const cookie = session.cookieHeader();
    expect(cookie).not.toBe('');
    const viaCookie = await openStream(`${stack.url}/a2ui/c/${c.cid}/stream?v=0.9`, { Cookie: cookie });
    expect(viaCookie.status).toBe(200);
    expect(viaCookie.body).toContain('"createSurface"');
    expect(viaCookie.headers['access-control-allow-origin']).toBeUndefined();
  });
});
