import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directiveToolName, MESSAGE_TOOL, READ_TOOL, VIEW_ACTION_TOOL } from '../../src/host-mcp/index.ts';
import { call, mcpClient, startMcp, TOKEN_A, type McpStack } from './support.ts';

/*
 * Issue 30, "Done when": 2,000 junk JSON-RPC bodies and tool arguments against /mcp, in both
 * protocol eras: never a 5xx, never a logged server error, and nothing applied to the
 * conversation they aim at but what the server answered as applied (junk that happens to be a valid call may be, and is answered so).
 */
const RUNS = 2_000;
let stack: McpStack;
let cid: string;

beforeAll(async () => {
  stack = await startMcp({ hostLimits: { conversationCreatesPerMinute: 100_000, maxConversationsPerSession: 100_000 } });
  const client = await mcpClient(stack.url, TOKEN_A);
  const shown = await call(client, 'show_form', { payload: { template: 'character_card' } });
  cid = shown.structuredContent!.conversationId;
  await client.close();
});
afterAll(async () => { await stack.close(); });

type Era = 'modern' | 'legacy';
type Junk =
  | { kind: 'text'; era: Era; text: string }
  | { kind: 'json'; era: Era; value: unknown }
  | { kind: 'rpc'; era: Era; method: string; id: unknown; params: unknown }
  | { kind: 'tool'; era: Era; name: string; args: Record<string, unknown> };

describe('the MCP door under junk', () => {
  it(`answers ${RUNS} junk bodies and tool calls without a 5xx, and changes the conversation only when it answers "applied"`, async () => {
    const tools = [
      ...stack.surfacer.conversations.app.directives.definitions.map((d) => directiveToolName(d.type)),
      READ_TOOL, MESSAGE_TOOL, VIEW_ACTION_TOOL, 'no_such_tool',
    ];
    const era = fc.constantFrom<Era>('modern', 'legacy');
    const key = fc.oneof(fc.constantFrom('conversationId', 'payload', 'assistant_text', 'message', 'idempotencyKey', 'text', '__proto__'), fc.string({ maxLength: 12 }));
    const value = fc.oneof(
      { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
      { weight: 1, arbitrary: fc.constant(cid) },
      { weight: 1, arbitrary: fc.record({ version: fc.constantFrom('v0.9', 'v0.8', 'x'), action: fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 3 })) }) },
    );
    const junk: fc.Arbitrary<Junk> = fc.oneof(
      fc.record({ kind: fc.constant('text' as const), era, text: fc.string({ maxLength: 200 }) }),
      fc.record({ kind: fc.constant('json' as const), era, value: fc.jsonValue({ maxDepth: 5 }) }),
      fc.record({
        kind: fc.constant('rpc' as const), era,
        method: fc.oneof(fc.constantFrom('tools/call', 'tools/list', 'resources/read', 'resources/list', 'initialize', 'server/discover', 'subscriptions/listen'), fc.string({ maxLength: 20 })),
        id: fc.oneof(fc.integer(), fc.string({ maxLength: 10 }), fc.constant(null), fc.jsonValue({ maxDepth: 2 })),
        params: fc.jsonValue({ maxDepth: 4 }),
      }),
      fc.record({ kind: fc.constant('tool' as const), era, name: fc.constantFrom(...tools), args: fc.dictionary(key, value, { maxKeys: 5 }) }),
    );
    const versionOf = async (): Promise<number> => (await stack.surfacer.conversations.get(cid))!.version;
    let unansweredChanges = 0;
    const statuses = new Map<number, number>();
    await fc.assert(fc.asyncProperty(junk, async (j) => {
      const { body, headers } = encode(j);
      const before = await versionOf();
      const res = await fetch(`${stack.url}/mcp`, {
        method: 'POST', body,
        headers: { authorization: `Bearer ${TOKEN_A}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      });
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      const text = await res.text();
      expect(res.status, `${JSON.stringify(j).slice(0, 300)} → ${text.slice(0, 300)}`).toBeLessThan(500);
      // Junk can happen to be a valid call (a message tool with a string text, a toast): the server
      // may apply that, and says so. Any other answer leaves the conversation as it was.
      const answeredApplied = j.kind === 'tool' && j.name !== READ_TOOL && /"isError":false|"outcome":"(applied|shown)"/.test(text);
      if (!answeredApplied && (await versionOf()) !== before) unansweredChanges += 1;
    }), { numRuns: RUNS });
    expect(unansweredChanges).toBe(0);
    expect(stack.errors).toEqual([]);
    // The junk reached past the door: most answers are the protocol's own (200 with a JSON-RPC error, 202, 400).
    expect([...statuses.keys()].every((s) => s < 500)).toBe(true);
  }, 240_000);
});

/** A junk request as a client of `era` would send it (the 2026-07-28 headers and envelope, or plain 2025 JSON-RPC). */
function encode(j: Junk): { body: string; headers: Record<string, string> } {
  const modern = j.era === 'modern';
  const envelope = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'fuzz', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };
  const headers: Record<string, string> = modern ? { 'mcp-protocol-version': '2026-07-28' } : { 'mcp-protocol-version': '2025-11-25' };
  switch (j.kind) {
    case 'text':
      return { body: j.text, headers };
    case 'json':
      return { body: JSON.stringify(j.value) ?? 'null', headers };
    case 'rpc': {
      const params = modern && j.params !== null && typeof j.params === 'object' && !Array.isArray(j.params) ? { ...j.params, _meta: envelope } : j.params;
      return { body: JSON.stringify({ jsonrpc: '2.0', id: j.id, method: j.method, params }), headers: { ...headers, ...(modern ? { 'mcp-method': j.method.replace(/[^\x21-\x7e]/g, '') } : {}) } };
    }
    case 'tool': {
      const params = { name: j.name, arguments: j.args, ...(modern ? { _meta: envelope } : {}) };
      return { body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }), headers: { ...headers, ...(modern ? { 'mcp-method': 'tools/call', 'mcp-name': j.name } : {}) } };
    }
  }
}
