/// <reference lib="dom" />
/*
 * The test's MCP Apps host page (bundled by esbuild in view-browser.test.ts): ext-apps' official
 * AppBridge, set up as the reference host (examples/basic-host of modelcontextprotocol/ext-apps)
 * sets it up. The view runs behind a sandbox proxy on another origin (sandbox-proxy.ts), which
 * loads it into an inner iframe under the CSP the proxy's document was served with. The host
 * answers the view's server-tool calls from fixtures the test hands it (no MCP server here) and
 * records every call, context update and message the view makes, for the test to read through
 * `window.mcpHost`.
 */
import { AppBridge, type McpUiHostContext } from '@modelcontextprotocol/ext-apps/app-bridge';
import { openView, recordViewReports } from './bridge.ts';

type Json = Record<string, unknown>;
type Answer = Json | { throw: string };

interface Recorded {
  calls: Array<{ name: string; arguments: Json | undefined }>;
  /** surfacer_read calls answered so far. */
  readsAnswered: number;
  modelContext: Json[];
  messages: Json[];
  logs: Json[];
  sizes: Array<{ width?: number; height?: number }>;
}

interface OpenOptions {
  html: string;
  sandboxUrl: string;
  hostContext: McpUiHostContext;
}

const recorded: Recorded = { calls: [], readsAnswered: 0, modelContext: [], messages: [], logs: [], sizes: [] };
const fixtures: { read: Json | undefined; readDelayMs: number; actions: Answer[]; actionDelayMs: number } = {
  read: undefined, readDelayMs: 0, actions: [], actionDelayMs: 0,
};
let bridge: AppBridge | undefined;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function frame(): HTMLIFrameElement {
  const iframe = document.getElementById('view');
  if (!(iframe instanceof HTMLIFrameElement)) throw new Error('no #view iframe');
  return iframe;
}


async function open({ html, sandboxUrl, hostContext }: OpenOptions): Promise<void> {
  const iframe = frame();
  const b = new AppBridge(null, { name: 'surfacer-test-host', version: '1.0.0' }, {
    serverTools: {},
    logging: {},
    openLinks: {},
    updateModelContext: { text: {} },
    message: { text: {} },
  }, { hostContext });
  bridge = b;
  // Every handler before connect(): the view may call right after its handshake.
  b.oncalltool = async (params) => {
    recorded.calls.push({ name: params.name, arguments: params.arguments as Json | undefined });
    if (params.name === 'surfacer_read') {
      if (fixtures.readDelayMs > 0) await sleep(fixtures.readDelayMs);
      recorded.readsAnswered += 1;
      return (fixtures.read ?? { content: [{ type: 'text', text: 'no read fixture' }], isError: true }) as never;
    }
    if (params.name === 'surfacer_view_action') {
      const answer = fixtures.actions.shift();
      if (fixtures.actionDelayMs > 0) await sleep(fixtures.actionDelayMs);
      if (answer === undefined) return { content: [{ type: 'text', text: 'no action fixture' }], isError: true };
      if ('throw' in answer && typeof answer.throw === 'string') throw new Error(answer.throw);
      return answer as never;
    }
    throw new Error(`unknown tool ${params.name}`);
  };
  recordViewReports(b, iframe, recorded);
  await openView(b, iframe, sandboxUrl, html);
}

function live(): AppBridge {
  if (bridge === undefined) throw new Error('the view is not open');
  return bridge;
}

const mcpHost = {
  recorded,
  fixtures,
  open,
  sendToolInput: (args: Json) => live().sendToolInput({ arguments: args }),
  sendToolResult: (result: Json) => live().sendToolResult(result as never),
  sendToolCancelled: (reason: string) => live().sendToolCancelled({ reason }),
  sendHostContextChange: (context: McpUiHostContext) => live().sendHostContextChange(context),
  teardown: () => live().teardownResource({}),
};

declare global {
  interface Window { mcpHost: typeof mcpHost }
}
window.mcpHost = mcpHost;
