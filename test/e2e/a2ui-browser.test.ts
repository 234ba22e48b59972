import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { failedLoad } from '../support/browser/index.ts';
import { committed, recordEvents, savedRow as savedRowOf, textField } from './support/browser-pages.ts';
import { browserSuite } from './support/browser-suite.ts';
import { newConversation, startE2e } from './support/stack.ts';
import { findSurface } from '../../src/ui-ir/index.ts';

/*
 * The official Lit renderer in headless Chromium against the real product (`npm start`'s
 * composition: demo app, offline planner, both hosts on one conversation service).
 */
const ARTIFACTS = 'test-artifacts/e2e';

const suite = browserSuite({ artifacts: ARTIFACTS, start: () => startE2e() });
const { contextFor, newPage, openA2ui, openHtmx, consoleLog } = suite;
const field = (page: Page, label: string) => textField(page, label);
const savedRow = (page: Page, label: string, value: string) => savedRowOf(page, label, value);

describe('the A2UI page on the real product', () => {
  it('shows the form from our stream; the renderer\'s own userAction is accepted and the committed values appear', async () => {
    const s = suite.server;
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
    const exchanges = recordEvents(page, s, c);
    await page.locator('a2ui-surfacer-button', { hasText: 'Save character' }).locator('button').click();
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
    expect(await committed(s, c.cid)).toMatchObject({ name: 'Aria', personality: 'Brave, curious and kind.', tags: ['bard', 'brave'] });
    // The typed values stay in the fields (the draft now mirrors what was saved).
    expect(await field(page, 'Name').inputValue()).toBe('Aria');
    await page.screenshot({ path: `${ARTIFACTS}/a2ui-committed.png`, fullPage: true });
  });

  it('htmx page and A2UI page show the same conversation live, both ways', async () => {
    const s = suite.server;
    const client = s.client();
    const c = await newConversation(s, client, 'create a character card');
    const ctx = await contextFor(client);
    const htmx = await openHtmx(ctx, c);
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
    await a2ui.locator('a2ui-surfacer-button', { hasText: 'Save character' }).locator('button').click();
    await htmx.locator('#surface-main .value[data-path="/committed/name"] .value__text', { hasText: 'Cora' }).waitFor();
    await savedRow(a2ui, 'Name', 'Cora').waitFor();
    await htmx.screenshot({ path: `${ARTIFACTS}/htmx-after-a2ui-submit.png`, fullPage: true });
    expect(await committed(s, c.cid)).toMatchObject({ name: 'Cora' });
  });

  it('a regenerate (epoch reset) re-initialises the renderer under the new epoch, which then works', async () => {
    const s = suite.server;
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
    await page.locator('a2ui-surfacer-button', { hasText: 'Save character' }).locator('button').click();
    await savedRow(page, 'Name', 'Dara').waitFor();
    expect(await committed(s, c.cid)).toMatchObject({ name: 'Dara' });
    await page.screenshot({ path: `${ARTIFACTS}/a2ui-after-epoch-reset.png`, fullPage: true });
  });

  it('the clarifier: choosing "persona" and pressing Continue opens the persona form without typing', async () => {
    const s = suite.server;
    const client = s.client();
    const c = await newConversation(s, client, 'ask me something');
    const page = await openA2ui(await contextFor(client), c);
    await page.locator('a2ui-surface[data-surface-id="main--e0"]').waitFor();
    await page.getByText('What would you like to set up?', { exact: true }).waitFor();
    // A single choice: the page's MultipleChoice shows it as a select (src/host-a2ui/client/overrides.ts).
    await page.locator('a2ui-surfacer-multiplechoice select').selectOption({ label: 'persona' });
    const exchanges = recordEvents(page, s, c);
    await page.locator('a2ui-surfacer-button', { hasText: 'Continue' }).locator('button').click();
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

  it('the page takes no token in its URL (only the stream does, for external clients); the owner gets the connect box', async () => {
    const s = suite.server;
    const owner = s.client();
    const c = await newConversation(s, owner, 'create a character card');
    const page = await newPage(await contextFor());
    // A URL may end up in proxy and server logs: the page itself is the owner's, by cookie.
    const denied = await page.goto(`${s.url}${c.a2ui}?token=${c.token}`);
    expect(denied?.status()).toBe(404);
    // Chromium logs the refused navigation itself; that line is the one entry allowed.
    expect(consoleLog.drain()).toEqual([failedLoad(`${s.url}${c.a2ui}?token=${c.token}`, 404, 'Not Found')]);
    await page.context().close();
    const mine = await newPage(await contextFor(owner));
    const streams: string[] = [];
    mine.on('request', (r) => { if (r.url().includes('/stream')) streams.push(r.url()); });
    await mine.goto(`${s.url}${c.a2ui}`);
    await mine.locator('#a2ui-status[data-state="connected"]').waitFor();
    expect(streams.every((url) => !new URL(url).searchParams.has('token'))).toBe(true);
    await expect.poll(() => field(mine, 'Name').count()).toBe(1);
    await mine.locator('#a2ui-connect summary').click();
    expect(await mine.locator('#a2ui-token').inputValue()).toBe(c.token);
    await mine.screenshot({ path: `${ARTIFACTS}/a2ui-token-connect-box.png`, fullPage: true });
    await field(mine, 'Name').fill('Eli');
    await field(mine, 'Personality').fill('Quiet.');
    await mine.locator('a2ui-surfacer-button', { hasText: 'Save character' }).locator('button').click();
    await savedRow(mine, 'Name', 'Eli').waitFor();
  });
});
