import { chromium, type Browser } from 'playwright-core';
import { inject } from 'vitest';

/** Flags that work as root in a container with no display, no GPU and no network beyond loopback. */
export const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--no-first-run', '--disable-quic',
];

/** Launches the Chromium the run's global setup found (see find-chromium.ts). */
export function launchChromium(): Promise<Browser> {
  const found = inject('chromium');
  return chromium.launch({ executablePath: found.executablePath, args: CHROMIUM_ARGS, env: { ...process.env, ...found.env } });
}
