import type { Browser, Frame, FrameLocator, Page } from 'playwright-core';
import type { ServeHandle } from '../../../src/cli/commands/serve.ts';
import type { Authenticate } from '../../../src/hosting/index.ts';
import type { Surfacer } from '../../../src/server/index.ts';
import type { E2eServer } from '../../e2e/support/stack.ts';
import type { createConsoleLog } from '../../support/browser/index.ts';
import { HttpClient } from '../../support/http-client.ts';
import type { AppsHosts } from './server.ts';

/*
 * What both end-to-end MCP Apps suites (mcp-apps-browser, mcp-apps-live-browser) share: the
 * agent token acting as a browser session's owner, the Surfacer seen as an E2eServer (for the
 * htmx session helpers), and the host page opened in Chromium with its frames, its foreign
 * requests and the CSP of its sandbox proxy recorded.
 */

/** Records every CSP violation of every frame (each frame runs it when its document starts). */
export const VIOLATIONS = `window.__svViolations = [];
document.addEventListener('securitypolicyviolation', (e) => window.__svViolations.push(e.violatedDirective + ' ' + e.blockedURI), true);`;

declare global {
  interface Window { __svViolations?: string[] }
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
  browser: Browser, consoleLog: ReturnType<typeof createConsoleLog>, hosts: AppsHosts, serverUrl: string, viewport: { width: number; height: number },
): Promise<OpenedHost> {
  const context = await browser.newContext({ viewport });
  const page = await consoleLog.watch(await context.newPage());
  await page.addInitScript(VIOLATIONS);
  const allowed = new Set([hosts.hostOrigin, new URL(hosts.sandboxUrl).origin, new URL(serverUrl).origin]);
  const foreign: string[] = [];
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (allowed.has(new URL(url).origin)) return route.continue();
    foreign.push(url);
    return route.abort();
  });
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
