import { describe, expect, it } from 'vitest';
import { createSupportDeskApp } from '../../examples/support-desk/app.ts';
import { SAMPLE_TICKETS } from '../../examples/support-desk/tickets.ts';
import { browserSuite } from '../e2e/support/browser-suite.ts';
import { DESK_CATALOG_ID } from '../../examples/support-desk/components.ts';
import { newConversation } from '../e2e/support/stack.ts';
import { ROWS, showTable } from '../e2e/support/ticket-table.ts';
import { openReactPage, startReactStack } from './react-page/open.ts';

/*
 * Issue 32 item 2 on the official React renderer (@a2ui/react v0.9 fed from POST /ag-ui, as in
 * agui-react-browser.test.ts): the support desk's tickets as a table (its offline planner answers
 * "all tickets as a table" with ui.show_table), drawn in basic components; its Sort button is a
 * run through the ingress that sorts on the server and sends the new page. Screenshots at 1280
 * and 390 wide; any console entry fails the test (browserSuite).
 */
const ARTIFACTS = 'test-artifacts/agui';
const TOKEN = 'react-table-token-0123456789';
const owners = new Map<string, string>();

const suite = browserSuite({ artifacts: ARTIFACTS, start: () => startReactStack(owners, { app: createSupportDeskApp() }) });
const { contextFor, newPage } = suite;

describe('the official React renderer: a table from ui.show_table', () => {
  it('shows the shown page of tickets; Sort by Subject is one run that sorts on the server', async () => {
    const s = suite.server;
    const client = s.client();
    const c = await newConversation(s, client);
    owners.set(TOKEN, (await s.handle.conversations.get(c.cid))!.ownerSessionId);
    const react = await newPage(await contextFor(client));
    await openReactPage(react, s.url, { token: TOKEN, thread: c.cid, say: 'show all tickets as a table' });
    await react.getByText('All tickets', { exact: true }).waitFor();
    const runs = () => react.evaluate(() => (window as unknown as { __agui: { runs: Array<{ kind: string; events: string[]; error?: unknown }> } }).__agui.runs);
    await expect.poll(async () => (await runs()).length).toBe(1);
    // The rows in the table's order (newest ticket first), each subject once.
    const order = async (): Promise<string[]> => {
      const text = await react.locator('[data-surface-id]').last().innerText();
      return SAMPLE_TICKETS.map((t) => ({ id: t.id, at: text.indexOf(t.subject) })).sort((a, b) => a.at - b.at).map((t) => t.id);
    };
    for (const t of SAMPLE_TICKETS) await react.getByText(t.subject, { exact: true }).waitFor();
    expect(await order()).toEqual(['T-1003', 'T-1002', 'T-1001']);
    await react.screenshot({ path: `${ARTIFACTS}/react-table.png`, fullPage: true });
    await react.setViewportSize({ width: 390, height: 844 });
    await react.screenshot({ path: `${ARTIFACTS}/react-table-phone.png`, fullPage: true });
    await react.setViewportSize({ width: 1280, height: 900 });

    const version = (await s.handle.conversations.get(c.cid))!.version;
    await react.getByRole('button', { name: /^Subject/ }).click();
    await expect.poll(async () => (await runs()).length).toBe(2);
    const sorted = (await runs())[1]!;
    expect(sorted).toMatchObject({ kind: 'action' });
    expect(sorted.error).toBeUndefined();
    expect((await s.handle.conversations.get(c.cid))!.version).toBe(version + 1);
    const bySubject = [...SAMPLE_TICKETS].sort((a, b) => a.subject.localeCompare(b.subject)).map((t) => t.id);
    await expect.poll(order).toEqual(bySubject);
    await react.screenshot({ path: `${ARTIFACTS}/react-table-sorted.png`, fullPage: true });
  });

  it('advertising the app catalogue: the React Table (examples/clients/react-a2ui-table.ts); sort, next page and a row button are one run each, applied once', async () => {
    const s = suite.server;
    const { c, client } = await showTable(s);
    owners.set(TOKEN, (await s.handle.conversations.get(c.cid))!.ownerSessionId);
    const react = await newPage(await contextFor(client));
    await openReactPage(react, s.url, { token: TOKEN, thread: c.cid, catalog: DESK_CATALOG_ID });
    const table = react.locator('.surfacer-table table');
    await table.waitFor();
    const runs = () => react.evaluate(() => (window as unknown as { __agui: { runs: Array<{ kind: string; error?: unknown }> } }).__agui.runs);
    const keys = () => react.locator('.surfacer-table tbody tr').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-key')));
    const newestFirst = [...ROWS].sort((a, b) => (String(a.opened) < String(b.opened) ? 1 : -1)).map((r) => r.id);
    await expect.poll(keys).toEqual(newestFirst.slice(0, 5));
    expect(await table.locator('caption').textContent()).toBe('Open tickets');
    expect(await table.locator('th[scope="col"]').count()).toBe(8);
    expect(await table.locator('th[aria-sort="descending"]').textContent()).toContain('Opened');
    expect(await table.locator('tbody').textContent()).toContain('1.249,50\u00A0€');
    expect(await table.locator('a[href="https://desk.example/T-1004"]').count()).toBe(1);
    expect(await react.getByText('Sort by', { exact: true }).count()).toBe(0);
    await react.screenshot({ path: `${ARTIFACTS}/react-app-table.png`, fullPage: true });
    await react.setViewportSize({ width: 390, height: 844 });
    await react.screenshot({ path: `${ARTIFACTS}/react-app-table-phone.png`, fullPage: true });
    await react.setViewportSize({ width: 1280, height: 900 });

    await expect.poll(async () => (await runs()).length).toBe(1);
    const version = (await s.handle.conversations.get(c.cid))!.version;
    await react.getByRole('button', { name: 'Sort by Customer, ascending' }).click();
    await expect.poll(async () => (await runs()).length).toBe(2);
    expect((await runs())[1]).toMatchObject({ kind: 'action' });
    expect((await runs())[1]!.error).toBeUndefined();
    expect((await s.handle.conversations.get(c.cid))!.version).toBe(version + 1);
    await expect.poll(keys).toEqual(['T-1001', 'T-1002', 'T-1003', 'T-1004', 'T-1005']);
    expect(await table.locator('th[aria-sort="ascending"]').textContent()).toContain('Customer');

    await react.getByRole('button', { name: 'Next' }).click();
    await expect.poll(keys).toEqual(['T-1006', 'T-1007', 'T-1008']);
    expect((await runs()).map((r) => r.error)).toEqual([undefined, undefined, undefined]);
    expect(await react.locator('.surfacer-table nav').textContent()).toContain('Page 2 of 2');
    expect(await react.locator('.surfacer-table a[href^="javascript"]').count()).toBe(0);
    const queue = (await s.handle.conversations.get(c.cid))!.ir.surfaces.find((x) => x.id === 'queue')!;
    expect(queue.data.ui['table_state']).toEqual({ tickets: { page: 2, sort: { column: 'customer', dir: 'asc' } } });
    await react.screenshot({ path: `${ARTIFACTS}/react-app-table-page2.png`, fullPage: true });
    await react.setViewportSize({ width: 390, height: 844 });
    await react.screenshot({ path: `${ARTIFACTS}/react-app-table-page2-phone.png`, fullPage: true });
    await react.setViewportSize({ width: 1280, height: 900 });

    // A row's button: the desk's Take reaches its handler with that row's {list, item} (these
    // rows are not the desk's queue, so it answers that it has no such ticket).
    await react.locator('.surfacer-table tr[data-key="T-1007"] button', { hasText: 'Take' }).click();
    await expect.poll(async () => (await runs()).length).toBe(4);
    expect((await runs())[3]).toMatchObject({ kind: 'action', error: { message: expect.stringContaining('not on this panel') } });
  });
});
