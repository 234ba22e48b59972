import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createSupportDeskApp } from '../../examples/support-desk/app.ts';
import { SAMPLE_TICKETS } from '../../examples/support-desk/tickets.ts';
import { findSurface } from '../../src/ui-ir/index.ts';
import { failedLoad } from '../support/browser/index.ts';
import { itemFormFields } from '../support/html-forms.ts';
import { button, cutStream, recordEvents, type RendererVersion } from '../e2e/support/browser-pages.ts';
import { browserSuite } from '../e2e/support/browser-suite.ts';
import { newConversation, startE2e, type Conversation } from '../e2e/support/stack.ts';

/*
 * The support desk (examples/, public API only) in headless Chromium. Its queue is its own
 * components (components.ts): the Lit v0.9 page shows them as the desk's elements
 * (<desk-ticket-table>, <desk-bar-chart>, bundled into the page client), the htmx page as their
 * HTML (a table and meters, JavaScript on or off), and a page that advertises only the basic
 * catalogue as their fallbacks (lists). The Lit v0.8 page shows the elements too. Taking a ticket from each is applied exactly once (one log entry); a v0.9 click from a
 * rendering the server has moved past gets 409, changes nothing, and the renderer recovers.
 */
const ARTIFACTS = 'test-artifacts/examples';

const suite = browserSuite({ artifacts: ARTIFACTS, start: () => startE2e({}, { app: createSupportDeskApp() }) });
const { contextFor, openA2ui, openHtmx, consoleLog, shoot } = suite;

async function statuses(cid: string): Promise<string[]> {
  const ir = (await suite.server.handle.conversations.get(cid))!.ir;
  return (findSurface(ir, 'queue')!.data.committed.tickets as Array<{ status: string }>).map((t) => t.status);
}

/** Log entries of applied `action` requests of the conversation. */
async function applied(c: Conversation, action: string): Promise<number> {
  const log = (await suite.server.handle.backend.store.read(c.cid)) ?? [];
  return log.filter((e) => e.type === 'action' && e.request.action === action).length;
}

/** The renderer's Take buttons, one per ticket in list order, once they all show. */
async function takeButtons(page: Page, version: RendererVersion) {
  for (const ticket of SAMPLE_TICKETS) await page.getByText(ticket.subject, { exact: true }).waitFor();
  const takes = button(page, 'Take', version);
  await expect.poll(() => takes.count()).toBe(SAMPLE_TICKETS.length);
  return takes;
}

const statusOf = (page: Page, key: string) => page.locator(`#surface-queue tr.ticket-table__row[data-key="${key}"] .ticket-table__status`);

const BASIC_V09 = 'https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json';
/** The rows of the desk's own table element on a Lit page, once it shows every sample ticket. */
async function tableRows(page: Page) {
  const rows = page.locator('desk-ticket-table tbody tr');
  await expect.poll(() => rows.count()).toBe(SAMPLE_TICKETS.length);
  return rows;
}

const rowKeys = (page: Page) => page.locator('desk-ticket-table tbody tr').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-key')));
/** The Take/Open/Resolve button of the element's row of `key`. */
const rowButton = (page: Page, key: string, label: string) => page.locator(`desk-ticket-table tbody tr[data-key="${key}"] button`, { hasText: label });

describe('the support desk in Chromium', () => {
  it('the Lit v0.8 page shows the queue as the desk\'s own elements too; Take from the table is applied once, with the fallback\'s context', async () => {
    const s = suite.server;
    const client = s.client();
    const c = await newConversation(s, client, 'show the queue');
    const page = await openA2ui(await contextFor(client), c);
    await tableRows(page);
    expect(await page.locator('desk-bar-chart [role="listitem"]').count()).toBe(6);
    expect(await rowKeys(page)).toEqual(['T-1001', 'T-1002', 'T-1003']);
    // The buttons' labels and looks as the app wrote them (v0.8 carries them as literals).
    expect(await page.locator('desk-ticket-table tbody tr[data-key="T-1001"] button').allTextContents()).toEqual(['Take', 'Open', 'Resolve']);
    expect(await page.locator('desk-ticket-table tbody tr[data-key="T-1001"] button.primary').allTextContents()).toEqual(['Take']);
    await shoot(page, 'desk-a2ui-v08-components');

    const exchanges = recordEvents(page, s, c);
    await rowButton(page, 'T-1002', 'Take').click();
    await expect.poll(() => exchanges.map((e) => e.status)).toEqual([200]);
    expect(exchanges[0]!.request).toMatchObject({ userAction: { name: 'ticket.take', context: { list: 'tickets', item: 'T-1002' } } });
    await expect.poll(() => statuses(c.cid)).toEqual(['new', 'taken', 'new']);
    // The element shows the new status (the wrapper re-reads the bound items).
    await page.locator('desk-ticket-table tbody tr[data-key="T-1002"] .col-status', { hasText: 'taken' }).waitFor();
    expect(await applied(c, 'ticket.take')).toBe(1);
  });

  it('the Lit v0.9 page shows the queue as the desk\'s own elements: the table sorts in the browser; Take from it is applied once', async () => {
    const s = suite.server;
    const client = s.client();
    const c = await newConversation(s, client, 'show the queue');
    const ctx = await contextFor(client);
    const page = await openA2ui(ctx, c, '?v=0.9');
    await page.locator('a2ui-surface[data-surface-id="queue--e0"]').waitFor();
    await tableRows(page);
    // The app's elements, not the fallback: no basic List or Button on the panel.
    expect(await page.locator('desk-bar-chart [role="listitem"]').count()).toBe(6);
    expect(await page.locator('desk-bar-chart [role="listitem"]').first().getAttribute('aria-label')).toBe('W14: 12 tickets');
    expect(await page.locator('a2ui-surface[data-surface-id="queue--e0"] a2ui-basic-list').count()).toBe(0);
    expect(await page.locator('a2ui-surface[data-surface-id="queue--e0"] a2ui-basic-button').count()).toBe(0);
    expect(await rowKeys(page)).toEqual(['T-1001', 'T-1002', 'T-1003']);

    // Sorting is the element's own: nothing goes to the server.
    const exchanges = recordEvents(page, s, c);
    await page.locator('desk-ticket-table th button', { hasText: 'Subject' }).click();
    await expect.poll(() => rowKeys(page)).toEqual(['T-1001', 'T-1003', 'T-1002']);
    await page.locator('desk-ticket-table th button', { hasText: 'Subject' }).click();
    await expect.poll(() => rowKeys(page)).toEqual(['T-1002', 'T-1003', 'T-1001']);
    expect(await page.locator('desk-ticket-table th[aria-sort="descending"]').textContent()).toContain('Subject');
    await shoot(page, 'desk-a2ui-v09-components');
    expect(exchanges).toEqual([]);

    await rowButton(page, 'T-1002', 'Take').click();
    await expect.poll(() => exchanges.length).toBe(1);
    expect(exchanges[0]).toMatchObject({
      status: 200, response: { ok: true, replayed: false, action: 'ticket.take', surface: { id: 'queue' } },
      request: { version: 'v0.9', action: { name: 'ticket.take', surfaceId: 'queue--e0', context: { list: 'tickets', item: 'T-1002' } } },
    });
    await expect.poll(() => statuses(c.cid)).toEqual(['new', 'taken', 'new']);
    await page.locator('desk-ticket-table tbody tr[data-key="T-1002"] .col-status', { hasText: 'taken' }).waitFor();
    expect(await applied(c, 'ticket.take')).toBe(1);

    const htmx = await openHtmx(ctx, c);
    await statusOf(htmx, 'T-1002').filter({ hasText: 'taken' }).waitFor();
    expect(await statusOf(htmx, 'T-1001').textContent()).toBe('new');
    expect(exchanges).toHaveLength(1);
    expect(await applied(c, 'ticket.take')).toBe(1);
  });

  it('a Lit v0.9 page that advertises only the basic catalogue shows the fallbacks; Take from the fallback list reaches the same handler with the same context', async () => {
    const s = suite.server;
    const client = s.client();
    const c = await newConversation(s, client, 'show the queue');
    const page = await openA2ui(await contextFor(client), c, `?v=0.9&catalog=${encodeURIComponent(BASIC_V09)}`);
    await page.locator('a2ui-surface[data-surface-id="queue--e0"]').waitFor();
    const takes = await takeButtons(page, '0.9');
    // The chart's fallback: a list of the weeks and their counts.
    for (const text of ['Tickets filed per week', 'W14', 'W19']) await page.getByText(text, { exact: true }).waitFor();
    expect(await page.locator('desk-ticket-table, desk-bar-chart').count()).toBe(0);
    await shoot(page, 'desk-a2ui-v09-fallback');

    const exchanges = recordEvents(page, s, c);
    await takes.nth(1).click();
    await expect.poll(() => exchanges.length).toBe(1);
    expect(exchanges[0]).toMatchObject({
      status: 200, response: { ok: true, action: 'ticket.take' },
      request: { version: 'v0.9', action: { name: 'ticket.take', surfaceId: 'queue--e0', context: { list: 'tickets', item: 'T-1002' } } },
    });
    await expect.poll(() => statuses(c.cid)).toEqual(['new', 'taken', 'new']);
    expect(await applied(c, 'ticket.take')).toBe(1);
  });

  it('a stale v0.9 item click gets 409 and is not applied; the renderer re-initialises and its next click is applied', async () => {
    const s = suite.server;
    const client = s.client();
    const c = await newConversation(s, client, 'show the queue');
    const page = await openA2ui(await contextFor(client), c, '?v=0.9');
    await tableRows(page);

    // The page stops hearing from the server, and another client takes T-1001 meanwhile.
    await cutStream(page);
    const fields = itemFormFields(await (await client.get(c.base)).text(), 'T-1001', 'ticket.take');
    const other = await client.post(`${c.base}/actions`, { _csrf: c.csrf, ...fields! }, { as: 'json' });
    expect(other.status).toBe(200);
    await other.arrayBuffer();
    expect(await statuses(c.cid)).toEqual(['taken', 'new', 'new']);

    const exchanges = recordEvents(page, s, c);
    await rowButton(page, 'T-1003', 'Take').click();
    await expect.poll(() => exchanges.length).toBe(1);
    expect(exchanges[0]).toMatchObject({
      status: 409, response: { code: 'A2UI_C2S_SURFACE_STALE' },
      request: { action: { name: 'ticket.take', context: { item: 'T-1003' } } },
    });
    expect(await statuses(c.cid)).toEqual(['taken', 'new', 'new']);
    expect(await applied(c, 'ticket.take')).toBe(1);
    const notice = page.locator('#a2ui-notice');
    await notice.waitFor({ state: 'visible' });
    expect(await notice.textContent()).toBe('UI is out of date. Please regenerate.');
    // Re-initialised from the server's state: the other client's take, in one fresh rendering.
    await page.locator('desk-ticket-table tbody tr[data-key="T-1001"] .col-status', { hasText: 'taken' }).waitFor();
    await page.locator('#a2ui-status[data-state="connected"]').waitFor();
    expect(await page.locator('a2ui-surface').count()).toBe(1);
    await page.screenshot({ path: `${ARTIFACTS}/desk-a2ui-v09-stale-409.png`, fullPage: true });

    await tableRows(page);
    await rowButton(page, 'T-1003', 'Take').click();
    await expect.poll(() => exchanges.length).toBe(2);
    expect(exchanges[1]).toMatchObject({ status: 200, response: { ok: true, action: 'ticket.take' } });
    await expect.poll(() => page.locator('desk-ticket-table .col-status', { hasText: 'taken' }).count()).toBe(2);
    expect(await statuses(c.cid)).toEqual(['taken', 'new', 'taken']);
    expect(await applied(c, 'ticket.take')).toBe(2);
    // Chromium logs every fetch answered 4xx itself; that line for the provoked POST is the one entry allowed.
    expect(consoleLog.drain()).toEqual([failedLoad(`${s.url}${c.a2ui}/events`, 409, 'Conflict')]);
  });

  for (const javaScript of [true, false]) {
    it(`the htmx page shows the components' HTML (a table, meters), JavaScript ${javaScript ? 'on' : 'off'}; Take on one is applied once`, async () => {
      const s = suite.server;
      const client = s.client();
      const c = await newConversation(s, client, 'show the queue');
      const page = await openHtmx(await contextFor(client), c, { javaScript });
      const rows = page.locator('#surface-queue table tr.ticket-table__row');
      await expect.poll(() => rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-key')))).toEqual(SAMPLE_TICKETS.map((t) => t.id));
      expect(await page.locator('#surface-queue figure.bar-chart meter').count()).toBe(6);
      expect(await page.locator('#surface-queue li.list__item').count()).toBe(0);
      await shoot(page, `desk-htmx${javaScript ? '' : '-nojs'}-queue`);

      await page.locator('#surface-queue tr.ticket-table__row[data-key="T-1003"] button[value="ticket.take"]').click();
      await statusOf(page, 'T-1003').filter({ hasText: 'taken' }).waitFor();
      expect(await statuses(c.cid)).toEqual(['new', 'new', 'taken']);
      expect(await applied(c, 'ticket.take')).toBe(1);
    });
  }
});
