import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createDemoApp } from '../../src/app/index.ts';
import { createClientSimV09, type ClientSimV09, type ViolationV09 } from '../../src/clientsim/index.ts';
import { feed, newOracle, type Oracle } from '../support/a2ui-v0_9-oracle.ts';
import type { Logger } from '../../src/conversation/index.ts';
import type { RunningServer } from '../../src/host-html/index.ts';
import { createSurfacer, type Surfacer, type SurfacerOptions } from '../../src/server/index.ts';

/** A Surfacer over real HTTP on a loopback port with two MCP tokens (two principals). */
export interface McpStack {
  surfacer: Surfacer;
  server: RunningServer;
  url: string;
  /** Every error the server logged (a test that expects none checks it is empty). */
  errors: string[];
  close(): Promise<void>;
}

export const TOKEN_A = 'mcp-token-a-0123456789';
export const TOKEN_B = 'mcp-token-b-0123456789';

export async function startMcp(options: Partial<SurfacerOptions> = {}): Promise<McpStack> {
  const errors: string[] = [];
  const logger: Logger = { info() {}, warn() {}, error(message, fields) { errors.push(`${message} ${JSON.stringify(fields ?? {})}`); } };
  const surfacer = createSurfacer({
    app: createDemoApp(), sessionSecret: 'mcp-test-session-secret-0123', logger,
    env: { SURFACER_API_TOKENS: `${TOKEN_A},${TOKEN_B}` }, ...options,
  });
  const server = await surfacer.listen({ port: 0, hostname: '127.0.0.1' });
  return { surfacer, server, url: server.url, errors, close: () => server.close(1000) };
}

/** The official MCP client over Streamable HTTP, as a remote host connects with a token. */
export type Era = 'legacy' | 'modern';
export const ERAS: readonly Era[] = ['modern', 'legacy'];

/**
 * The official MCP client over Streamable HTTP, as a remote host connects with a token: `modern`
 * speaks the 2026-07-28 protocol (no handshake, no session), `legacy` the 2025-11-25 one the
 * client still opens with by default (served by the SDK's stateless fallback).
 */
export async function mcpClient(url: string, token: string | undefined, options: { era?: Era; name?: string } = {}): Promise<Client> {
  const client = new Client({ name: options.name ?? 'surfacer-test-host', version: '1.0.0' }, {
    versionNegotiation: { mode: (options.era ?? 'modern') === 'modern' ? { pin: '2026-07-28' } : 'legacy' },
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
    requestInit: { headers: token === undefined ? {} : { Authorization: `Bearer ${token}` } },
  }));
  return client;
}

/** What the UI tools put in structuredContent (src/host-mcp/server.ts). */
export interface SurfacesContent {
  conversationId: string;
  a2ui: { version: 'v0.9'; messages: Array<Record<string, unknown>> };
  liveSurfaceIds: string[];
  outcome?: string;
  notice?: string;
  tellModel?: { kind: string; text: string };
  error?: { code: string; pointer?: string };
}

export interface ToolResult {
  isError?: boolean;
  content: Array<{ type: string; text?: string; resource?: { uri: string; mimeType?: string; text?: string } }>;
  structuredContent?: SurfacesContent;
}

export async function call(client: Client, name: string, args: Record<string, unknown>): Promise<ToolResult> {
  return await client.callTool({ name, arguments: args }) as unknown as ToolResult;
}

export const textOf = (result: ToolResult): string => result.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');

/**
 * What the MCP App view (src/host-mcp/view) holds, as a ClientSim v0.9 and as the official v0.9
 * processor side by side: each result's messages re-initialise the surfaces they create (a held
 * one is deleted first), update the ones they only update, and surfaces no longer live are
 * deleted, as the view does. Every message must pass the official processor.
 */
export class McpView {
  readonly sim: ClientSimV09 = createClientSimV09();
  readonly oracle: Oracle = newOracle();
  readonly violations: ViolationV09[] = [];

  show(content: Pick<SurfacesContent, 'a2ui' | 'liveSurfaceIds'>): void {
    const held = new Set(this.sim.state().surfaces.keys());
    const deletes = content.a2ui.messages
      .map((m) => (m['createSurface'] as { surfaceId?: string } | undefined)?.surfaceId)
      .filter((id): id is string => id !== undefined && held.has(id));
    const live = new Set(content.liveSurfaceIds);
    const gone = [...held].filter((id) => !live.has(id) && !deletes.includes(id));
    const deleting = (surfaceId: string): Record<string, unknown> => ({ version: 'v0.9', deleteSurface: { surfaceId } });
    const messages = [...deletes.map(deleting), ...content.a2ui.messages, ...gone.map(deleting)];
    this.violations.push(...this.sim.applyAll(messages).filter((v) => v.severity === 'error'));
    feed(this.oracle, messages, 'MCP view');
  }
}
