import type { Browser, Frame, FrameLocator, Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import type { ServeHandle } from '../../../src/cli/commands/serve.ts';
import type { Authenticate } from '../../../src/hosting/index.ts';
import type { Surfacer } from '../../../src/server/index.ts';
import type { E2eServer } from '../../e2e/support/stack.ts';
import { chromiumSuite, closedNetwork, CSP_VIOLATIONS, type ConsoleLog } from '../../support/browser/index.ts';
import { HttpClient } from '../../support/http-client.ts';
import { ARTIFACTS } from '../view-support/shots.ts';
import { startAppsHosts, type AppsHosts } from './server.ts';

/*
 * What both end-to-end MCP Apps suites (mcp-apps-browser, mcp-apps-live-browser) share: their
 * hooks (the host's origins, the Surfacer, Chromium), the agent token acting as a browser
 * session's owner, the Surfacer seen as an E2eServer (for the htmx session helpers), and the
 * host page opened in Chromium with its frames, its foreign requests and the CSP of its sandbox
 * proxy recorded.
 */

/** What a suite's Surfacer must be: the MCP stack of ../support.ts, or one of a suite's own. */
type SuiteStack = { url: string; errors: string[]; surfacer: Surfacer; close(): Promise<void> };

export interface AppsE2eSuite<S extends SuiteStack> {
  /** The host page's and the sandbox proxy's origins (from the first test on). */
  readonly hosts: AppsHosts;
  readonly stack: S;
  readonly consoleLog: ConsoleLog;
  /** The browser session the host's token acts for: a test sets it once it made the session. */
  sessionOwner: string | undefined;
  /** The Surfacer as the htmx helpers of test/e2e take a server. */
  asE2e(): E2eServer;
  /** The host page at `viewport` (see openHostPage). */
  open(viewport: { width: number; height: number }): Promise<OpenedHost>;
  /** What the host page recorded: the requests its client sent, the model context it got. */
  recorded(page: Page): Promise<Window['appsHost']['recorded']>;
}

/**
 * Registers the hooks of an MCP Apps suite: the host's origins start, then the Surfacer `start`
 * makes with the host page's origin allowed and `token` acting as the session's owner, then
 * Chromium; after the last test they stop in the reverse order. Call inside its describe block.
 */
export function appsE2eSuite<S extends SuiteStack>(
  token: string, start: (options: { agentOrigins: string[]; authenticate: Authenticate }) => Promise<S>,
): AppsE2eSuite<S> {
  let hosts: AppsHosts | undefined;
  let stack: S | undefined;
  const started = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`the MCP Apps suite's ${what} is not started (use it inside a test)`);
    return value;
  };
  beforeAll(async () => {
    // The host's origins first: the server must allow the host page's origin for /mcp.
    hosts = await startAppsHosts();
    stack = await start({ agentOrigins: [hosts.hostOrigin], authenticate: sessionAgent(token, () => suite.sessionOwner) });
  });
  afterAll(async () => {
    await stack?.close();
    await hosts?.close();
  });
  const chromium = chromiumSuite({ artifacts: ARTIFACTS });
  const suite: AppsE2eSuite<S> = {
    get hosts() { return started(hosts, 'hosts'); },
    get stack() { return started(stack, 'Surfacer'); },
    consoleLog: chromium.consoleLog,
    sessionOwner: undefined,
    asE2e: () => asE2eServer(suite.stack),
    open: (viewport) => openHostPage(chromium.browser, chromium.consoleLog, suite.hosts, suite.stack.url, viewport),
    recorded: (page) => page.evaluate(() => JSON.parse(JSON.stringify(window.appsHost.recorded)) as typeof window.appsHost.recorded),
  };
  return suite;
}

/** `token` acts as the owner `owner()` names (a browser session's, once the test made one). */
export function sessionAgent(token: string, owner: () => string | undefined): Authenticate {
  return (request) => {
    const current = owner();
    return request.headers.get('authorization') === `Bearer ${token}` && current !== undefined ? { id: 'apps-host', owner: current } : undefined;
  };
}

/** A Surfacer under test as the htmx helpers of test/e2e take a server. */
export function asE2eServer(stack: { url: string; errors: string[]; surfacer: Surfacer; close(): Promise<void> }): E2eServer {
  return {
    url: stack.url, errors: stack.errors, client: () => new HttpClient(stack.url), close: stack.close,
    handle: { conversations: stack.surfacer.conversations, a2ui: stack.surfacer.a2ui } as unknown as ServeHandle,
  };
}


export interface OpenedHost {
  page: Page;
  /** The view's document (inner iframe of the sandbox proxy). */
  view: FrameLocator;
  frame(): Frame;
  /** Requests the page made to any origin but the host's, the sandbox's and the server's (aborted). */
  foreign: string[];
  /** The Content-Security-Policy header of each sandbox proxy document the page loaded. */
  sandboxCsp: Array<string | null>;
}

/** The host page at `viewport`, every request outside the three origins aborted and recorded. */
export async function openHostPage(
  browser: Browser, consoleLog: ConsoleLog, hosts: AppsHosts, serverUrl: string, viewport: { width: number; height: number },
): Promise<OpenedHost> {
  const context = await browser.newContext({ viewport });
  const page = await consoleLog.watch(await context.newPage());
  await page.addInitScript(CSP_VIOLATIONS);
  const foreign = await closedNetwork(page, [hosts.hostOrigin, new URL(hosts.sandboxUrl).origin, new URL(serverUrl).origin]);
  const sandboxCsp: Array<string | null> = [];
  page.on('response', (response) => {
    if (response.url().split('?')[0] === hosts.sandboxUrl) sandboxCsp.push(response.headers()['content-security-policy'] ?? null);
  });
  await page.goto(hosts.hostUrl);
  const frame = (): Frame => {
    const found = page.frames().find((f) => f.parentFrame() !== null && f.parentFrame()!.parentFrame() === page.mainFrame());
    if (found === undefined) throw new Error('no view frame');
    return found;
  };
  return { page, view: page.frameLocator('#view').frameLocator('iframe'), frame, foreign, sandboxCsp };
}
