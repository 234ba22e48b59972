import { describe, expect, it } from 'vitest';
import { PAGE_MESSAGES } from '../../src/host-html/fragments.ts';
import { browserSuite } from './support/browser-suite.ts';
import { newConversation, say, startE2e } from './support/stack.ts';

/*
 * Issue 36: the htmx page of a long conversation shows its recent messages, with a link to
 * earlier ones that works without JavaScript (and with it). Screenshots at desktop and phone width.
 */
const ARTIFACTS = 'test-artifacts/long-conversation';
const TURNS = 60; // 120 transcript entries: the page shows 50, then 100, then all.

const suite = browserSuite({ artifacts: ARTIFACTS, start: () => startE2e() });

describe('a long conversation\'s page', () => {
  it('shows the last messages; "Show earlier messages" brings more, JavaScript off and on', async () => {
    const s = suite.server;
    const client = s.client();
    const c = await newConversation(s, client);
    for (let i = 0; i < TURNS; i += 1) await say(client, c, `hello ${i}`);
    const total = (await s.handle.conversations.get(c.cid))!.ir.transcript.length;
    expect(total).toBe(TURNS * 2);

    const ctx = await suite.contextFor(client);
    for (const javaScript of [false, true]) {
      const page = await suite.openHtmx(ctx, c, { javaScript });
      const entries = page.locator('#transcript > li');
      expect(await entries.count()).toBe(PAGE_MESSAGES);
      // The newest is there; the first is not.
      await page.locator('#transcript').getByText(`hello ${TURNS - 1}`, { exact: true }).waitFor();
      expect(await page.locator('#transcript').getByText('hello 0', { exact: true }).count()).toBe(0);
      if (!javaScript) await suite.shoot(page, 'recent-50');
      const more = page.getByRole('link', { name: /Show \d+ earlier messages/ });
      expect(await more.textContent()).toBe(`Show ${PAGE_MESSAGES} earlier messages`);
      await more.click();
      await expect.poll(() => entries.count()).toBe(2 * PAGE_MESSAGES);
      await page.getByRole('link', { name: /Show \d+ earlier messages/ }).click();
      await expect.poll(() => entries.count()).toBe(total);
      await page.locator('#transcript').getByText('hello 0', { exact: true }).waitFor();
      expect(await page.getByRole('link', { name: /earlier messages/ }).count()).toBe(0);
      if (!javaScript) await suite.shoot(page, 'all');
      // Still a working page: a message sent from it is answered.
      if (javaScript) {
        await page.getByRole('textbox', { name: /message/i }).fill('hello again');
        await page.getByRole('textbox', { name: /message/i }).press('Enter');
        await page.locator('#transcript').getByText('hello again', { exact: true }).waitFor();
      }
    }
  });

  it('the A2UI pages show the same recent messages, with a link to the earlier ones on the conversation page', async () => {
    const s = suite.server;
    const client = s.client();
    const c = await newConversation(s, client);
    for (let i = 0; i < 30; i += 1) await say(client, c, `hello ${i}`);
    const ctx = await suite.contextFor(client);
    for (const query of ['', '?v=0.9']) {
      const page = await suite.openA2ui(ctx, c, query);
      expect(await page.locator('#a2ui-transcript > li').count()).toBe(PAGE_MESSAGES);
      await page.locator('#a2ui-transcript').getByText('hello 29', { exact: true }).waitFor();
      const earlier = page.getByRole('link', { name: 'Show earlier messages' });
      expect(await earlier.getAttribute('href')).toBe(`${c.base}?messages=${2 * PAGE_MESSAGES}#transcript`);
      if (query === '?v=0.9') await suite.shoot(page, 'a2ui-v09-recent');
      await earlier.click();
      await page.locator('#transcript').getByText('hello 0', { exact: true }).waitFor();
    }
  });
});
