import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createSupportDeskApp } from '../../examples/support-desk/app.ts';
import { createDemoApp } from '../../src/app/index.ts';
import { safeResolveTheme, type AppTheme } from '../../src/app-kit/index.ts';
import type { AppDefinition } from '../../src/conversation/index.ts';
import { browserSuite } from './support/browser-suite.ts';
import { newConversation, startE2e } from './support/stack.ts';

/*
 * One theme per app, in Chromium: the demo (light, violet, a serif face, round corners) and the
 * support desk (dark, teal, square-ish) on the htmx page and the Lit v0.9 page, at a desktop's
 * and a phone's size. What the browser computes is the theme's: the primary button's colour and
 * its text colour, the font, the panels' radius, the page's background. Screenshots go to
 * test-artifacts/e2e; the suite fails on any console entry (a CSP violation is one).
 */
const ARTIFACTS = 'test-artifacts/e2e';
const SIZES = [{ width: 1280, height: 900 }, { width: 390, height: 844 }] as const;

/** `#rrggbb` as getComputedStyle writes it. */
const rgb = (hex: string): string => `rgb(${[1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;

/** The sRGB channels (0–1) of a computed colour: `rgb(r, g, b)` or `color(srgb r g b)` (what color-mix computes to). */
function channels(css: string): [number, number, number] {
  const numbers = (css.match(/\d+(\.\d+)?/g) ?? []).map(Number);
  const scale = css.startsWith('color(') ? 1 : 255;
  return [numbers[0]! / scale, numbers[1]! / scale, numbers[2]! / scale];
}

/** Relative luminance of a computed colour, 0 (black) to 1 (white). */
function luminance(css: string): number {
  const [r, g, b] = channels(css).map((s) => (s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4)) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG contrast of two computed colours. */
const contrast = (a: string, b: string): number => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
};

/**
 * For every element matching `selector` (through shadow roots) that holds text of its own: its
 * text colour and the first opaque background behind it (walking up through shadow hosts).
 */
async function textOnBackground(page: Page, selector: string): Promise<Array<{ text: string; color: string; background: string }>> {
  return page.locator(selector).evaluateAll((els) => els.filter((el) => Array.from(el.childNodes).some((n) => n.nodeType === 3 && n.textContent!.trim() !== '')).map((el) => {
    let node: Element | null = el;
    let background = 'rgb(255, 255, 255)';
    while (node !== null) {
      const bg = getComputedStyle(node).backgroundColor;
      if (bg !== 'rgba(0, 0, 0, 0)' && bg !== 'transparent') { background = bg; break; }
      node = node.parentElement ?? ((node.getRootNode() as ShadowRoot).host ?? null);
    }
    return { text: el.textContent!.trim().slice(0, 30), color: getComputedStyle(el).color, background };
  }));
}

const computed = (page: Page, selector: string, property: string): Promise<string> =>
  page.locator(selector).first().evaluate((el, p) => getComputedStyle(el).getPropertyValue(p), property);

interface Case { name: string; app: () => AppDefinition; ask: string; shot: string }

const CASES: readonly Case[] = [
  { name: 'the demo', app: () => createDemoApp(), ask: 'create a character card', shot: 'demo' },
  { name: 'the support desk', app: () => createSupportDeskApp(), ask: 'new ticket about the printer', shot: 'desk' },
];

for (const k of CASES) {
  describe(`${k.name}'s theme in Chromium`, () => {
    const suite = browserSuite({ artifacts: ARTIFACTS, start: () => startE2e({}, { app: k.app() }) });
    const theme = k.app().theme as AppTheme;
    const resolved = safeResolveTheme(theme);
    if (!resolved.ok) throw new Error(resolved.reason);
    const onPrimary = resolved.value.onPrimary.color;
    const dark = theme.mode === 'dark';
    const firstFamily = theme.fontFamily!.split(',')[0]!.trim();

    it('the htmx page: primary button, text on it, font, radius and mode are the theme\'s', async () => {
      const client = suite.server.client();
      const c = await newConversation(suite.server, client, k.ask);
      const page = await suite.openHtmx(await suite.contextFor(client), c);
      await page.locator('.surface .button--primary').first().waitFor();
      for (const size of SIZES) {
        await page.setViewportSize(size);
        expect(await computed(page, '.surface .button--primary', 'background-color')).toBe(rgb(theme.primaryColor));
        expect(await computed(page, '.surface .button--primary', 'color')).toBe(rgb(onPrimary));
        expect(await computed(page, 'body', 'font-family')).toContain(firstFamily);
        expect(await computed(page, '.surface', 'border-top-left-radius')).toBe(`${theme.radius}px`);
        expect(luminance(await computed(page, 'body', 'background-color')) < 0.2).toBe(dark);
        expect(luminance(await computed(page, 'body', 'color')) > 0.5).toBe(dark);
        expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
      }
      await page.setViewportSize(SIZES[0]);
      await suite.shoot(page, `theme-${k.shot}-htmx`);
    });

    it('the Lit v0.8 page: beginRendering.styles colours the primary button, its text readable, the mode the theme\'s', async () => {
      const client = suite.server.client();
      const c = await newConversation(suite.server, client, k.ask);
      const page = await suite.openA2ui(await suite.contextFor(client), c);
      const buttons = page.locator('a2ui-surfacer-button button');
      await buttons.first().waitFor();
      for (const size of SIZES) {
        await page.setViewportSize(size);
        const looks = await buttons.evaluateAll((els) => els.map((el) => [getComputedStyle(el).backgroundColor, getComputedStyle(el).color] as const));
        // The renderer's palette from styles.primaryColor: a primary button is its step 40 (80 %
        // of the colour, 20 % black), or in a dark scheme the inverse step 60 (20 % white).
        const [r, g, b] = channels(rgb(theme.primaryColor));
        const step = [r, g, b].map((c) => 0.8 * c + (dark ? 0.2 : 0));
        const primary = looks.filter(([background]) => channels(background).every((c, i) => Math.abs(c - step[i]!) < 0.01));
        expect(primary.length, JSON.stringify(looks)).toBeGreaterThan(0);
        for (const [background, color] of primary) expect(contrast(color, background)).toBeGreaterThanOrEqual(4.5);
        expect(luminance(await computed(page, 'body', 'background-color')) < 0.2).toBe(dark);
      }
      await page.setViewportSize(SIZES[0]);
      await suite.shoot(page, `theme-${k.shot}-a2ui-v08`);
    });

    it('the Lit v0.9 page: the renderer\'s primary colour (createSurface.theme) and the page\'s variables', async () => {
      const client = suite.server.client();
      const c = await newConversation(suite.server, client, k.ask);
      const page = await suite.openA2ui(await suite.contextFor(client), c, '?v=0.9');
      const buttons = page.locator('a2ui-basic-button button');
      await buttons.first().waitFor();
      for (const size of SIZES) {
        await page.setViewportSize(size);
        // The renderer sets --a2ui-color-primary on its elements from createSurface.theme.
        const primary = await page.locator('a2ui-basic-button').first().evaluate((el) => getComputedStyle(el).getPropertyValue('--a2ui-color-primary').trim());
        expect(primary.toLowerCase()).toBe(theme.primaryColor.toLowerCase());
        const backgrounds = await buttons.evaluateAll((els) => els.map((el) => [getComputedStyle(el).backgroundColor, getComputedStyle(el).color]));
        expect(backgrounds).toContainEqual([rgb(theme.primaryColor), rgb(onPrimary)]);
        expect(await computed(page, 'body', 'font-family')).toContain(firstFamily);
        expect(luminance(await computed(page, 'body', 'background-color')) < 0.2).toBe(dark);
        expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
      }
      await page.setViewportSize(SIZES[0]);
      await suite.shoot(page, `theme-${k.shot}-a2ui-v09`);
    });
  });
}

describe('the dark support desk\'s own components stay readable', () => {
  const suite = browserSuite({ artifacts: ARTIFACTS, start: () => startE2e({}, { app: createSupportDeskApp() }) });

  // Playwright's CSS engine pierces shadow roots: the Lit renderers' text is reached too.
  const LIT = 'desk-ticket-table td, desk-ticket-table td *, desk-ticket-table th, #a2ui-surfaces h1, #a2ui-surfaces h2, #a2ui-surfaces h3, #a2ui-surfaces p';
  for (const [name, open, cells] of [
    ['htmx', 'htmx', '#surface-queue td, #surface-queue td *, #surface-queue th, #surface-queue h2, #surface-queue h3'],
    ['a2ui-v08', '', LIT],
    ['a2ui-v09', '?v=0.9', LIT],
  ] as const) {
    it(`${name}: every cell of the queue reaches AA on its background`, async () => {
      const client = suite.server.client();
      const c = await newConversation(suite.server, client, 'show the queue');
      const ctx = await suite.contextFor(client);
      const page = open === 'htmx' ? await suite.openHtmx(ctx, c) : await suite.openA2ui(ctx, c, open);
      await page.locator(open === 'htmx' ? '#surface-queue tbody tr' : 'desk-ticket-table tbody tr').first().waitFor();
      for (const size of SIZES) {
        await page.setViewportSize(size);
        const pairs = await textOnBackground(page, cells);
        expect(pairs.length).toBeGreaterThan(5);
        for (const p of pairs) expect(contrast(p.color, p.background), `${p.text}: ${p.color} on ${p.background}`).toBeGreaterThanOrEqual(4.5);
      }
      await page.setViewportSize(SIZES[0]);
      await suite.shoot(page, `theme-desk-${name}-queue`);
    });
  }
});
