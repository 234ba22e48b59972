import { describe, expect, it } from 'vitest';
import { createSupportDeskApp } from '../../examples/support-desk/app.ts';
import { SAMPLE_TICKETS } from '../../examples/support-desk/tickets.ts';
import { browserSuite } from '../e2e/support/browser-suite.ts';
import { newConversation } from '../e2e/support/stack.ts';
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
});
