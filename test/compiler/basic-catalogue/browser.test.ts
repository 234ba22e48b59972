import { describe, expect, it } from 'vitest';
import { compileConversationToHtml } from '../../../src/compiler/html/index.ts';
import { chromiumSuite } from '../../support/browser/index.ts';
import { irWith, surfaceOf } from '../html/fixtures.ts';
import { catalogueView } from './fixtures.ts';

/**
 * The compiled HTML of tabs and a modal in headless Chromium with JavaScript switched off: the
 * native elements alone switch tabs and open the modal. (The page shell's CSS is the HTML host's;
 * this checks the fragment's behaviour, which needs none.)
 */
describe('basic catalogue HTML in Chromium, JavaScript off', () => {
  const chromium = chromiumSuite();

  it('tabs switch (one open at a time) and the modal opens, from the native elements alone', async () => {
    const ir = irWith(surfaceOf(catalogueView(), { draft: { nick: 'Ari', note: 'hello' } }));
    const fragment = compileConversationToHtml(ir).html;
    const context = await chromium.browser.newContext({ javaScriptEnabled: false });
    try {
      const page = await context.newPage();
      await page.setContent(`<!doctype html><html><head><title>t</title></head><body>${fragment}</body></html>`);
      const tab0 = page.locator('#surface-main-b0-0');
      const tab1 = page.locator('#surface-main-b0-1');
      expect(await page.locator('#surface-main-b0-0 .tabs__panel').isVisible()).toBe(true);
      expect(await page.locator('input[name="nick"]').isVisible()).toBe(false);
      await tab1.locator('summary').click();
      expect(await page.locator('input[name="nick"]').isVisible()).toBe(true);
      // The exclusive accordion closed the first tab.
      expect(await tab0.getAttribute('open')).toBeNull();
      expect(await page.locator('#surface-main-b0-0 .tabs__panel').isVisible()).toBe(false);

      const note = page.locator('textarea[name="note"]');
      expect(await note.isVisible()).toBe(false);
      await page.locator('#surface-main-b1 > summary').click();
      expect(await note.isVisible()).toBe(true);
      expect(await page.locator('#surface-main-b1 [role="dialog"]').getAttribute('aria-labelledby')).toBe('surface-main-b1-title');
      await page.locator('#surface-main-b1 > summary').click();
      expect(await note.isVisible()).toBe(false);

      expect(await page.locator('video').getAttribute('src')).toBe('https://example.com/v.mp4?a=1&b=2');
      expect(await page.locator('audio').getAttribute('src')).toBe('http://example.com/a.ogg');
    } finally {
      await context.close();
    }
  }, 60_000);
});
