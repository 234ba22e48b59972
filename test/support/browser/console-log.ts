import type { ConsoleMessage, Page } from 'playwright-core';

/** One thing a page reported that a working page never reports. */
export interface ConsoleEntry {
  kind: 'error' | 'warning' | 'pageerror' | 'crash';
  text: string;
  /** The script or, for a failed load, the resource the message is about. */
  url: string;
}

export interface ConsoleLog {
  /** Starts recording `page`; call before its first navigation. */
  watch(page: Page): Promise<Page>;
  /** What was recorded since the last drain; the log is empty afterwards. */
  drain(): ConsoleEntry[];
}

// Chromium reports a CSP violation as a console error without saying which of our lines did
// it; the event names the file, line and blocked sample.
const CSP_REPORTER = `document.addEventListener('securitypolicyviolation', (e) => console.error(
  'CSP violation ' + e.violatedDirective + ' at ' + e.sourceFile + ':' + e.lineNumber + ':' + e.columnNumber + ' ' + e.sample))`;

/**
 * Console errors and warnings, uncaught page errors and crashes of every watched page. Browser
 * suites drain it after each test and expect nothing; a test that provokes an error on purpose
 * drains the exact entries it expects first.
 */
export function createConsoleLog(): ConsoleLog {
  let entries: ConsoleEntry[] = [];
  return {
    async watch(page) {
      page.on('console', (message: ConsoleMessage) => {
        const kind = message.type();
        if (kind === 'error' || kind === 'warning') entries.push({ kind, text: message.text(), url: message.location().url });
      });
      page.on('pageerror', (error) => entries.push({ kind: 'pageerror', text: String(error), url: page.url() }));
      page.on('crash', () => entries.push({ kind: 'crash', text: 'page crashed', url: page.url() }));
      await page.addInitScript(CSP_REPORTER);
      return page;
    },
    drain() {
      const drained = entries;
      entries = [];
      return drained;
    },
  };
}

/** The line Chromium logs for a fetch or XHR answered with an error status. */
export function failedLoad(url: string, status: number, reason: string): ConsoleEntry {
  return { kind: 'error', text: `Failed to load resource: the server responded with a status of ${status} (${reason})`, url };
}
