import { describe, expect, it } from 'vitest';
import { createSupportDeskApp } from '../../examples/support-desk/app.ts';
import { itemFormFields } from '../support/html-forms.ts';
import { button, textField, type RendererVersion } from '../e2e/support/browser-pages.ts';
import { browserSuite } from '../e2e/support/browser-suite.ts';
import { newConversation, startE2e, type Conversation } from '../e2e/support/stack.ts';

/*
 * Tabs and the modal (the basic catalogue, issue 22 item 1) on every page, in the support desk's
 * ticket panel: two tabs ("Overview", "Details") and a "Write a reply" modal whose textarea
 * belongs to the panel's form. On each page the tabs switch, the modal opens, the reply typed in
 * it is posted by "Send reply" and reaches the app's handler: the htmx page with JavaScript and
 * without (native <details>), and the official Lit renderers v0.8 and v0.9.
 */
const ARTIFACTS = 'test-artifacts/examples';
const REPLY = 'We have reset your account, please try again.';

const suite = browserSuite({ artifacts: ARTIFACTS, start: () => startE2e({}, { app: createSupportDeskApp() }) });
const { contextFor, openA2ui, openHtmx, shoot } = suite;

/** The queue, then "Open" on T-1002 (through the htmx page's item form, as a browser without JavaScript posts it). */
async function ticketOpen(): Promise<{ c: Conversation; client: ReturnType<typeof suite.server.client> }> {
  const s = suite.server;
  const client = s.client();
  const c = await newConversation(s, client, 'show the queue');
  const fields = itemFormFields(await (await client.get(c.base)).text(), 'T-1002', 'ticket.open');
  const opened = await client.post(`${c.base}/actions`, { _csrf: c.csrf, ...fields! }, { as: 'json' });
  expect(opened.status).toBe(200);
  await opened.arrayBuffer();
  return { c, client };
}

/** The replies the app's handler accepted, as the log holds their requests. */
async function replies(c: Conversation): Promise<unknown[]> {
  const log = (await suite.server.handle.backend.store.read(c.cid)) ?? [];
  return log.flatMap((e) => (e.type === 'action' && e.request.action === 'ticket.reply' ? [e.request.context['reply']] : []));
}

describe('the ticket panel: tabs and a modal on every page', () => {
  for (const javaScript of [true, false]) {
    it(`htmx page, JavaScript ${javaScript ? 'on' : 'off'}: the tabs switch, the modal opens, its reply is sent`, async () => {
      const { c, client } = await ticketOpen();
      const page = await openHtmx(await contextFor(client), c, { javaScript });
      const panel = page.locator('#surface-ticket');
      const overview = panel.locator('details.tabs__tab', { has: page.locator('summary', { hasText: 'Overview' }) });
      const details = panel.locator('details.tabs__tab', { has: page.locator('summary', { hasText: 'Details' }) });
      await overview.locator('.value__text', { hasText: 'Ben Ortiz' }).waitFor();
      expect(await details.getByText('The March invoice still has the old office address.').isVisible()).toBe(false);
      await details.locator('summary').click();
      await details.getByText('The March invoice still has the old office address.').waitFor();
      expect(await overview.getAttribute('open')).toBeNull();

      const reply = panel.locator('textarea[name="reply"]');
      expect(await reply.isVisible()).toBe(false);
      await panel.locator('details.modal > summary', { hasText: 'Write a reply' }).click();
      await reply.waitFor();
      expect(await panel.locator('.modal [role="dialog"]').textContent()).toContain('Reply to Ben Ortiz');
      await reply.fill(REPLY);
      await shoot(page, `desk-htmx${javaScript ? '' : '-nojs'}-ticket-modal`);
      await panel.getByRole('button', { name: 'Send reply' }).click();
      // With JavaScript the answer is a toast; without, the page it redirects to says it in an alert.
      await page.locator(javaScript ? '.toast' : '.alert', { hasText: 'Reply on T-1002 sent to Ben Ortiz (8 words)' }).waitFor();
      expect(await replies(c)).toEqual([REPLY]);
      // The panel is closed: its element stays (as every closed panel's), its form is gone.
      expect(await reply.count()).toBe(0);
    });
  }

  for (const [version, query] of [['0.8', ''], ['0.9', '?v=0.9']] as Array<[RendererVersion, string]>) {
    it(`Lit v${version} page: the tabs switch, the modal opens, its reply is sent`, async () => {
      const { c, client } = await ticketOpen();
      const page = await openA2ui(await contextFor(client), c, query);
      const surface = page.locator('a2ui-surface[data-surface-id="ticket--e0"]');
      await surface.getByText('Ben Ortiz', { exact: true }).waitFor();
      const detailsText = surface.getByText('The March invoice still has the old office address.');
      const customer = surface.getByText('Ben Ortiz', { exact: true });
      expect(await detailsText.isVisible()).toBe(false);
      await surface.locator('button', { hasText: 'Details' }).click();
      await detailsText.waitFor();
      await customer.waitFor({ state: 'hidden' });
      await surface.locator('button', { hasText: 'Overview' }).click();
      await customer.waitFor();
      await detailsText.waitFor({ state: 'hidden' });

      const reply = textField(page, 'Reply', version);
      expect(await reply.isVisible()).toBe(false);
      await surface.getByText('Write a reply', { exact: true }).click();
      await reply.waitFor();
      await surface.getByText('Reply to Ben Ortiz').waitFor();
      await reply.fill(REPLY);
      await shoot(page, `desk-a2ui-v${version}-ticket-modal`);
      if (version === '0.8') {
        // The official close button's icon is a font ligature the page cannot load: it shows a
        // glyph, and the word stays its accessible name (overrides.ts).
        const close = surface.locator('dialog #controls button');
        expect(await close.evaluate((el) => getComputedStyle(el, '::after').content)).toBe('"\u2715"');
        expect(await close.getAttribute('aria-label') ?? await close.textContent()).toContain('close');
        expect(await close.locator('.g-icon').evaluate((el) => el.getBoundingClientRect().width)).toBeLessThanOrEqual(1);
      }
      // Closed again (the v0.8 <dialog> is modal: the page behind it is inert while it is open).
      await (version === '0.8' ? surface.locator('dialog #controls button') : surface.locator('button.a2ui-modal-close')).click();
      await reply.waitFor({ state: 'hidden' });
      await button(page, 'Send reply', version).click();
      await expect.poll(() => replies(c)).toEqual([REPLY]);
      await page.locator('a2ui-surface[data-surface-id="ticket--e0"]').waitFor({ state: 'detached' });
    });
  }
});
