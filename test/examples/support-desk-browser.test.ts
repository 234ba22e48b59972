import { mkdirSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSupportDeskApp } from '../../examples/support-desk/app.ts';
import { SAMPLE_TICKETS } from '../../examples/support-desk/tickets.ts';
import { findSurface } from '../../src/ui-ir/index.ts';
import { createConsoleLog, launchChromium } from '../support/browser/index.ts';
import type { HttpClient } from '../support/http-client.ts';
import { newConversation, startE2e, type Conversation, type E2eServer } from '../e2e/support/stack.ts';

/*
 * The support desk (examples/, public API only) in headless Chromium: the official Lit renderer
 * (A2UI v0.8) and the htmx page show its ticket list, and taking a ticket through each is
 * applied exactly once (one log entry; the button's old rendering is stale afterwards).
 */
const ARTIFACTS = 'test-artifacts/examples';

let browser: Browser;
let s: E2eServer;
let context: BrowserContext | undefined;
const consoleLog = createConsoleLog();

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  s = await startE2e({}, { app: createSupportDeskApp() });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await s?.close();
});
afterEach(async () => {
  await context?.close();
  context = undefined;
  expect(consoleLog.drain(), 'the browser console is empty').toEqual([]);
});

async function pageFor(client: HttpClient): Promise<Page> {
  context = await browser.newContext({ viewport: { width: 1000, height: 1100 } });
  await context.addCookies([...client.cookies].map(([name, value]) => ({ name, value, url: s.url })));
  const page = await consoleLog.watch(await context.newPage());
  const origin = new URL(s.url).origin;
  await page.route('**/*', (route) => (new URL(route.request().url()).origin === origin ? route.continue() : route.abort()));
  return page;
}

async function statuses(cid: string): Promise<string[]> {
  const ir = (await s.handle.conversations.get(cid))!.ir;
  return (findSurface(ir, 'queue')!.data.committed.tickets as Array<{ status: string }>).map((t) => t.status);
}

/** Log entries of applied `action` requests of the conversation. */
async function applied(c: Conversation, action: string): Promise<number> {
  const log = (await s.handle.backend.store.read(c.cid)) ?? [];
  return log.filter((e) => e.type === 'action' && e.request.action === action).length;
}

describe('the support desk in Chromium', () => {
  it('the Lit renderer (v0.8) shows the tickets; Take on one is applied once', async () => {
    const client = s.client();
    const c = await newConversation(s, client, 'show the queue');
    const page = await pageFor(client);
    await page.goto(`${s.url}${c.a2ui}`);
    await page.locator('#a2ui-status[data-state="connected"]').waitFor();
    for (const ticket of SAMPLE_TICKETS) await page.getByText(ticket.subject, { exact: true }).waitFor();
    await expect.poll(() => page.locator('a2ui-button', { hasText: 'Take' }).count()).toBe(SAMPLE_TICKETS.length);
    await page.screenshot({ path: `${ARTIFACTS}/desk-a2ui-queue.png`, fullPage: true });

    const posts: number[] = [];
    await page.route(`${s.url}${c.a2ui}/events`, async (route) => {
      const response = await route.fetch();
      posts.push(response.status());
      await route.fulfill({ response });
    });
    await page.locator('a2ui-button', { hasText: 'Take' }).nth(1).locator('button').click();
    await expect.poll(() => posts).toEqual([200]);
    await expect.poll(() => statuses(c.cid)).toEqual(['new', 'taken', 'new']);
    // The renderer shows the new status (its Text in the item template, bound to the item).
    await page.getByText('taken', { exact: true }).waitFor();
    expect(await applied(c, 'ticket.take')).toBe(1);
    await page.screenshot({ path: `${ARTIFACTS}/desk-a2ui-taken.png`, fullPage: true });
  });

  it('the htmx page shows the tickets; Take on one is applied once', async () => {
    const client = s.client();
    const c = await newConversation(s, client, 'show the queue');
    const page = await pageFor(client);
    await page.goto(`${s.url}${c.base}`);
    await page.waitForFunction('window.htmx !== undefined');
    const items = page.locator('#surface-queue li.list__item');
    await expect.poll(() => items.evaluateAll((lis) => lis.map((li) => li.getAttribute('data-key')))).toEqual(SAMPLE_TICKETS.map((t) => t.id));
    await page.screenshot({ path: `${ARTIFACTS}/desk-htmx-queue.png`, fullPage: true });

    await page.locator('#surface-queue li.list__item[data-key="T-1003"] button[value="ticket.take"]').click();
    await page.locator('#surface-queue li.list__item[data-key="T-1003"] .value__text', { hasText: 'taken' }).waitFor();
    expect(await statuses(c.cid)).toEqual(['new', 'new', 'taken']);
    expect(await applied(c, 'ticket.take')).toBe(1);
    await page.screenshot({ path: `${ARTIFACTS}/desk-htmx-taken.png`, fullPage: true });
  });
});
