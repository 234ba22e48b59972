import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { chromiumSuite, type ConsoleLog } from '../../support/browser/index.ts';
import { browserPages, type BrowserPages } from './browser-pages.ts';
import type { E2eServer } from './stack.ts';

export interface BrowserSuiteOptions {
  /** Where the suite's screenshots go (created before the first test). */
  artifacts: string;
  /** Starts the server the suite's pages talk to (once, before the first test). */
  start(): Promise<E2eServer>;
}

/** One server and one Chromium for a file of browser tests, with its pages and its console log. */
export interface BrowserSuite extends BrowserPages {
  /** The running server (from the first test on). */
  readonly server: E2eServer;
  readonly browser: Browser;
  readonly consoleLog: ConsoleLog;
  /**
   * Full-page screenshots of `page` into the suite's artifacts: `<name>-desktop.png` at its size,
   * `<name>-phone.png` at a phone's (the page gets its size back after).
   */
  shoot(page: Page, name: string): Promise<void>;
}

const PHONE = { width: 390, height: 844 };

/**
 * Registers the hooks every browser suite needs: the server and Chromium start before the first
 * test and stop after the last; after each test its contexts are closed and both the browser
 * console and the server's error log must be empty (a test that provokes an entry drains the
 * exact entries it expects first). Call at the top level of a test file.
 */
export function browserSuite(options: BrowserSuiteOptions): BrowserSuite {
  let server: E2eServer | undefined;
  const started = (): E2eServer => {
    if (server === undefined) throw new Error('the browser suite\'s server is not started (use it inside a test)');
    return server;
  };
  beforeAll(async () => { server = await options.start(); });
  afterAll(async () => { await server?.close(); });
  // Chromium after the server, closed before it; its console checked after the hook below.
  const chromium = chromiumSuite({ artifacts: options.artifacts, cleanConsole: true });
  const { consoleLog } = chromium;
  const pages = browserPages(started, () => chromium.browser, consoleLog);
  afterEach(async () => {
    await pages.closeContext();
    if (server !== undefined) expect(server.errors.splice(0), 'the server logged no error').toEqual([]);
  });

  return {
    contextFor: pages.contextFor,
    newPage: pages.newPage,
    openA2ui: pages.openA2ui,
    openHtmx: pages.openHtmx,
    closeContext: pages.closeContext,
    get context() { return pages.context; },
    get server() { return started(); },
    get browser() { return chromium.browser; },
    consoleLog,
    async shoot(page, name) {
      await page.screenshot({ path: `${options.artifacts}/${name}-desktop.png`, fullPage: true });
      const size = page.viewportSize();
      await page.setViewportSize(PHONE);
      await page.screenshot({ path: `${options.artifacts}/${name}-phone.png`, fullPage: true });
      if (size !== null) await page.setViewportSize(size);
    },
  };
}
