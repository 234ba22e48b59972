import type { Browser, BrowserContext, Page } from 'playwright-core';
import { findSurface } from '../../../src/ui-ir/index.ts';
import { closedNetwork, type ConsoleLog } from '../../support/browser/index.ts';
import type { HttpClient } from '../../support/http-client.ts';
import type { Conversation, E2eServer } from './stack.ts';

/**
 * The browser side of the end-to-end suites: contexts that carry a user's session, pages that
 * reach nothing but the server, the A2UI pages of either renderer, and what their users see.
 */
export interface BrowserPages {
  /** A browser context that carries `client`'s session cookie (the user who created the conversation); none without. */
  contextFor(client?: HttpClient): Promise<BrowserContext>;
  /**
   * A watched page whose requests leave nothing but the server (fonts, CDNs are aborted) and
   * whose EventSources `cutStream` can reach.
   */
  newPage(ctx: BrowserContext): Promise<Page>;
  /** The A2UI page of `c` (`query`: `?v=0.9` for the v0.9 renderer), once its stream is connected. */
  openA2ui(ctx: BrowserContext, c: Conversation, query?: string): Promise<Page>;
  /**
   * The htmx page of `c`, once htmx has loaded. With `javaScript: false`, in a context of its own
   * with JavaScript off (`ctx`'s has it on) that carries `ctx`'s cookies, once the page has loaded.
   */
  openHtmx(ctx: BrowserContext, c: Conversation, options?: { javaScript?: boolean }): Promise<Page>;
  /** The context `contextFor` opened last. */
  readonly context: BrowserContext | undefined;
  /** Closes every context opened since the last call (after each test). */
  closeContext(): Promise<void>;
}

const VIEWPORT = { width: 1000, height: 1100 };

export function browserPages(server: () => E2eServer, browser: () => Browser, consoleLog: ConsoleLog): BrowserPages {
  let context: BrowserContext | undefined;
  const opened: BrowserContext[] = [];
  const newContext = async (options: { javaScriptEnabled?: boolean } = {}): Promise<BrowserContext> => {
    const ctx = await browser().newContext({ ...options, viewport: VIEWPORT });
    opened.push(ctx);
    return ctx;
  };
  const pages: BrowserPages = {
    async contextFor(client) {
      const s = server();
      context = await newContext();
      if (client !== undefined) await context.addCookies([...client.cookies].map(([name, value]) => ({ name, value, url: s.url })));
      return context;
    },
    async newPage(ctx) {
      const page = await consoleLog.watch(await ctx.newPage());
      await page.addInitScript(TRACK_EVENT_SOURCES);
      await closedNetwork(page, [new URL(server().url).origin]);
      return page;
    },
    async openA2ui(ctx, c, query = '') {
      const page = await pages.newPage(ctx);
      await page.goto(`${server().url}${c.a2ui}${query}`);
      await page.locator('#a2ui-status[data-state="connected"]').waitFor();
      return page;
    },
    async openHtmx(ctx, c, { javaScript = true } = {}) {
      let page: Page;
      if (javaScript) {
        page = await pages.newPage(ctx);
      } else {
        const off = await newContext({ javaScriptEnabled: false });
        await off.addCookies(await ctx.cookies());
        page = await pages.newPage(off);
      }
      await page.goto(`${server().url}${c.base}`);
      if (javaScript) await page.waitForFunction('window.htmx !== undefined');
      return page;
    },
    get context() {
      return context;
    },
    async closeContext() {
      for (const ctx of opened.splice(0)) await ctx.close();
      context = undefined;
    },
  };
  return pages;
}

const TRACK_EVENT_SOURCES = `(() => {
  const Native = window.EventSource;
  window.__eventSources = [];
  window.EventSource = class extends Native {
    constructor(url, init) { super(url, init); window.__eventSources.push(this); }
  };
})()`;

/**
 * Closes the stream the page opened last: the page stops hearing from the server while it still
 * shows what it had (a network that stopped delivering), so what it sends next may be stale.
 */
export async function cutStream(page: Page): Promise<void> {
  await page.evaluate('window.__eventSources.at(-1).close()');
}

/** The element names of each renderer (they differ: v0.9's basic catalogue has its own; the v0.8 page's TextField and Button are ours, src/host-a2ui/client/overrides.ts). */
export const RENDERER_TAGS = {
  '0.8': { textField: 'a2ui-surfacer-textfield', row: 'a2ui-row', button: 'a2ui-surfacer-button' },
  '0.9': { textField: 'a2ui-basic-textfield', row: 'a2ui-basic-row', button: 'a2ui-basic-button' },
} as const;
export type RendererVersion = keyof typeof RENDERER_TAGS;

/** The <input>/<textarea> of the Lit TextField whose label starts with `label`. */
export function textField(page: Page, label: string, version: RendererVersion = '0.8') {
  return page.locator(RENDERER_TAGS[version].textField).filter({ has: page.locator('label', { hasText: new RegExp(`^${label}`) }) }).locator('input, textarea');
}

/** Text shown by the "Saved" rows of the character card: label Text then value Text in one Row. */
export function savedRow(page: Page, label: string, value: string, version: RendererVersion = '0.8') {
  return page.locator(RENDERER_TAGS[version].row).filter({ has: page.getByText(label, { exact: true }) }).filter({ has: page.getByText(value, { exact: true }) });
}

/** The <button> of the renderer's Button labelled `label`. */
export function button(page: Page, label: string, version: RendererVersion = '0.8') {
  return page.locator(RENDERER_TAGS[version].button, { hasText: label }).locator('button');
}

export interface Exchange { request: unknown; idempotencyKey: string | undefined; status: number; response: unknown }

/**
 * Records the renderer's POSTs to the events route, passing them through unchanged. (Reading a
 * response body from page.waitForResponse hangs while the page holds an open EventSource.)
 */
export function recordEvents(page: Page, s: Pick<E2eServer, 'url'>, c: Conversation): Exchange[] {
  const exchanges: Exchange[] = [];
  void page.route(`${s.url}${c.a2ui}/events`, async (route) => {
    const response = await route.fetch();
    const body = await response.text();
    exchanges.push({
      request: route.request().postDataJSON() as unknown, idempotencyKey: route.request().headers()['idempotency-key'],
      status: response.status(), response: body === '' ? undefined : JSON.parse(body) as unknown,
    });
    await route.fulfill({ response, body });
  });
  return exchanges;
}

/** `/committed` of surface `main` as the server holds it now. */
export async function committed(s: E2eServer, cid: string): Promise<Record<string, unknown>> {
  const conversation = await s.handle.conversations.get(cid);
  return findSurface(conversation!.ir, 'main')!.data.committed;
}
