import { describe, expect, it } from 'vitest';
import { createSupportDeskApp } from '../../examples/support-desk/app.ts';
import { BASIC_CATALOG_ID } from '../../src/a2ui-v0_9-protocol/index.ts';
import { failedLoad } from '../support/browser/index.ts';
import { recordEvents } from './support/browser-pages.ts';
import { browserSuite } from './support/browser-suite.ts';
import { startE2e } from './support/stack.ts';
import { ROWS, showTable } from './support/ticket-table.ts';

/*
 * Issue 32 item 2, in Chromium: the support desk shows tickets with ui.show_table (typed columns,
 * five rows per page of eight). On the htmx page the table is a <table> whose sort headings and
 * pager are plain form posts (JavaScript on and off); on the official Lit renderers (v0.8 and
 * v0.9) the same page of rows as basic components, whose Sort and Next buttons go through the
 * ingress. Screenshots at 1280 and 390 wide; any console entry fails the test (browserSuite).
 */
const ARTIFACTS = 'test-artifacts/e2e';
const suite = browserSuite({ artifacts: ARTIFACTS, start: () => startE2e({}, { app: createSupportDeskApp() }) });
const { contextFor, openA2ui, openHtmx, shoot } = suite;

const newestFirst = [...ROWS].sort((a, b) => (String(a.opened) < String(b.opened) ? 1 : -1)).map((r) => r.id);

describe('tables in Chromium: the htmx page and the official Lit renderers', () => {
  for (const javaScript of [true, false]) {
    it(`the htmx page (JavaScript ${javaScript ? 'on' : 'off'}): an accessible table of one page; sort and page by form posts`, async () => {
      const s = suite.server;
      const { c, client } = await showTable(s);
      const page = await openHtmx(await contextFor(client), c, { javaScript });
      const table = page.locator('#surface-queue table');
      await table.waitFor();
      const keys = () => page.locator('#surface-queue tbody tr').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-key')));
      expect(await keys()).toEqual(newestFirst.slice(0, 5));
      expect(await table.locator('caption').textContent()).toBe('Open tickets');
      expect(await table.locator('th[aria-sort]').count()).toBe(1);
      expect(await table.locator('th[aria-sort="descending"]').textContent()).toContain('Opened');
      expect(await table.locator('a[href^="javascript"]').count()).toBe(0);
      await shoot(page, `tables-htmx${javaScript ? '' : '-nojs'}`);

      await page.locator('#surface-queue th button', { hasText: 'Customer' }).click();
      await expect.poll(() => page.locator('#surface-queue th[aria-sort="ascending"]').textContent()).toContain('Customer');
      expect(await keys()).toEqual(['T-1001', 'T-1002', 'T-1003', 'T-1004', 'T-1005']);
      await page.locator('#surface-queue .table__pager button', { hasText: 'Next' }).click();
      await expect.poll(keys).toEqual(['T-1006', 'T-1007', 'T-1008']);
      expect(await page.locator('#surface-queue .table__page-label').textContent()).toBe('Page 2 of 2');
      expect(await page.locator('#surface-queue tbody').textContent()).toContain('<script>alert(1)</script> in the subject');
      await shoot(page, `tables-htmx${javaScript ? '' : '-nojs'}-page2`);
    });
  }

  for (const version of ['0.8', '0.9'] as const) {
    it(`the official Lit v${version} renderer: the shown page as basic components; Sort and Next go through the ingress once`, async () => {
      const s = suite.server;
      const { c, client } = await showTable(s);
      // v0.9: the page would advertise the desk's catalogue (it holds its elements); only the basic one here.
      const page = await openA2ui(await contextFor(client), c, version === '0.9' ? `?v=0.9&catalog=${encodeURIComponent(BASIC_CATALOG_ID)}` : '');
      await expect.poll(() => page.getByText('Page 1 of 2').count()).toBeGreaterThan(0);
      await expect.poll(() => page.getByText('Dark mode ignores the setting').count()).toBe(0);
      await expect.poll(() => page.getByText('Refund for a double charge').count()).toBe(1);
      await shoot(page, `tables-lit-v${version.replace('.', '')}`);
      const exchanges = recordEvents(page, s, c);
      await page.getByRole('button', { name: 'Next' }).click();
      await expect.poll(() => exchanges.map((e) => e.status)).toEqual([200]);
      await expect.poll(() => page.getByText('Dark mode ignores the setting').count()).toBe(1);
      await expect.poll(() => page.getByText('Page 2 of 2').count()).toBeGreaterThan(0);
      const conversation = await s.handle.conversations.get(c.cid);
      const queue = conversation!.ir.surfaces.find((x) => x.id === 'queue')!;
      expect(queue.data.ui['table_state']).toEqual({ tickets: { page: 2, sort: { column: 'opened', dir: 'desc' } } });
      await shoot(page, `tables-lit-v${version.replace('.', '')}-page2`);
    });
  }

  it('the official Lit v0.9 renderer with the app catalogue: the Table element; sort, next page and a row button are one request each, applied once', async () => {
    const s = suite.server;
    const { c, client } = await showTable(s);
    const page = await openA2ui(await contextFor(client), c, '?v=0.9');
    const table = page.locator('surfacer-table table');
    await table.waitFor();
    const keys = () => page.locator('surfacer-table tbody tr').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-key')));
    await expect.poll(keys).toEqual(newestFirst.slice(0, 5));
    expect(await table.locator('caption').textContent()).toBe('Open tickets');
    expect(await table.locator('th[scope="col"]').count()).toBe(8);
    expect(await table.locator('th[aria-sort]').count()).toBe(1);
    expect(await table.locator('th[aria-sort="descending"]').textContent()).toContain('Opened');
    // Cells as the server formatted them (de-DE euros, en-GB dates), links http(s) only.
    expect(await table.locator('tbody').textContent()).toContain('1.249,50\u00A0€');
    expect(await table.locator('tbody').textContent()).toContain('1 Dec 2026');
    expect(await table.locator('a[href="https://desk.example/T-1004"]').count()).toBe(1);
    // No basic-catalogue rendition of the table beside it.
    expect(await page.getByText('Sort by', { exact: true }).count()).toBe(0);
    await shoot(page, 'tables-lit-v09-app');

    const exchanges = recordEvents(page, s, c);
    const version = (await s.handle.conversations.get(c.cid))!.version;
    await page.locator('surfacer-table th button', { hasText: 'Customer' }).click();
    await expect.poll(() => exchanges.map((e) => e.status)).toEqual([200]);
    expect((exchanges[0]!.request as { action: { name: string; context: unknown } }).action).toMatchObject({
      name: 'table.sort', context: { table: 'tickets', column: 'customer', dir: 'asc' },
    });
    await expect.poll(() => page.locator('surfacer-table th[aria-sort="ascending"]').textContent()).toContain('Customer');
    await expect.poll(keys).toEqual(['T-1001', 'T-1002', 'T-1003', 'T-1004', 'T-1005']);
    expect((await s.handle.conversations.get(c.cid))!.version).toBe(version + 1);

    await page.locator('surfacer-table nav button', { hasText: 'Next' }).click();
    await expect.poll(keys).toEqual(['T-1006', 'T-1007', 'T-1008']);
    expect(exchanges.map((e) => e.status)).toEqual([200, 200]);
    expect(await page.locator('surfacer-table nav').textContent()).toContain('Page 2 of 2');
    expect(await page.locator('surfacer-table tbody').textContent()).toContain('<script>alert(1)</script> in the subject');
    expect(await page.locator('surfacer-table a[href^="javascript"]').count()).toBe(0);
    const queue = (await s.handle.conversations.get(c.cid))!.ir.surfaces.find((x) => x.id === 'queue')!;
    expect(queue.data.ui['table_state']).toEqual({ tickets: { page: 2, sort: { column: 'customer', dir: 'asc' } } });
    await shoot(page, 'tables-lit-v09-app-page2');

    await page.locator('surfacer-table tr[data-key="T-1007"] button', { hasText: 'Take' }).click();
    await expect.poll(() => exchanges.length).toBe(3);
    expect((exchanges[2]!.request as { action: { name: string; context: unknown } }).action).toMatchObject({
      name: 'ticket.take', context: { list: 'tickets', item: 'T-1007' },
    });
    // The ingress took the row (it is on the shown page) and the desk's handler answered: these
    // rows are not the desk's queue, so Take refuses a ticket it does not have, as from the fallback.
    expect(exchanges[2]).toMatchObject({ status: 400, response: { code: 'A2UI_C2S_ITEM_UNKNOWN', technical_detail: 'no ticket "T-1007" in the queue' } });
    const logged: unknown[] = [];
    await expect.poll(() => logged.push(...suite.consoleLog.drain()) && logged).toEqual([failedLoad(`${s.url}${c.a2ui}/events`, 400, 'Bad Request')]);
  });
});
