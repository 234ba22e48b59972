import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { findSurface } from '../../src/ui-ir/index.ts';
import { failedLoad } from '../support/browser/index.ts';
import { button, committed, cutStream, recordEvents, savedRow, textField } from './support/browser-pages.ts';
import { browserSuite } from './support/browser-suite.ts';
import { newConversation, startE2e } from './support/stack.ts';

/*
 * Issue 13, "Done when": the official Lit v0.9 renderer (@a2ui/lit/v0_9, the page
 * `/a2ui/c/{cid}?v=0.9`) in headless Chromium against the real product shows the character
 * card; a submit through it is applied and the v0.8 page and the htmx page of the same
 * conversation show the saved values; a stale v0.9 action gets 409 and the renderer recovers.
 */
const ARTIFACTS = 'test-artifacts/e2e';

const suite = browserSuite({ artifacts: ARTIFACTS, start: () => startE2e() });
const { contextFor, openA2ui, openHtmx, consoleLog } = suite;

const field09 = (page: Page, label: string) => textField(page, label, '0.9');
const field08 = (page: Page, label: string) => textField(page, label, '0.8');
const saveButton09 = (page: Page) => button(page, 'Save character', '0.9');

describe('the official v0.9 renderer on the real product (?v=0.9)', () => {
  it('shows the character card; its submit is applied, and the v0.8 page and the htmx page show the saved values', async () => {
    const s = suite.server;
    const client = s.client();
    const c = await newConversation(s, client, 'create a character card');
    const ctx = await contextFor(client);
    const htmx = await openHtmx(ctx, c);
    await htmx.locator('#surface-main form').waitFor();
    const v08 = await openA2ui(ctx, c);
    await expect.poll(() => field08(v08, 'Name').count()).toBe(1);
    const v09 = await openA2ui(ctx, c, '?v=0.9');

    await v09.locator('a2ui-surface[data-surface-id="main--e0"]').waitFor();
    await v09.getByText('Character card', { exact: true }).waitFor();
    await expect.poll(() => field09(v09, 'Name').count()).toBe(1);
    await v09.screenshot({ path: `${ARTIFACTS}/a2ui-v09-form.png`, fullPage: true });

    await field09(v09, 'Name').fill('Aria');
    await field09(v09, 'Personality').fill('Brave, curious and kind.');
    await field09(v09, 'Tags').fill('bard, brave');
    const exchanges = recordEvents(v09, s, c);
    await saveButton09(v09).click();
    await expect.poll(() => exchanges.length).toBe(1);
    const [exchange] = exchanges;
    expect(exchange!.status).toBe(200);
    expect(exchange!.response).toMatchObject({ ok: true, replayed: false, action: 'form.submit', surface: { id: 'main', rev: 1 } });
    // Exactly what the official renderer built (GenericBinder + the processor's action schema).
    expect(exchange!.request).toMatchObject({
      version: 'v0.9',
      action: {
        name: 'form.submit', surfaceId: 'main--e0', sourceComponentId: 'main.a0-form_submit.Button',
        context: { name: 'Aria', personality: 'Brave, curious and kind.', tags: 'bard, brave', rev: 0 },
      },
    });
    expect(exchange!.idempotencyKey).toMatch(/^[0-9a-f]{32}$/);
    expect(await committed(s, c.cid)).toMatchObject({ name: 'Aria', personality: 'Brave, curious and kind.', tags: ['bard', 'brave'] });

    // Every client of the conversation shows what was saved.
    await savedRow(v09, 'Name', 'Aria', '0.9').waitFor();
    await savedRow(v09, 'Tags', 'bard, brave', '0.9').waitFor();
    await savedRow(v08, 'Name', 'Aria', '0.8').waitFor();
    await savedRow(v08, 'Tags', 'bard, brave', '0.8').waitFor();
    await expect.poll(() => field08(v08, 'Name').inputValue()).toBe('Aria');
    await htmx.locator('#surface-main .value[data-path="/committed/name"] .value__text', { hasText: 'Aria' }).waitFor();
    await htmx.locator('#surface-main .value[data-path="/committed/tags"] .value__text', { hasText: 'bard, brave' }).waitFor();
    expect(await field09(v09, 'Name').inputValue()).toBe('Aria');
    await v09.screenshot({ path: `${ARTIFACTS}/a2ui-v09-committed.png`, fullPage: true });
    await v08.screenshot({ path: `${ARTIFACTS}/a2ui-v08-after-v09-submit.png`, fullPage: true });
    await htmx.screenshot({ path: `${ARTIFACTS}/htmx-after-v09-submit.png`, fullPage: true });

    // And the other way: an htmx submit reaches the v0.9 renderer.
    const form = htmx.locator('#surface-main form');
    await form.getByLabel('Name').fill('Bran');
    await form.getByRole('button', { name: 'Save character' }).click();
    await savedRow(v09, 'Name', 'Bran', '0.9').waitFor();
    await expect.poll(() => field09(v09, 'Name').inputValue()).toBe('Bran');
  });

  it('a stale v0.9 action gets 409: the renderer says so, re-initialises and its next submit is applied', async () => {
    const s = suite.server;
    const client = s.client();
    const c = await newConversation(s, client, 'create a character card');
    const page = await openA2ui(await contextFor(client), c, '?v=0.9');
    await expect.poll(() => field09(page, 'Name').count()).toBe(1);

    // The page stops hearing from the server (its stream is closed under it) and another client saves.
    await cutStream(page);
    const owner = await s.handle.conversations.get(c.cid);
    const surface = findSurface(owner!.ir, 'main')!;
    const other = await client.post(`${c.base}/actions`, {
      _csrf: c.csrf, _surface: 'main', _epoch: String(surface.epoch), _nonce: surface.nonce, _rev: String(surface.rev),
      _idem: 'htmx-elsewhere', _action: 'form.submit', name: 'Cora', personality: 'Sharp.', tags: 'x',
    }, { as: 'json' });
    expect(other.status).toBe(200);
    await other.arrayBuffer();

    const exchanges = recordEvents(page, s, c);
    await field09(page, 'Name').fill('Stale');
    // A card its checks let go (Personality is required too): what is refused here is the rev.
    await field09(page, 'Personality').fill('Late.');
    await saveButton09(page).click();
    await expect.poll(() => exchanges.length).toBe(1);
    expect(exchanges[0]).toMatchObject({ status: 409, response: { code: 'A2UI_C2S_SURFACE_STALE' } });
    const notice = page.locator('#a2ui-notice');
    await notice.waitFor({ state: 'visible' });
    expect(await notice.textContent()).toBe('UI is out of date. Please regenerate.');
    // Re-initialised from the server's state: the other client's save, in a fresh rendering.
    await savedRow(page, 'Name', 'Cora', '0.9').waitFor();
    await expect.poll(() => field09(page, 'Name').inputValue()).toBe('Cora');
    await page.locator('#a2ui-status[data-state="connected"]').waitFor();
    expect(await page.locator('a2ui-surface').count()).toBe(1);
    await page.screenshot({ path: `${ARTIFACTS}/a2ui-v09-stale-409.png`, fullPage: true });

    await field09(page, 'Name').fill('Dara');
    await saveButton09(page).click();
    await expect.poll(() => exchanges.length).toBe(2);
    expect(exchanges[1]).toMatchObject({ status: 200, response: { ok: true, surface: { rev: 2 } } });
    await savedRow(page, 'Name', 'Dara', '0.9').waitFor();
    expect(await committed(s, c.cid)).toMatchObject({ name: 'Dara' });
    // Chromium logs every fetch answered 4xx itself; that line for the provoked POST is the one entry allowed.
    expect(consoleLog.drain()).toEqual([failedLoad(`${s.url}${c.a2ui}/events`, 409, 'Conflict')]);
  });

  it('a regenerate (epoch reset) re-initialises the v0.9 renderer under the new epoch, which then works', async () => {
    const s = suite.server;
    const client = s.client();
    const c = await newConversation(s, client, 'create a character card');
    const page = await openA2ui(await contextFor(client), c, '?v=0.9.1');
    await page.locator('a2ui-surface[data-surface-id="main--e0"]').waitFor();

    const regen = await client.post(`${c.base}/surfaces/main/regenerate`, { _csrf: c.csrf }, { as: 'json' });
    expect(regen.status).toBe(200);
    await regen.arrayBuffer();
    await page.locator('a2ui-surface[data-surface-id="main--e1"]').waitFor();
    await expect.poll(() => page.locator('a2ui-surface').count()).toBe(1);

    const exchanges = recordEvents(page, s, c);
    await field09(page, 'Name').fill('Eli');
    await field09(page, 'Personality').fill('Quiet.');
    await saveButton09(page).click();
    await savedRow(page, 'Name', 'Eli', '0.9').waitFor();
    // ?v=0.9.1: the page speaks v0.9.1 both ways.
    expect(exchanges[0]!.request).toMatchObject({ version: 'v0.9.1', action: { surfaceId: 'main--e1' } });
    expect(await committed(s, c.cid)).toMatchObject({ name: 'Eli' });
  });
});
