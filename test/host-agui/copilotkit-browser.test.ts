import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { HttpAgent } from '@ag-ui/client';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { ServeHandle } from '../../src/cli/commands/serve.ts';
import { conversationIdOfThread } from '../../src/host-agui/index.ts';
import { findSurface } from '../../src/ui-ir/index.ts';
import { browserSuite } from '../e2e/support/browser-suite.ts';
import type { E2eServer } from '../e2e/support/stack.ts';
import { HttpClient } from '../support/http-client.ts';
import { startAgui, TOKEN_A, type AguiStack } from './support.ts';

/*
 * Issue 35, "Done when": CopilotKit's own packages in Chromium, set up as CopilotKit documents
 * them, nothing of ours on CopilotKit's side (copilotkit-page/main.ts): v2 <CopilotKit> +
 * <CopilotChat>, its A2UI renderer, and
 * - the Copilot Runtime 1.75 (v2 `CopilotRuntime` with `a2ui: true`, served by
 *   `createCopilotNodeListener`) whose agent is `new HttpAgent({ url: <surfacer>/ag-ui })`;
 * - or, without a runtime, a browser-side HttpAgent calling /ag-ui on Surfacer's origin, which
 *   allows the page's origin (SURFACER_AGENT_ORIGINS).
 * "create a character card": the card renders, a person types and saves, the saved values show
 * in the card, a second Save works, and the console stays empty.
 */
const ARTIFACTS = 'test-artifacts/copilotkit';
process.env.COPILOTKIT_TELEMETRY_DISABLED = 'true';

/** The page's origin: CopilotKit's page, and the runtime beside it (as an app serves both). */
interface PageHost { url: string; threads: Set<string>; close(): Promise<void> }

let surfacer: AguiStack;
let host: PageHost;

async function bundle(): Promise<{ js: string; css: string }> {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: [fileURLToPath(new URL('./copilotkit-page/main.ts', import.meta.url))],
    bundle: true, format: 'esm', platform: 'browser', target: 'es2022', minify: true, write: false, outdir: '/tmp/copilotkit-page',
    // CopilotKit's stylesheet brings KaTeX's fonts.
    loader: { '.woff': 'dataurl', '.woff2': 'dataurl', '.ttf': 'dataurl', '.svg': 'dataurl', '.png': 'dataurl' },
    define: { 'process.env.NODE_ENV': '"production"' }, logLevel: 'silent',
  });
  const out = (ext: string): string => result.outputFiles.find((f) => f.path.endsWith(ext))?.text ?? '';
  return { js: out('.js'), css: out('.css') };
}

async function startPageHost(): Promise<PageHost> {
  const page = await bundle();
  const threads = new Set<string>();
  let runtime: ((req: IncomingMessage, res: ServerResponse) => unknown) | undefined;
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://page.host').pathname;
    const asset = path === '/index.html'
      ? { type: 'text/html', body: '<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">'
        + '<title>CopilotKit + Surfacer</title><link rel="stylesheet" href="/app.css"></head><body style="margin:0"><div id="root"></div>'
        + '<script type="module" src="/app.js"></script></body></html>' }
      : path === '/app.js' ? { type: 'text/javascript', body: page.js } : path === '/app.css' ? { type: 'text/css', body: page.css } : undefined;
    if (asset !== undefined) {
      res.writeHead(200, { 'Content-Type': asset.type, 'Cache-Control': 'no-store' });
      res.end(asset.body);
    } else if (runtime !== undefined) {
      void runtime(req, res);
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url, threads,
    /** The runtime, once Surfacer runs (its agent needs Surfacer's URL). */
    set agentUrl(agentUrl: string) {
      void (async () => {
        const { CopilotRuntime } = await import('@copilotkit/runtime/v2');
        const { createCopilotNodeListener } = await import('@copilotkit/runtime/v2/node');
        // The documented agent: @ag-ui/client's HttpAgent, with the token Surfacer asks for.
        const recording: typeof fetch = (input, init) => {
          if (typeof init?.body === 'string') threads.add((JSON.parse(init.body) as { threadId: string }).threadId);
          return fetch(input, init);
        };
        const agent = new HttpAgent({ url: agentUrl, headers: { Authorization: `Bearer ${TOKEN_A}` }, fetch: recording } as ConstructorParameters<typeof HttpAgent>[0]);
        const copilot = new CopilotRuntime({ agents: { default: agent as never }, a2ui: true as never });
        runtime = createCopilotNodeListener({ runtime: copilot, basePath: '/api/copilotkit', activateChannels: false }) as typeof runtime;
      })();
    },
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  } as PageHost & { agentUrl: string };
}

async function startStack(): Promise<E2eServer> {
  host = await startPageHost();
  surfacer = await startAgui({ env: { SURFACER_API_TOKENS: TOKEN_A, SURFACER_AGENT_ORIGINS: host.url } });
  (host as PageHost & { agentUrl: string }).agentUrl = `${surfacer.url}/ag-ui`;
  return {
    url: surfacer.url, errors: surfacer.errors, client: () => new HttpClient(surfacer.url),
    handle: { conversations: surfacer.surfacer.conversations } as unknown as ServeHandle,
    close: async () => { await host.close(); await surfacer.close(); },
  };
}

const suite = browserSuite({ artifacts: ARTIFACTS, start: startStack });

/** A watched page that reaches the page's origin and Surfacer's, and nothing else (no font or CDN on this network). */
async function openChat(query: Record<string, string>): Promise<Page> {
  suite.server; // started
  const ctx = await suite.contextFor();
  const page = await suite.consoleLog.watch(await ctx.newPage());
  const allowed = new Set([new URL(host.url).origin, new URL(surfacer.url).origin]);
  await page.route('**/*', (route) => (allowed.has(new URL(route.request().url()).origin) ? route.continue() : route.abort()));
  page.on('request', (request) => {
    if (request.method() === 'POST' && request.url().endsWith('/ag-ui')) host.threads.add((JSON.parse(request.postData() ?? '{}') as { threadId: string }).threadId);
  });
  await page.goto(`${host.url}/index.html?${new URLSearchParams(query)}`);
  await page.locator('textarea').first().waitFor();
  return page;
}

/** The committed values of the one conversation the chat's thread is. */
async function committedOfThread(): Promise<Record<string, unknown> | undefined> {
  const values = await Promise.all([...host.threads].map(async (thread) => {
    const conversation = await surfacer.surfacer.conversations.get(conversationIdOfThread(thread));
    return conversation === undefined ? undefined : findSurface(conversation.ir, 'main')?.data.committed;
  }));
  return values.find((v) => v !== undefined && Object.keys(v).length > 0) as Record<string, unknown> | undefined;
}

/** Types into CopilotKit's chat, then fills and saves the card twice, as a person would. */
async function fillAndSaveTwice(page: Page, shots: string): Promise<void> {
  const input = page.locator('textarea').first();
  await input.fill('create a character card');
  await input.press('Enter');
  const name = page.getByLabel('Name *', { exact: true });
  await name.waitFor({ timeout: 30_000 });
  await page.getByText('Character card', { exact: true }).first().waitFor();
  expect(await page.getByText(/A2UI render error/).count()).toBe(0);
  await suite.shoot(page, `${shots}-card`);

  await name.fill('Aria');
  await page.getByLabel('Personality *', { exact: true }).fill('Brave, curious and kind.');
  await page.getByLabel('Tags', { exact: true }).fill('bard, brave');
  await page.getByRole('button', { name: 'Save character' }).click();
  await page.getByText(/^Saved to your card library as /).first().waitFor({ timeout: 30_000 });
  await expect.poll(committedOfThread).toMatchObject({ name: 'Aria', personality: 'Brave, curious and kind.', tags: ['bard', 'brave'] });
  // The saved values show in the card, and the card is still the one surface it was.
  await page.getByText('bard, brave', { exact: true }).first().waitFor();
  expect(await page.getByText(/A2UI render error/).count()).toBe(0);
  await suite.shoot(page, `${shots}-saved`);

  // A second Save from the same card.
  await name.fill('Aria Vale');
  await page.getByRole('button', { name: 'Save character' }).click();
  await expect.poll(committedOfThread).toMatchObject({ name: 'Aria Vale' });
  await page.getByText('Aria Vale', { exact: true }).first().waitFor();
  expect(await page.getByText(/A2UI render error/).count()).toBe(0);
  await suite.shoot(page, `${shots}-saved-again`);
}

describe('CopilotKit (react-core 1.74, a2ui-renderer 1.74, runtime 1.75) on POST /ag-ui', () => {
  it('through the Copilot Runtime and its HttpAgent: the card renders, saves, saves again; the console stays empty', async () => {
    host.threads.clear();
    const page = await openChat({ mode: 'runtime', runtime: `${host.url}/api/copilotkit` });
    await fillAndSaveTwice(page, 'runtime');
  });

  it('a browser-side HttpAgent, the page\'s origin allowed by SURFACER_AGENT_ORIGINS: the same', async () => {
    host.threads.clear();
    const page = await openChat({ mode: 'direct', agui: `${surfacer.url}/ag-ui`, token: TOKEN_A });
    await fillAndSaveTwice(page, 'direct');
  });
});
