import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { createConsoleLog, type ConsoleLog } from './console-log.ts';
import { launchChromium } from './launch.ts';

/** One Chromium for a file or describe block of browser tests, and the console log of the pages it watches. */
export interface ChromiumSuite {
  /** The running browser (from the first test on). */
  readonly browser: Browser;
  readonly consoleLog: ConsoleLog;
}

/**
 * Registers the hooks: `artifacts` (where screenshots go) made and Chromium launched before the
 * first test, Chromium closed after the last; with `cleanConsole`, after each test the console
 * log must be empty (a test that provokes an entry drains the exact entries it expects first).
 * Hooks registered before this call start first and stop last (a server the pages talk to);
 * `afterEach` hooks registered after it run before its check (closing the test's pages). Call at
 * the top level of a test file or describe block.
 */
export function chromiumSuite(options: { artifacts?: string; cleanConsole?: boolean } = {}): ChromiumSuite {
  let browser: Browser | undefined;
  const consoleLog = createConsoleLog();
  beforeAll(async () => {
    if (options.artifacts !== undefined) mkdirSync(options.artifacts, { recursive: true });
    browser = await launchChromium();
  });
  afterAll(async () => { await browser?.close(); });
  if (options.cleanConsole === true) afterEach(() => { expect(consoleLog.drain(), 'the browser console is empty').toEqual([]); });
  return {
    get browser() {
      if (browser === undefined) throw new Error('Chromium is not launched (use it inside a test)');
      return browser;
    },
    consoleLog,
  };
}

/**
 * Keeps `page` off the network but for `origins`: any other request is aborted and its URL
 * recorded in the list returned (fonts, CDNs, a stray fetch: each one a bug).
 */
export async function closedNetwork(page: Page, origins: Iterable<string>): Promise<string[]> {
  const allowed = new Set(origins);
  const foreign: string[] = [];
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (allowed.has(new URL(url).origin)) return route.continue();
    foreign.push(url);
    return route.abort();
  });
  return foreign;
}

/** An init script that records every CSP violation of every frame in `window.__svViolations` (each frame runs it when its document starts). */
export const CSP_VIOLATIONS = `window.__svViolations = [];
document.addEventListener('securitypolicyviolation', (e) => window.__svViolations.push(e.violatedDirective + ' ' + e.blockedURI), true);`;

declare global {
  interface Window { __svViolations?: string[] }
}
