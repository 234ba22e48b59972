import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { createClientSimV09 } from '../../src/clientsim/index.ts';
import { payloadJsonSchema } from '../../src/directives/index.ts';
import { directiveToolName, MESSAGE_TOOL, READ_TOOL, VIEW_ACTION_TOOL } from '../../src/host-mcp/index.ts';
import type { ServeHandle } from '../../src/cli/commands/serve.ts';
import { fillAndSubmitV09, newConversation, type Conversation, type E2eServer } from '../e2e/support/stack.ts';
import { followA2uiV09 } from '../scale/support/followers.ts';
import { HttpClient } from '../support/http-client.ts';
import { feed, newOracle } from '../support/a2ui-v0_9-oracle.ts';
import { call, ERAS, mcpClient, startMcp, textOf, TOKEN_A, TOKEN_B, type McpStack, type ToolResult } from './support.ts';

/*
 * Issue 30 with the official MCP client (@modelcontextprotocol/client, Streamable HTTP) in both
 * protocol eras the SDK serves: the 2026-07-28 one (stateless) and 2025-11-25 (the client's
 * default handshake, the SDK's stateless fallback). The agent token of TOKEN_A acts as a browser
 * session's owner (as an app that signs its users in maps them), so the htmx page and the A2UI
 * stream of that session show what the host's model did.
 */
const AGENT_FOR_SESSION = 'mcp-session-agent-0123456789';
let stack: McpStack;
let sessionOwner: string | undefined;
const browser = (): HttpClient => new HttpClient(stack.url);

beforeAll(async () => {
  stack = await startMcp({
    authenticate: (request) => {
      const header = request.headers.get('authorization');
      if (header === `Bearer ${AGENT_FOR_SESSION}` && sessionOwner !== undefined) return { id: 'session-agent', owner: sessionOwner };
      if (header === `Bearer ${TOKEN_A}`) return { id: 'alice' };
      if (header === `Bearer ${TOKEN_B}`) return { id: 'bob' };
      return undefined;
    },
  });
});
afterAll(async () => { await stack.close(); });

const asE2e = (): E2eServer => ({
  url: stack.url, errors: stack.errors, client: browser, close: stack.close,
  handle: { conversations: stack.surfacer.conversations, a2ui: stack.surfacer.a2ui } as unknown as ServeHandle,
});

function content(result: ToolResult) {
  expect(result.structuredContent, textOf(result)).toBeDefined();
  return result.structuredContent!;
}

async function logLength(cid: string): Promise<number> {
  return (await stack.surfacer.conversations.get(cid))!.version;
}

describe.each(ERAS)('the MCP door, %s protocol', (era) => {
  let alice: Client;
  let bob: Client;
  beforeAll(async () => {
    alice = await mcpClient(stack.url, TOKEN_A, { era });
    bob = await mcpClient(stack.url, TOKEN_B, { era });
  });
  afterAll(async () => { await alice.close(); await bob.close(); });

  it('lists every directive as a tool with its payload schema and the view, plus the read, message and view-action tools', async () => {
    const { tools } = await alice.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const definition of stack.surfacer.conversations.app.directives.definitions) {
      const tool = byName.get(directiveToolName(definition.type));
      expect(tool, definition.type).toBeDefined();
      expect(tool!.description).toContain(definition.description);
      const schema = tool!.inputSchema as { type: string; properties: Record<string, unknown>; required?: string[]; $defs?: Record<string, unknown> };
      expect(schema.type).toBe('object');
      expect(schema.required).toContain('payload');
      // The payload's schema as the prompt catalogue shows it (its shared definitions hoisted beside it).
      const { $schema: _drop, $defs, ...payload } = payloadJsonSchema(definition) as Record<string, unknown> & { $defs?: Record<string, unknown> };
      expect(schema.properties['payload']).toMatchObject(payload);
      for (const [name, def] of Object.entries($defs ?? {})) expect(Object.values(schema.$defs ?? {}), name).toContainEqual(def);
      expect(tool!._meta).toMatchObject({ ui: { resourceUri: 'ui://surfacer/view.html' } });
      expect(tool!.annotations).toMatchObject({ readOnlyHint: false, openWorldHint: false });
    }
    expect(byName.get(READ_TOOL)!.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName.get(MESSAGE_TOOL)).toBeDefined();
    expect(byName.get(VIEW_ACTION_TOOL)!._meta).toMatchObject({ ui: { visibility: ['app'] } });
  });

  it('serves the view as an MCP App resource: one self-contained HTML document', async () => {
    const { resources } = await alice.listResources();
    expect(resources.find((r) => r.uri === 'ui://surfacer/view.html')).toMatchObject({ mimeType: 'text/html;profile=mcp-app' });
    const read = await alice.readResource({ uri: 'ui://surfacer/view.html' });
    const view = read.contents[0] as { mimeType: string; text: string };
    expect(view.mimeType).toBe('text/html;profile=mcp-app');
    expect(view.text).toMatch(/^<!doctype html>/i);
    expect(view.text).toContain('<script type="module">');
    // Nothing loaded from anywhere: the spec's default CSP allows no domain.
    expect(view.text).not.toMatch(/<(script|link|img)[^>]+(src|href)="https?:/i);
  });

  it('applies a valid directive call: the htmx page and the A2UI v0.9 stream of the conversation show it, and its A2UI passes the official processor', async () => {
    const client = browser();
    const c: Conversation = await newConversation(asE2e(), client);
    sessionOwner = (await stack.surfacer.conversations.get(c.cid))!.ownerSessionId;
    const follower = await followA2uiV09(stack.url, c);
    const agent = await mcpClient(stack.url, AGENT_FOR_SESSION, { era, name: 'Claude' });
    try {
      const result = await call(agent, 'show_form', { conversationId: c.cid, payload: { template: 'character_card', values: { name: 'Aria' } } });
      expect(result.isError ?? false, textOf(result)).toBe(false);
      const structured = content(result);
      expect(structured).toMatchObject({ conversationId: c.cid, outcome: 'shown', a2ui: { version: 'v0.9' } });
      expect(textOf(result)).toContain('Character card');
      // The official v0.9 processor takes every message; ClientSim agrees and shows the typed name.
      feed(newOracle(), structured.a2ui.messages, 'show_form');
      const sim = createClientSimV09();
      expect(sim.applyAll(structured.a2ui.messages).filter((v) => v.severity === 'error')).toEqual([]);
      expect(structured.liveSurfaceIds).toEqual([...sim.state().surfaces.keys()]);
      // The same messages for hosts that render A2UI themselves.
      const embedded = result.content.find((part) => part.type === 'resource')!.resource!;
      expect(embedded.mimeType).toBe('application/a2ui+json');
      expect(JSON.parse(embedded.text!)).toEqual(structured.a2ui.messages);
      // The htmx page of the session.
      const page = await (await client.get(c.base)).text();
      expect(page).toContain('id="surface-main"');
      expect(page).toContain('value="Aria"');
      // The v0.9 stream following the conversation live.
      await expect.poll(() => { follower.sync(); return follower.sim.state().surfaces.size; }, { timeout: 5_000 }).toBe(1);
      // The log says who wrote it.
      const trace = (await stack.surfacer.conversations.traces(c.cid))!.at(-1)!;
      // A 2025-era client over HTTP names itself only in the handshake, which the stateless fallback does not keep.
      expect(trace.llm).toMatchObject({ provider: 'host', label: era === 'modern' ? 'Claude (MCP)' : 'MCP host (MCP)' });
    } finally {
      follower.close();
      await agent.close();
    }
  });

  it('refuses an invalid call with the canonical code and the pointer into its arguments, and changes nothing', async () => {
    const first = await call(alice, 'toast', { payload: { level: 'info', text: 'hello' } });
    const cid = content(first).conversationId;
    const before = await logLength(cid);
    const bad = await call(alice, 'show_form', { conversationId: cid, payload: { template: 'no_such_form' } });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toContain('`/payload/template` — DIRECTIVE_TEMPLATE_UNKNOWN');
    expect(bad.structuredContent).toMatchObject({ conversationId: cid, error: { code: 'DIRECTIVE_TEMPLATE_UNKNOWN', pointer: '/directives/0/payload/template' } });
    const wrongType = await call(alice, 'toast', { conversationId: cid, payload: { level: 'loud', text: 3 } });
    expect(wrongType.isError).toBe(true);
    expect(textOf(wrongType)).toMatch(/`\/payload\/(level|text)` — DIRECTIVE_PAYLOAD_INVALID/);
    const noPayload = await call(alice, 'toast', { conversationId: cid });
    expect(noPayload.isError).toBe(true);
    expect(textOf(noPayload)).toContain('`/payload`');
    const badId = await call(alice, 'toast', { conversationId: '../etc', payload: { level: 'info', text: 'x' } });
    expect(badId.isError).toBe(true);
    expect(textOf(badId)).toContain('`/conversationId`');
    expect(await logLength(cid)).toBe(before);
  });

  it('starts a conversation of the caller\'s own when none is named; another principal finds none', async () => {
    const first = await call(alice, 'show_form', { payload: { template: 'persona' } });
    const cid = content(first).conversationId;
    expect((await stack.surfacer.conversations.get(cid))!.ownerSessionId).not.toBe(sessionOwner);
    const second = await call(alice, 'toast', { payload: { level: 'info', text: 'again' } });
    expect(content(second).conversationId).not.toBe(cid);
    const before = await logLength(cid);
    for (const [name, args] of [
      ['toast', { conversationId: cid, payload: { level: 'info', text: 'not yours' } }],
      [READ_TOOL, { conversationId: cid }],
      [MESSAGE_TOOL, { conversationId: cid, text: 'hello' }],
    ] as const) {
      const refused = await call(bob, name, args);
      expect(refused.isError, name).toBe(true);
      expect(refused.structuredContent).toMatchObject({ error: { code: 'HTTP_NOT_FOUND' } });
    }
    expect(await logLength(cid)).toBe(before);
    // The same conversation through the read tool: every live surface.
    const read = await call(alice, READ_TOOL, { conversationId: cid });
    expect(content(read).a2ui.messages.length).toBeGreaterThan(0);
    expect(textOf(read)).toContain('persona');
  });

  it('applies a Save from the view once: a retry with the same key replays, a stale one is refused with the current surface', async () => {
    const shown = await call(alice, 'show_form', { payload: { template: 'character_card' } });
    const { conversationId: cid, a2ui } = content(shown);
    const sim = createClientSimV09();
    sim.applyAll(a2ui.messages);
    const surfaceId = [...sim.state().surfaces.keys()][0]!;
    const message = fillAndSubmitV09(createClientSimV09({ state: sim.state() }), surfaceId, { name: 'Mira', personality: 'Curious and kind' });
    const before = await logLength(cid);
    const saved = await call(alice, VIEW_ACTION_TOOL, { conversationId: cid, message, idempotencyKey: 'click-1' });
    expect(saved.isError ?? false, textOf(saved)).toBe(false);
    expect(content(saved), textOf(saved)).toMatchObject({ outcome: 'applied', tellModel: { kind: 'context' } });
    expect(content(saved).tellModel!.text).toContain('Mira');
    expect(await logLength(cid)).toBe(before + 1);
    const retry = await call(alice, VIEW_ACTION_TOOL, { conversationId: cid, message, idempotencyKey: 'click-1' });
    expect(content(retry).outcome).toBe('replayed');
    expect(content(retry).tellModel).toBeUndefined();
    expect(await logLength(cid)).toBe(before + 1);
    // The same rendering pressed again under a new key: the surface moved on, so it is stale.
    const stale = await call(alice, VIEW_ACTION_TOOL, { conversationId: cid, message, idempotencyKey: 'click-2' });
    expect(content(stale)).toMatchObject({ outcome: 'stale', error: { code: 'A2UI_C2S_SURFACE_STALE' } });
    expect(content(stale).notice).toBeTruthy();
    // The view gets the surface as it is now, and it takes it.
    feed(newOracle(), content(stale).a2ui.messages, 'stale');
    expect(await logLength(cid)).toBe(before + 1);
    // Another principal cannot press buttons in it.
    const foreign = await call(bob, VIEW_ACTION_TOOL, { conversationId: cid, message, idempotencyKey: 'click-3' });
    expect(foreign.structuredContent).toMatchObject({ error: { code: 'HTTP_NOT_FOUND' } });
  });

  it('runs one turn of the app\'s own planner on a message (the offline demo in any host)', async () => {
    const result = await call(alice, MESSAGE_TOOL, { text: 'create a character card' });
    expect(result.isError ?? false, textOf(result)).toBe(false);
    expect(content(result).a2ui.messages.some((m) => 'createSurface' in m)).toBe(true);
    expect(textOf(result)).toContain('Character card');
  });
});

describe('the MCP door over HTTP: who may call it', () => {
  const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } };
  const post = (headers: Record<string, string>, body: unknown = initialize): Promise<Response> => fetch(`${stack.url}/mcp`, {
    method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(body),
  });

  it('answers 401 without a token, naming the Protected Resource Metadata, which names the resource', async () => {
    for (const headers of [{}, { authorization: 'Bearer nope' }] as Array<Record<string, string>>) {
      const res = await post(headers);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe(`Bearer realm="surfacer", resource_metadata="${stack.url}/.well-known/oauth-protected-resource/mcp"`);
      expect(await res.json()).toMatchObject({ code: 'HTTP_UNAUTHORIZED' });
    }
    const metadata = await fetch(`${stack.url}/.well-known/oauth-protected-resource/mcp`);
    expect(metadata.status).toBe(200);
    expect(await metadata.json()).toEqual({ resource: `${stack.url}/mcp`, bearer_methods_supported: ['header'], resource_name: stack.surfacer.conversations.app.name });
  });

  it('refuses a foreign Origin (DNS rebinding) with 403, and takes the server\'s own', async () => {
    const foreign = await post({ authorization: `Bearer ${TOKEN_A}`, origin: 'http://evil.example' });
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toMatchObject({ code: 'HTTP_ORIGIN_FORBIDDEN' });
    const own = await post({ authorization: `Bearer ${TOKEN_A}`, origin: new URL(stack.url).origin });
    expect(own.status).toBe(200);
  });

  it('refuses a body over the limit with 413 before reading it', async () => {
    const res = await post({ authorization: `Bearer ${TOKEN_A}` }, { ...initialize, padding: 'x'.repeat(2_000_000) });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ code: 'HTTP_PAYLOAD_TOO_LARGE' });
  });
});

describe('the MCP door without tokens', () => {
  let open: McpStack;
  beforeAll(async () => { open = await startMcp({ env: {} }); });
  afterAll(async () => { await open.close(); });

  it('serves loopback callers as the one local principal, and refuses a request for another host name', async () => {
    const client = await mcpClient(open.url, undefined);
    const result = await call(client, 'toast', { payload: { level: 'info', text: 'hi' } });
    expect(result.isError ?? false).toBe(false);
    await client.close();
    // A page on evil.example whose name was rebound to 127.0.0.1 (fetch cannot set Host; node:http can).
    const port = Number(new URL(open.url).port);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request({
        host: '127.0.0.1', port, path: '/mcp', method: 'POST',
        headers: { host: `evil.example:${port}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      }, (res) => { res.resume(); resolve(res.statusCode ?? 0); });
      req.on('error', reject);
      req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }));
    });
    expect(status).toBe(401);
  });
});
