import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserSuite } from './support/browser-suite.ts';
import { newConversation, startE2e } from './support/stack.ts';

/*
 * The demo's PortraitCard on the htmx page, styled by the component's own stylesheet
 * (ComponentDefinition.css, served beside the page's CSS under its CSP): a medallion with the
 * initials, chips for the genre and tags, the greeting as a quote, at a desktop's and a phone's
 * width, JavaScript on and off. The suite fails on any console entry (a CSP violation is one).
 */
const ARTIFACTS = 'test-artifacts/e2e';
const suite = browserSuite({ artifacts: ARTIFACTS, start: () => startE2e() });
const SIZES = [{ name: 'desktop', width: 1280, height: 900 }, { name: 'phone', width: 390, height: 844 }] as const;

const style = (locator: Locator, property: string): Promise<string> =>
  locator.evaluate((el, p) => getComputedStyle(el).getPropertyValue(p), property);

/** The page's own accent colour, as the browser computes it. */
const accent = (page: Page): Promise<string> => page.evaluate(() => {
  const probe = document.createElement('span');
  probe.style.color = 'var(--accent)';
  document.body.append(probe);
  const colour = getComputedStyle(probe).color;
  probe.remove();
  return colour;
});

describe('the PortraitCard on the htmx page is styled by its own stylesheet', () => {
  for (const javaScript of [true, false]) {
    it(`JavaScript ${javaScript ? 'on' : 'off'}: at 1280×900 and 390×844`, async () => {
      const s = suite.server;
      const client = s.client();
      const c = await newConversation(s, client, 'show me Kestrel\'s portrait');
      const page = await suite.openHtmx(await suite.contextFor(client), c, { javaScript });
      const card = page.locator('#surface-portrait article.portrait-card');
      await card.waitFor();
      const sheet = page.locator('link[rel="stylesheet"][href^="/static/components-"]');
      expect(await sheet.count()).toBe(1);
      expect(await sheet.evaluate((link) => (link as HTMLLinkElement).sheet?.cssRules.length ?? 0)).toBeGreaterThan(10);

      const initials = card.locator('.portrait-card__initials');
      const tags = card.locator('.portrait-card__tags');
      for (const size of SIZES) {
        await page.setViewportSize(size);
        expect(await initials.textContent()).toBe('CK');
        // A round medallion in the page's accent colour, not the letters on their own.
        expect(await style(initials, 'border-radius')).toBe('50%');
        expect(await style(initials, 'background-color')).toBe(await accent(page));
        expect((await initials.boundingBox())!.width).toBeCloseTo(72, 0);
        // Tags as chips in a row, not a bulleted list.
        expect(await style(tags, 'list-style-type')).toBe('none');
        expect(await style(tags, 'display')).toBe('flex');
        const chips = await tags.locator('li').evaluateAll((lis) => lis.map((li) => li.getBoundingClientRect().top));
        expect(chips).toHaveLength(2);
        expect(new Set(chips.map(Math.round)).size).toBe(1);
        expect(await style(card, 'border-top-style')).toBe('solid');
        expect(await style(card.locator('.portrait-card__greeting'), 'border-left-style')).toBe(size.name === 'phone' ? 'none' : 'solid');
        // The phone's card stacks: the medallion above the name, centred.
        expect(await style(card, 'flex-direction')).toBe(size.name === 'phone' ? 'column' : 'row');
        expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
      }
      await page.setViewportSize(SIZES[0]);
      // `shoot` takes the desktop shot at the page's size, then the phone's at 390×844.
      await suite.shoot(page, `demo-htmx${javaScript ? '' : '-nojs'}-portrait-styled`);
    });
  }
});
