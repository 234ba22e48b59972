import { mkdirSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { findSurface } from '../../src/ui-ir/index.ts';
import { createConsoleLog, failedLoad, launchChromium } from '../support/browser/index.ts';
import type { HttpClient } from '../support/http-client.ts';
import { newConversation, startE2e, type Conversation, type E2eServer } from './support/stack.ts';

/*
 * The official Lit renderer in headless Chromium against the real product (`npm start`'s
 * composition: demo app, offline planner, both hosts on one conversation service).
 */
const ARTIFACTS = 'test-artifacts/e2e';

let browser: Browser;
let s: E2eServer;
let context: BrowserContext | undefined;
const consoleLog = createConsoleLog();

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  s = await startE2e();
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

/** A browser context that carries `client`'s session cookie (the user who created the conversation). */
async function contextFor(client: HttpClient): Promise<BrowserContext> {
  context = await browser.newContext({ viewport: { width: 1000, height: 1100 } });
  await context.addCookies([...client.cookies].map(([name, value]) => ({ name, value, url: s.url })));
  return context;
}

async function newPage(ctx: BrowserContext): Promise<Page> {
  const page = await consoleLog.watch(await ctx.newPage());
  // Nothing may leave the server (fonts, CDNs).
  const origin = new URL(s.url).origin;
  await page.route('**/*', (route) => (new URL(route.request().url()).origin === origin ? route.continue() : route.abort()));
  return page;
}

async function openA2ui(ctx: BrowserContext, c: Conversation): Promise<Page> {
  const page = await newPage(ctx);
  await page.goto(`${s.url}${c.a2ui}`);
  await page.locator('#a2ui-status[data-state="connected"]').waitFor();
  return page;
}

/** The <input>/<textarea> of the Lit TextField whose label starts with `label`. */
function field(page: Page, label: string) {
  return page.locator('a2ui-textfield').filter({ has: page.locator('label', { hasText: new RegExp(`^${label}`) }) }).locator('input, textarea');
}

/** Text shown by the "Saved" rows of the A2UI form: label Text then value Text in one Row. */
function savedRow(page: Page, label: string, value: string) {
  return page.locator('a2ui-row').filter({ has: page.getByText(label, { exact: true }) }).filter({ has: page.getByText(value, { exact: true }) });
}

interface Exchange { request: unknown; idempotencyKey: string | undefined; status: number; response: unknown }

/**
 * Records the renderer's POSTs to the events route, passing them through unchanged. (Reading a
 * response body from page.waitForResponse hangs while the page holds an open EventSource.)
 */
function recordEvents(page: Page, c: Conversation): Exchange[] {
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

async function committed(cid: string): Promise<Record<string, unknown>> {
  const conversation = await s.handle.conversations.get(cid);
  return findSurface(conversation!.ir, 'main')!.data.committed;
}

describe('the A2UI page on the real product', () => {
  it('shows the form from our stream; the renderer\'s own userAction is accepted and the committed values appear', async () => {
    const client = s.client();
    const c = await newConversation(s, client, 'create a character card');
    const page = await openA2ui(await contextFor(client), c);

    await page.locator('a2ui-surface[data-surface-id="main--e0"]').waitFor();
    await page.getByText('Character card', { exact: true }).waitFor();
    await expect.poll(() => field(page, 'Name').count()).toBe(1);
    await page.screenshot({ path: `${ARTIFACTS}/a2ui-form.png`, fullPage: true });

    await field(page, 'Name').fill('Aria');
    await field(page, 'Personality').fill('Brave, curious and kind.');
    await field(page, 'Tags').fill('bard, brave');
    const exchanges = recordEvents(page, c);
    await page.locator('a2ui-button', { hasText: 'Save character' }).locator('button').click();
    await expect.poll(() => exchanges.length).toBe(1);
    const [exchange] = exchanges;
    expect(exchange!.status).toBe(200);
    expect(exchange!.response).toMatchObject({ ok: true, replayed: false, action: 'form.submit', surface: { id: 'main', rev: 1 } });
    // Exactly what the renderer sent, checked by the shared ingress.
    expect(exchange!.request).toMatchObject({
      userAction: { surfaceId: 'main--e0', sourceComponentId: 'main.a0-form_submit.Button', context: { name: 'Aria', rev: '0' } },
    });
    expect(exchange!.idempotencyKey).toMatch(/^[0-9a-f]{32}$/);

    await savedRow(page, 'Name', 'Aria').waitFor();
    await savedRow(page, 'Tags', 'bard, brave').waitFor();
    expect(await committed(c.cid)).toMatchObject({ name: 'Aria', personality: 'Brave, curious and kind.', tags: ['bard', 'brave'] });
    // The typed values stay in the fields (the draft now mirrors what was saved).
    expect(await field(page, 'Name').inputValue()).toBe('Aria');
    await page.screenshot({ path: `${ARTIFACTS}/a2ui-committed.png`, fullPage: true });
  });

  it('htmx page and A2UI page show the same conversation live, both ways', async () => {
    const client = s.client();
    const c = await newConversation(s, client, 'create a character card');
    const ctx = await contextFor(client);
    const htmx = await newPage(ctx);
    await htmx.goto(`${s.url}${c.base}`);
    await htmx.waitForFunction('window.htmx !== undefined');
    await htmx.locator('#surface-main form').waitFor();
    const a2ui = await openA2ui(ctx, c);
    await expect.poll(() => field(a2ui, 'Name').count()).toBe(1);

    // htmx → A2UI
    const form = htmx.locator('#surface-main form');
    await form.getByLabel('Name').fill('Bran');
    await form.getByLabel('Personality').fill('Gruff but fair.');
    await form.getByRole('button', { name: 'Save character' }).click();
    await htmx.locator('#surface-main .value[data-path="/committed/name"] .value__text', { hasText: 'Bran' }).waitFor();
    await savedRow(a2ui, 'Name', 'Bran').waitFor();
    await expect.poll(() => field(a2ui, 'Name').inputValue()).toBe('Bran');
    await a2ui.screenshot({ path: `${ARTIFACTS}/a2ui-after-htmx-submit.png`, fullPage: true });

    // A2UI → htmx (through the htmx page's own SSE)
    await field(a2ui, 'Name').fill('Cora');
    await a2ui.locator('a2ui-button', { hasText: 'Save character' }).locator('button').click();
    await htmx.locator('#surface-main .value[data-path="/committed/name"] .value__text', { hasText: 'Cora' }).waitFor();
    await savedRow(a2ui, 'Name', 'Cora').waitFor();
    await htmx.screenshot({ path: `${ARTIFACTS}/htmx-after-a2ui-submit.png`, fullPage: true });
    expect(await committed(c.cid)).toMatchObject({ name: 'Cora' });
  });

  it('a regenerate (epoch reset) re-initialises the renderer under the new epoch, which then works', async () => {
    const client = s.client();
    const c = await newConversation(s, client, 'create a character card');
    const page = await openA2ui(await contextFor(client), c);
    await page.locator('a2ui-surface[data-surface-id="main--e0"]').waitFor();

    const regen = await client.post(`${c.base}/surfaces/main/regenerate`, { _csrf: c.csrf }, { as: 'json' });
    expect(regen.status).toBe(200);
    await page.locator('a2ui-surface[data-surface-id="main--e1"]').waitFor();
    expect(await page.locator('a2ui-surface').count()).toBe(1);

    await field(page, 'Name').fill('Dara');
    await field(page, 'Personality').fill('Calm.');
    await page.locator('a2ui-button', { hasText: 'Save character' }).locator('button').click();
    await savedRow(page, 'Name', 'Dara').waitFor();
    expect(await committed(c.cid)).toMatchObject({ name: 'Dara' });
    await page.screenshot({ path: `${ARTIFACTS}/a2ui-after-epoch-reset.png`, fullPage: true });
  });

  it('the clarifier: choosing "persona" and pressing Continue opens the persona form without typing', async () => {
    const client = s.client();
    const c = await newConversation(s, client, 'ask me something');
    const page = await openA2ui(await contextFor(client), c);
    await page.locator('a2ui-surface[data-surface-id="main--e0"]').waitFor();
    await page.getByText('What would you like to set up?', { exact: true }).waitFor();
    // The Lit MultipleChoice: open its dropdown, pick the option.
    const choice = page.locator('a2ui-multiplechoice');
    await choice.locator('.dropdown-header').click();
    await choice.locator('.option-item', { hasText: 'persona' }).click();
    const exchanges = recordEvents(page, c);
    await page.locator('a2ui-button', { hasText: 'Continue' }).locator('button').click();
    await expect.poll(() => exchanges.length).toBe(1);
    expect(exchanges[0]).toMatchObject({
      status: 200, request: { userAction: { name: 'ask.submit', context: { goal: ['persona'] } } },
      response: { ok: true, replayed: false, action: 'ask.submit', continuing: true },
    });
    // The continuation's persona form reaches the renderer over the stream (the next epoch of "main").
    await page.locator('a2ui-surface[data-surface-id="main--e1"]').waitFor();
    await expect.poll(() => field(page, 'Display name').count()).toBe(1);
    expect(await page.locator('a2ui-surface').count()).toBe(1);
    const conversation = await s.handle.conversations.get(c.cid);
    expect(findSurface(conversation!.ir, 'main')!.view.template).toBe('persona');
    expect(conversation!.ir.transcript.filter((t) => t.role === 'user').map((t) => t.text.split('\n')[0])).toEqual(['ask me something', 'What would you like to set up?']);
    await page.screenshot({ path: `${ARTIFACTS}/a2ui-clarifier-continued.png`, fullPage: true });
  });

  it('opens with the bearer token instead of the cookie, and shows the connect box', async () => {
    const owner = s.client();
    const c = await newConversation(s, owner, 'create a character card');
    context = await browser.newContext();
    const page = await newPage(context);
    const denied = await page.goto(`${s.url}${c.a2ui}`);
    expect(denied?.status()).toBe(404);
    // Chromium logs the refused navigation itself; that line is the one entry allowed.
    expect(consoleLog.drain()).toEqual([failedLoad(`${s.url}${c.a2ui}`, 404, 'Not Found')]);
    await page.goto(`${s.url}${c.a2ui}?token=${c.token}`);
    await page.locator('#a2ui-status[data-state="connected"]').waitFor();
    await expect.poll(() => field(page, 'Name').count()).toBe(1);
    await page.locator('#a2ui-connect summary').click();
    expect(await page.locator('#a2ui-token').inputValue()).toBe(c.token);
    await page.screenshot({ path: `${ARTIFACTS}/a2ui-token-connect-box.png`, fullPage: true });
    // The token also authorises the renderer's POSTs (sent as Authorization: Bearer).
    await field(page, 'Name').fill('Eli');
    await field(page, 'Personality').fill('Quiet.');
    await page.locator('a2ui-button', { hasText: 'Save character' }).locator('button').click();
    await savedRow(page, 'Name', 'Eli').waitFor();
  });
});
