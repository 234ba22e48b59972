import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READ_TOOL } from '../../src/host-mcp/index.ts';
import { textOf, type ToolResult } from './support.ts';

/*
 * `surfacer mcp` as Claude Desktop, VS Code or Goose launch it: a child process speaking MCP on
 * its stdin and stdout, driven by the official client's StdioClientTransport (which spawns it).
 * Standard output must hold the protocol only (the client would fail on anything else); the
 * logs go to stderr. Conversations land in the data directory `surfacer serve` reads.
 */
const BIN = resolve('bin/surfacer.mjs');
let dir: string;
let client: Client;
let stderr = '';

async function connect(era: 'modern' | 'legacy'): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath, args: [BIN, 'mcp', '--data', dir],
    env: { ...getDefaultEnvironment(), SURFACER_LOG_FORMAT: 'json' }, stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => { stderr += chunk.toString('utf8'); });
  const made = new Client({ name: 'stdio-test-host', version: '1.0.0' }, {
    versionNegotiation: { mode: era === 'modern' ? { pin: '2026-07-28' } : 'legacy' },
  });
  await made.connect(transport);
  return made;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'surfacer-mcp-stdio-'));
  client = await connect('legacy');
}, 60_000);
afterAll(async () => {
  await client?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('surfacer mcp (stdio)', () => {
  it('lists the directive tools and the view, applies a call to the connection\'s conversation, logs on stderr only', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['show_form', 'ask', 'toast', READ_TOOL, 'surfacer_view_action']));
    const view = await client.readResource({ uri: 'ui://surfacer/view.html' });
    expect(view.contents[0]).toMatchObject({ mimeType: 'text/html;profile=mcp-app' });

    const shown = await client.callTool({ name: 'show_form', arguments: { payload: { template: 'character_card' } } }) as unknown as ToolResult;
    expect(shown.isError ?? false, textOf(shown)).toBe(false);
    const cid = shown.structuredContent!.conversationId;
    // No conversationId: the connection's conversation again, not a new one.
    const toast = await client.callTool({ name: 'toast', arguments: { payload: { level: 'info', text: 'saved you a seat' } } }) as unknown as ToolResult;
    expect(toast.structuredContent!.conversationId).toBe(cid);
    const read = await client.callTool({ name: READ_TOOL, arguments: { conversationId: cid } }) as unknown as ToolResult;
    expect(textOf(read)).toContain('Character card');
    // The log is where `surfacer serve --data` would read it.
    expect(await readdir(dir)).toContain(`${cid}.jsonl`);
    expect(stderr).toContain('MCP over stdio ready');
  });

  it('speaks the 2026-07-28 protocol too', async () => {
    const modern = await connect('modern');
    try {
      const result = await modern.callTool({ name: 'toast', arguments: { payload: { level: 'info', text: 'hi' } } }) as unknown as ToolResult;
      expect(result.isError ?? false, textOf(result)).toBe(false);
    } finally {
      await modern.close();
    }
  });
});
