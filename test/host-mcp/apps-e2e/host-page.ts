/// <reference lib="dom" />
/*
 * The end-to-end test's MCP Apps host page (bundled by esbuild in server.ts): a host that talks
 * to a real Surfacer server through the official MCP client (@modelcontextprotocol/client,
 * Streamable HTTP, a bearer token) and shows the server's view through ext-apps' official
 * AppBridge, constructed WITH that client, so the SDK itself forwards the view's tools/call to
 * the server (AppBridge.connect sets that up from the server's capabilities). Set up as the
 * reference host (examples/basic-host of modelcontextprotocol/ext-apps) sets it up: the view
 * behind the sandbox proxy of view-support on another origin, its HTML read from the server as
 * the `ui://` resource the tool's `_meta.ui.resourceUri` names.
 *
 * `window.appsHost.run()` does what a host does when its model calls a Surfacer tool: lists the
 * tools, reads the tool's view, opens it, sends the tool's input, calls the tool, sends the
 * result. A view whose resource declares domains (`_meta.ui.csp`) gets them in the sandbox
 * proxy's URL (`?csp=<JSON>`, as basic-host passes them), whose server builds the view's CSP
 * from them (view-support/server.ts). Everything the view asks of the host (context updates, messages, logs, sizes) and
 * every JSON-RPC request the client sent over HTTP is recorded in `window.appsHost.recorded`.
 */
import { Client, StreamableHTTPClientTransport, type FetchLike } from '@modelcontextprotocol/client';
import { AppBridge, getToolUiResourceUri, RESOURCE_MIME_TYPE, type McpUiHostContext } from '@modelcontextprotocol/ext-apps/app-bridge';
import { openView, recordViewReports } from '../view-support/bridge.ts';

type Json = Record<string, unknown>;

/** One JSON-RPC message the client POSTed to /mcp (or a GET: its stream), and the HTTP status it was answered with. */
interface Sent {
  /** POST, GET (the 2025 era's optional stream), DELETE. */
  http: string;
  /** The JSON-RPC method; '' for a request without a body. */
  method: string;
  /** The tool of a tools/call, the uri of a resources/read. */
  target?: string;
  /** The arguments of a tools/call. */
  arguments?: Json;
  status?: number;
}

interface Recorded {
  sent: Sent[];
  /** The protocol version the client speaks once connected. */
  protocolVersion: string | undefined;
  resourceUri: string | undefined;
  resourceMimeType: string | undefined;
  /** The view resource's `_meta.ui.csp`, as read. */
  resourceCsp: Json | undefined;
  toolResult: Json | undefined;
  modelContext: Json[];
  messages: Json[];
  logs: Json[];
  sizes: Array<{ width?: number; height?: number }>;
  /** What went wrong in run(), if anything. */
  failure: string | undefined;
}

export interface RunOptions {
  /** The Surfacer server's origin (its /mcp is called from this page: CORS). */
  serverUrl: string;
  token: string;
  sandboxUrl: string;
  /** `pinned`: the 2026-07-28 protocol (no handshake); `default`: the client's default negotiation. */
  era: 'pinned' | 'default';
  tool: string;
  arguments: Json;
  hostContext: McpUiHostContext;
  /** A host that ignores the resource's declared domains: the view gets the spec's default CSP whatever it declares. */
  ignoreResourceCsp?: boolean;
}

const HOST_INFO = { name: 'surfacer-apps-e2e-host', version: '1.0.0' };

const recorded: Recorded = {
  sent: [], protocolVersion: undefined, resourceUri: undefined, resourceMimeType: undefined, resourceCsp: undefined, toolResult: undefined,
  modelContext: [], messages: [], logs: [], sizes: [], failure: undefined,
};
let bridge: AppBridge | undefined;
let client: Client | undefined;

function byId<T extends HTMLElement>(id: string, type: new () => T): T {
  const found = document.getElementById(id);
  if (!(found instanceof type)) throw new Error(`no #${id}`);
  return found;
}

/** The transport's fetch, recording each JSON-RPC message it sends (the SDK still does everything). */
const recordingFetch: FetchLike = async (url, init) => {
  const http = (init?.method ?? 'GET').toUpperCase();
  const entries: Sent[] = [];
  if (init?.body === undefined || init.body === null) entries.push({ http, method: '' });
  else if (typeof init.body === 'string') {
    try {
      const body = JSON.parse(init.body) as unknown;
      for (const message of Array.isArray(body) ? body : [body]) {
        const { method, params } = message as { method?: unknown; params?: { name?: unknown; uri?: unknown; arguments?: unknown } };
        if (typeof method !== 'string') continue;
        const target = typeof params?.name === 'string' ? params.name : typeof params?.uri === 'string' ? params.uri : undefined;
        entries.push({
          http,
          method,
          ...(target !== undefined ? { target } : {}),
          ...(method === 'tools/call' && typeof params?.arguments === 'object' && params.arguments !== null ? { arguments: params.arguments as Json } : {}),
        });
      }
    } catch {
      entries.push({ http, method: '(not JSON)' });
    }
  }
  recorded.sent.push(...entries);
  const response = await fetch(url, init);
  for (const entry of entries) entry.status = response.status;
  return response;
};


function showModelContext(params: Json): void {
  const panel = byId('model-context', HTMLDivElement);
  const label = document.createElement('strong');
  label.textContent = 'Model context from Surfacer';
  const text = document.createElement('span');
  const content = (params.content as Array<{ type?: string; text?: string }> | undefined) ?? [];
  text.textContent = content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');
  panel.replaceChildren(label, text);
}

async function run(options: RunOptions): Promise<void> {
  try {
    await runSteps(options);
  } catch (error) {
    recorded.failure = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    throw error;
  }
}

async function runSteps({ serverUrl, token, sandboxUrl, era, tool, arguments: args, hostContext, ignoreResourceCsp }: RunOptions): Promise<void> {
  const iframe = byId('view', HTMLIFrameElement);
  byId('tool', HTMLDivElement).textContent = `Surfacer · ${tool}`;

  // The host's connection to the server.
  const c = new Client(HOST_INFO, era === 'pinned' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
  client = c;
  await c.connect(new StreamableHTTPClientTransport(new URL('/mcp', serverUrl), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
    fetch: recordingFetch,
  }));
  recorded.protocolVersion = c.getNegotiatedProtocolVersion();

  // The model called `tool`: which view does it name, and what is that view?
  const { tools } = await c.listTools();
  const described = tools.find((t) => t.name === tool);
  if (described === undefined) throw new Error(`the server has no tool ${tool}`);
  const uri = getToolUiResourceUri(described);
  if (uri === undefined) throw new Error(`${tool} names no view`);
  recorded.resourceUri = uri;
  const resource = await c.readResource({ uri });
  const contents = resource.contents[0] as { mimeType?: string; text?: string; _meta?: { ui?: { csp?: Json } } } | undefined;
  recorded.resourceMimeType = contents?.mimeType;
  if (contents?.mimeType !== RESOURCE_MIME_TYPE || typeof contents.text !== 'string') throw new Error(`${uri} is not an MCP App view`);
  const csp = contents._meta?.ui?.csp;
  recorded.resourceCsp = csp;
  const domains = csp?.connectDomains;
  const sandbox = Array.isArray(domains) && domains.length > 0 && ignoreResourceCsp !== true ? `${sandboxUrl}?csp=${encodeURIComponent(JSON.stringify(csp))}` : sandboxUrl;

  // The view, with the bridge forwarding its server requests through the client.
  const b = new AppBridge(c, HOST_INFO, {
    serverTools: {},
    serverResources: {},
    logging: {},
    openLinks: {},
    updateModelContext: { text: {} },
    message: { text: {} },
  }, { hostContext });
  bridge = b;
  recordViewReports(b, iframe, recorded, showModelContext);
  await openView(b, iframe, sandbox, contents.text);

  // The model's call: its input while it runs, then its result.
  await b.sendToolInput({ arguments: args });
  const result = await c.callTool({ name: tool, arguments: args });
  recorded.toolResult = result as Json;
  await b.sendToolResult(result as never);
}

function live(): AppBridge {
  if (bridge === undefined) throw new Error('the view is not open');
  return bridge;
}

const appsHost = {
  recorded,
  run,
  teardown: () => live().teardownResource({}),
  close: async () => {
    await bridge?.close();
    await client?.close();
  },
};

declare global {
  interface Window { appsHost: typeof appsHost }
}
window.appsHost = appsHost;
