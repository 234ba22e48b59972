import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { HttpClient } from '../support/http-client.ts';
import { browserSuite } from './support/browser-suite.ts';
import { newConversation, startE2e } from './support/stack.ts';

/*
 * Issue 33, item 9: the empty state's suggestions are pressed, not copied. On the htmx page (with
 * JavaScript and without) and the A2UI v0.9 page, pressing "create a character card named Aria"
 * sends those words as the person's message: the transcript has them and the card opens. And the
 * empty state comes back once the last panel is closed, live and after a reload.
 */
const ARTIFACTS = 'test-artifacts/hints';
const suite = browserSuite({ artifacts: ARTIFACTS, start: () => startE2e() });
const HINT = 'create a character card named Aria';

async function pressHint(page: Page): Promise<void> {
  const hint = page.getByRole('button', { name: HINT, exact: true });
  await hint.waitFor();
  await hint.click();
}

describe('the empty state\'s suggestions', () => {
  for (const javaScript of [true, false]) {
    it(`on the htmx page (JavaScript ${javaScript ? 'on' : 'off'}): pressing one sends it`, async () => {
      const client = new HttpClient(suite.server.url);
      const c = await newConversation(suite.server, client);
      const page = await suite.openHtmx(await suite.contextFor(client), c, { javaScript });
      await suite.shoot(page, `htmx-empty-js-${javaScript ? 'on' : 'off'}`);
      await pressHint(page);
      await page.locator('#surface-main').waitFor();
      await expect.poll(() => page.locator('.transcript').innerText()).toContain(HINT);
      expect(await page.locator('#surface-main input[name="name"]').inputValue()).toBe('Aria');
      const conversation = await suite.server.handle.conversations.get(c.cid);
      expect(conversation!.ir.transcript.filter((e) => e.role === 'user').map((e) => e.text)).toEqual([HINT]);
    });
  }

  it('on the A2UI v0.9 page: pressing one sends it', async () => {
    const client = new HttpClient(suite.server.url);
    const c = await newConversation(suite.server, client);
    const page = await suite.openA2ui(await suite.contextFor(client), c, '?v=0.9');
    await suite.shoot(page, 'a2ui-v09-empty');
    await pressHint(page);
    await page.locator('a2ui-surface').first().waitFor();
    await expect.poll(() => page.locator('#a2ui-transcript, .a2ui-transcript').first().innerText()).toContain(HINT);
    const conversation = await suite.server.handle.conversations.get(c.cid);
    expect(conversation!.ir.transcript.filter((e) => e.role === 'user').map((e) => e.text)).toEqual([HINT]);
  });

  it('comes back on the htmx page when the last panel closes, live and after a reload', async () => {
    const client = new HttpClient(suite.server.url);
    const c = await newConversation(suite.server, client);
    const page = await suite.openHtmx(await suite.contextFor(client), c);
    const empty = page.locator('.surfaces__empty');
    await pressHint(page);
    await page.locator('#surface-main').waitFor();
    await expect.poll(() => empty.isVisible()).toBe(false);
    // Closed elsewhere (another door: the host's model closing it).
    const closed = await suite.server.handle.conversations.applyHostAnswer(c.cid, {
      rawText: JSON.stringify({ directives: [{ type: 'ui.close', payload: { surface: 'main' } }] }), tool: 'close', label: 'test',
    });
    expect(closed.ok).toBe(true);
    await expect.poll(() => empty.isVisible(), { timeout: 5_000 }).toBe(true);
    await page.reload();
    await expect.poll(() => empty.isVisible()).toBe(true);
    await suite.shoot(page, 'htmx-empty-after-close');
  });
});
