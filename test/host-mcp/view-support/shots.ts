import type { Frame, FrameLocator, Page } from 'playwright-core';
import { expect } from 'vitest';

/*
 * What both Chromium suites of the MCP App view (view-browser, mcp-apps-browser) do with the
 * view the same way: find its fields and saved rows, wait for the host to size it, and take
 * full-page screenshots of the host at desktop and phone width.
 */

export const ARTIFACTS = 'test-artifacts/host-mcp';
export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

/** The host page and the view's frame inside its sandbox proxy. */
export interface HostedView {
  page: Page;
  frame(): Frame;
}

export const field = (view: FrameLocator, name: string) => view.getByRole('textbox', { name, exact: true });
export const savedRow = (view: FrameLocator, label: string, value: string) =>
  view.locator('a2ui-basic-row').filter({ has: view.getByText(label, { exact: true }) }).filter({ has: view.getByText(value, { exact: true }) });

/** Waits until the host has sized the iframe to the view's content (its size-changed notifications). */
export async function sized(opened: HostedView): Promise<void> {
  await expect.poll(async () => {
    const content = await opened.frame().evaluate(() => Math.ceil(document.documentElement.getBoundingClientRect().height));
    const box = await opened.page.locator('#view').evaluate((el) => el.getBoundingClientRect().height);
    return Math.abs(content - box) <= 1;
  }).toBe(true);
}

/**
 * A full-page screenshot of the host page from its top. (Chromium rasterises an iframe only
 * near the viewport: a part scrolled out above it, after a click low on the card, would come
 * out blank in a full-page capture.)
 */
export async function capture(opened: HostedView, path: string): Promise<void> {
  await sized(opened);
  await opened.page.evaluate(() => window.scrollTo(0, 0));
  await opened.frame().evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  await opened.page.screenshot({ path, fullPage: true });
}

/** The host page at its size, then at the other one (desktop, phone), then back: `<name>-desktop.png`, `<name>-phone.png`. */
export async function shoot(opened: HostedView, name: string): Promise<void> {
  const size = opened.page.viewportSize()!;
  const label = (s: { width: number }) => (s.width === PHONE.width ? 'phone' : 'desktop');
  await capture(opened, `${ARTIFACTS}/${name}-${label(size)}.png`);
  const other = size.width === PHONE.width ? DESKTOP : PHONE;
  await opened.page.setViewportSize(other);
  await capture(opened, `${ARTIFACTS}/${name}-${label(other)}.png`);
  await opened.page.setViewportSize(size);
  await sized(opened);
}
