import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { findSurface } from '../../src/ui-ir/index.ts';
import { button, recordEvents, RENDERER_TAGS, type RendererVersion } from './support/browser-pages.ts';
import { browserSuite } from './support/browser-suite.ts';
import { newConversation, startE2e, type Conversation } from './support/stack.ts';

/*
 * A list with per-item buttons in headless Chromium, on the real product (`npm start`'s
 * composition, offline planner): the sample characters ("show me sample characters"), shown by
 * the htmx page and by the official Lit renderers of v0.8 and v0.9; choosing one ("Use this
 * one") is applied once and loads that character into the character card.
 */
const ARTIFACTS = 'test-artifacts/e2e';
const NAMES = ['Aria Nightingale', 'Captain Kestrel', 'Inspector Holloway'];

const suite = browserSuite({ artifacts: ARTIFACTS, start: () => startE2e() });

/** Counts the POSTs the page makes to `path` (one click must make one request). */
function countPosts(page: Page, path: string): () => number {
  let n = 0;
  page.on('request', (r) => { if (r.method() === 'POST' && new URL(r.url()).pathname === path) n += 1; });
  return () => n;
}

async function actionsLogged(cid: string): Promise<string[]> {
  const entries = (await suite.server.handle.backend.store.read(cid)) ?? [];
  return entries.flatMap((e) => (e.type === 'action' ? [`${e.request.action}:${String(e.request.context['item'] ?? '')}`] : []));
}

async function cardName(cid: string): Promise<unknown> {
  return findSurface((await suite.server.handle.conversations.get(cid))!.ir, 'main')?.data.draft['name'];
}

describe('a list of items in the browser', () => {
  it('htmx page: shows the list, "Use this one" on Kestrel is applied once and opens her card', async () => {
    const s = suite.server;
    const client = s.client();
    const c: Conversation = await newConversation(s, client, 'show me some sample characters');
    const page = await suite.openHtmx(await suite.contextFor(client), c);
    const items = page.locator('#surface-samples li');
    await expect.poll(() => items.count()).toBe(3);
    expect(await page.locator('#surface-samples-list-characters-title').count()).toBe(0); // the panel title names it
    expect(await items.locator('.list__text--title').allTextContents()).toEqual(NAMES);
    await page.screenshot({ path: `${ARTIFACTS}/htmx-list.png`, fullPage: true });

    const posts = countPosts(page, `${c.base}/actions`);
    await page.locator('#surface-samples li[data-key="kestrel"]').getByRole('button', { name: 'Use this one' }).click();
    await page.locator('#surface-main form').waitFor();
    await expect.poll(() => page.getByLabel('Name').inputValue()).toBe('Captain Kestrel');
    expect(posts()).toBe(1);
    expect(await actionsLogged(c.cid)).toEqual(['character.use:kestrel']);
    expect(await cardName(c.cid)).toBe('Captain Kestrel');
    await page.screenshot({ path: `${ARTIFACTS}/htmx-list-chosen.png`, fullPage: true });
  });

  for (const [version, query] of [['0.8', ''], ['0.9', '?v=0.9']] as Array<[RendererVersion, string]>) {
    it(`Lit v${version} page: renders the templated list, and clicking an item's button sends that item's key once`, async () => {
      const s = suite.server;
      const client = s.client();
      const c = await newConversation(s, client, 'show me some sample characters');
      const page = await suite.openA2ui(await suite.contextFor(client), c, query);
      const exchanges = recordEvents(page, s, c);
      await page.locator('a2ui-surface[data-surface-id="samples--e0"]').waitFor();
      const use = page.locator(RENDERER_TAGS[version].button, { hasText: 'Use this one' });
      await expect.poll(() => use.count()).toBe(3);
      for (const name of NAMES) await page.getByText(name, { exact: true }).waitFor();
      await page.screenshot({ path: `${ARTIFACTS}/a2ui-v${version}-list.png`, fullPage: true });

      await use.nth(2).locator('button').click();
      await expect.poll(() => cardName(c.cid)).toBe('Inspector Holloway');
      await page.locator('a2ui-surface[data-surface-id="main--e0"]').waitFor();
      await button(page, 'Save character', version).waitFor();
      expect(exchanges.map((e) => e.status)).toEqual([200]);
      const context = { list: 'characters', item: 'holloway' };
      expect(exchanges[0]!.request).toMatchObject(version === '0.8' ? { userAction: { name: 'character.use', context } } : { action: { name: 'character.use', context } });
      expect(await actionsLogged(c.cid)).toEqual(['character.use:holloway']);
      await page.screenshot({ path: `${ARTIFACTS}/a2ui-v${version}-list-chosen.png`, fullPage: true });
    });
  }
});
