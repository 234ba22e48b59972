import { describe, expect, it } from 'vitest';
import { browserSuite } from './support/browser-suite.ts';
import { newConversation, startE2e } from './support/stack.ts';

/*
 * The demo's own component in headless Chromium (`npm start`'s composition, offline planner):
 * "show me Kestrel's portrait" places a PortraitCard. The Lit v0.9 page shows it as the demo's
 * element (<demo-portrait-card>, bundled into the page client), a v0.9 page that advertises only
 * the basic catalogue shows its fallback (a heading and texts), the htmx page its HTML (JavaScript
 * on and off).
 */
const ARTIFACTS = 'test-artifacts/e2e';
const BASIC_V09 = 'https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json';
const suite = browserSuite({ artifacts: ARTIFACTS, start: () => startE2e() });
const { shoot } = suite;

describe('the demo\'s PortraitCard on every page', () => {
  it('Lit v0.9 and v0.8 pages: the demo\'s element; with only the basic catalogue advertised: the fallback', async () => {
    const s = suite.server;
    const client = s.client();
    const c = await newConversation(s, client, 'show me Kestrel\'s portrait');
    const ctx = await suite.contextFor(client);
    const page = await suite.openA2ui(ctx, c, '?v=0.9');
    const card = page.locator('a2ui-surface[data-surface-id="portrait--e0"] demo-portrait-card');
    await card.locator('h3', { hasText: 'Captain Kestrel' }).waitFor();
    expect(await card.locator('.medallion').textContent()).toBe('CK');
    expect(await card.locator('.chips li').allTextContents()).toEqual(['sci-fi', 'pilot', 'rogue']);
    expect(await card.locator('blockquote').textContent()).toContain('Strap in.');
    await shoot(page, 'demo-a2ui-v09-portrait');

    // The v0.8 page shows the element too (its props are v0.8 literals: strings, a list of strings).
    const v08 = await suite.openA2ui(ctx, c);
    const card08 = v08.locator('a2ui-surface[data-surface-id="portrait--e0"] demo-portrait-card');
    await card08.locator('h3', { hasText: 'Captain Kestrel' }).waitFor();
    expect(await card08.locator('.chips li').allTextContents()).toEqual(['sci-fi', 'pilot', 'rogue']);
    await shoot(v08, 'demo-a2ui-v08-portrait');

    const basic = await suite.openA2ui(ctx, c, `?v=0.9&catalog=${encodeURIComponent(BASIC_V09)}`);
    const surface = basic.locator('a2ui-surface[data-surface-id="portrait--e0"]');
    await surface.getByText('Captain Kestrel', { exact: true }).waitFor();
    await surface.getByText('Tags: pilot, rogue', { exact: true }).waitFor();
    expect(await basic.locator('demo-portrait-card').count()).toBe(0);
    await shoot(basic, 'demo-a2ui-v09-portrait-fallback');
  });

  for (const javaScript of [true, false]) {
    it(`htmx page, JavaScript ${javaScript ? 'on' : 'off'}: the card's HTML`, async () => {
      const s = suite.server;
      const client = s.client();
      const c = await newConversation(s, client, 'show me Aria\'s portrait');
      const page = await suite.openHtmx(await suite.contextFor(client), c, { javaScript });
      const card = page.locator('#surface-portrait article.portrait-card');
      await card.waitFor();
      expect(await card.locator('.portrait-card__name').textContent()).toBe('Aria Nightingale');
      expect(await card.locator('.portrait-card__initials').textContent()).toBe('AN');
      expect(await card.locator('.portrait-card__tags li').allTextContents()).toEqual(['bard', 'mystery']);
      if (!javaScript) await shoot(page, 'demo-htmx-nojs-portrait');
    });
  }
});
