import { chromium, type Browser } from 'playwright-core';
import { inject } from 'vitest';

/** Flags that work as root in a container with no display, no GPU and no network beyond loopback. */
export const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--no-first-run', '--disable-quic',
];

/** Why this run's browser tests cannot run (its global setup found no Chromium), or undefined when they can. */
export function noChromiumReason(): string | undefined {
  const lookup = inject('chromium');
  return 'error' in lookup ? `no Chromium for the browser tests: ${lookup.error}` : undefined;
}

/** Launches the Chromium the run's global setup found (see find-chromium.ts). */
export function launchChromium(): Promise<Browser> {
  const lookup = inject('chromium');
  if ('error' in lookup) return Promise.reject(new Error(noChromiumReason()));
  const { executablePath, env } = lookup.found;
  return chromium.launch({ executablePath, args: CHROMIUM_ARGS, env: { ...process.env, ...env } });
}
