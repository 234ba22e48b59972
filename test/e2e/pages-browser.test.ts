import type { BrowserContext, Locator, Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { failedLoad } from '../support/browser/index.ts';
import type { HttpClient } from '../support/http-client.ts';
import { pausingPlanner } from '../support/pausing-planner.ts';
import { button, cutStream, savedRow, textField } from './support/browser-pages.ts';
import { browserSuite } from './support/browser-suite.ts';
import { newConversation, startE2e } from './support/stack.ts';

/*
 * Issue 21 items 6 and 7 in headless Chromium, at a desktop (1280×900) and a phone (390×844)
 * width, against the product as `npm start` composes it: the stale second tab, and the htmx page
 * (chat dock pinned, Enter sends, typed text kept across a turn, alerts cleared by a success, the
 * action bar and its feedback in view, new panels scrolled into view, no empty "Saved" block, the
 * planner's note once), plus screenshots of every page (htmx, A2UI v0.8, A2UI v0.9) kept as test
 * artefacts. The console must stay clean (browserSuite).
 */
const ARTIFACTS = 'test-artifacts/pages';

const suite = browserSuite({ artifacts: ARTIFACTS, start: () => startE2e({}, { planner: pausingPlanner(700) }) });
const { newPage, consoleLog } = suite;

const VIEWPORTS = [
  { name: 'desktop', width: 1280, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const;
type Viewport = (typeof VIEWPORTS)[number];

/** A context at the viewport's size (and touch, on the phone) carrying `client`'s session cookie. */
async function contextAt(viewport: Viewport, client?: HttpClient): Promise<BrowserContext> {
  const sized = await suite.browser.newContext({
    viewport: { width: viewport.width, height: viewport.height }, reducedMotion: 'reduce',
    ...(viewport.name === 'phone' ? { isMobile: true, hasTouch: true, deviceScaleFactor: 2 } : {}),
  });
  if (client !== undefined) await sized.addCookies([...client.cookies].map(([name, value]) => ({ name, value, url: suite.server.url })));
  opened.push(sized);
  return sized;
}
const opened: BrowserContext[] = [];
afterEach(async () => {
  for (const ctx of opened.splice(0)) await ctx.close();
});

async function openPage(ctx: BrowserContext, path: string): Promise<Page> {
  const page = await newPage(ctx);
  await page.goto(`${suite.server.url}${path}`);
  await page.waitForFunction('window.htmx !== undefined && document.documentElement.classList.contains("js")');
  return page;
}

/** Is the whole element inside the window (not scrolled away, not under the fold)? */
async function inView(locator: Locator): Promise<boolean> {
  return locator.evaluate((el) => {
    const r = el.getBoundingClientRect();
    return r.height > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= window.innerHeight + 0.5 && r.right <= window.innerWidth + 0.5;
  });
}

/** Is the top of the element inside the window? */
async function topInView(locator: Locator): Promise<boolean> {
  return locator.evaluate((el) => {
    const r = el.getBoundingClientRect();
    return r.top >= -1 && r.top < window.innerHeight - 40;
  });
}

/** The element on top at the middle of `locator` is it (or inside it): not covered by the dock. */
async function notCovered(locator: Locator): Promise<boolean> {
  return locator.evaluate((el) => {
    const r = el.getBoundingClientRect();
    const top = document.elementFromPoint(r.left + r.width / 2, r.top + Math.min(r.height / 2, 12));
    return top !== null && (top === el || el.contains(top));
  });
}

async function send(page: Page, text: string): Promise<void> {
  const count = await page.locator('#transcript li').count();
  await page.getByLabel('Message').fill(text);
  await page.getByLabel('Message').press('Enter');
  await expect.poll(() => page.locator('#transcript li').count(), { timeout: 10_000 }).toBe(count + 2);
  await page.locator('#composer-busy.htmx-request').waitFor({ state: 'detached' });
}

const settle = (page: Page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

describe.each(VIEWPORTS)('the htmx page at $name width ($width×$height)', (viewport) => {
  const shot = (page: Page, name: string) => page.screenshot({ path: `${ARTIFACTS}/htmx-${name}-${viewport.name}.png` });

  it('the chat dock is pinned at the bottom; Enter sends, Shift+Enter makes a new line', async () => {
    const ctx = await contextAt(viewport);
    const page = await newPage(ctx);
    await page.goto(`${suite.server.url}/`);
    await page.waitForFunction('window.htmx !== undefined && document.documentElement.classList.contains("js")');
    const box = page.getByLabel('Message');
    expect(await inView(box)).toBe(true);
    const dockBottom = () => page.locator('.chat__dock').evaluate((el) => window.innerHeight - el.getBoundingClientRect().bottom);
    expect(await dockBottom()).toBeLessThan(viewport.name === 'phone' ? 1 : 40);
    // The app's own texts (the demo's), not hard-coded host words.
    expect(await box.getAttribute('placeholder')).toBe('e.g. create a character card');
    await page.locator('.surfaces__empty').getByText('create a character card named Aria').waitFor();
    await shot(page, 'empty');

    await box.fill('first line');
    await box.press('Shift+Enter');
    await box.pressSequentially('second line');
    expect(await box.inputValue()).toBe('first line\nsecond line');
    expect(await page.locator('#transcript li').count()).toBe(0);
    await send(page, 'create a character card named Aria');
    expect(await page.locator('#transcript .entry--user .entry__text').first().textContent()).toBe('create a character card named Aria');
    expect(await box.inputValue()).toBe('');
    // The answer's form replaced the box: the focus is back in it (without scrolling the page).
    expect(await box.evaluate((el) => el === document.activeElement)).toBe(true);
    for (const text of ['show me sample characters', 'edit my persona']) await send(page, text);
    // After three turns and three panels, the box is still at the bottom of the screen, and on a
    // wide screen the transcript shows its newest entry (it scrolls on its own, pinned to the end).
    expect(await inView(box)).toBe(true);
    if (viewport.name === 'desktop') {
      for (const text of ['thanks', 'thanks again', 'and thanks once more']) await send(page, text);
      await settle(page);
      expect(await page.locator('#transcript').evaluate((el) => el.scrollHeight > el.clientHeight)).toBe(true);
      expect(await inView(page.locator('#transcript li').last())).toBe(true);
    }
    expect(await notCovered(box)).toBe(true);
    await page.mouse.wheel(0, -5000);
    await settle(page);
    expect(await inView(box)).toBe(true);
    // The planner's "offline" note: in its first reply only (the badge says it the whole time).
    const replies = await page.locator('#transcript .entry--assistant .entry__text').allTextContents();
    expect(replies).toHaveLength(viewport.name === 'desktop' ? 6 : 3);
    expect(replies.filter((r) => r.includes('(Offline planner:'))).toHaveLength(1);
    expect(replies[0]).toContain('(Offline planner:');
    await shot(page, 'three-turns');
  });

  it('text typed while a turn runs is kept when it ends; "Please type a message." goes with the next success', async () => {
    const ctx = await contextAt(viewport);
    const page = await openPage(ctx, '/');
    const box = page.getByLabel('Message');
    // A slow device: htmx's settle step (its htmx:load) runs long after the swap. The text is back
    // when the busy line goes all the same (CI's loaded runs once read the box in that gap).
    const settleDelay = await page.evaluate('htmx.config.defaultSettleDelay');
    await page.evaluate('htmx.config.defaultSettleDelay = 1500');
    await box.fill('create a character card');
    await box.press('Enter');
    await page.locator('#composer-busy.htmx-request').waitFor();
    expect(await box.inputValue()).toBe('');
    await box.pressSequentially('and then a persona');
    await page.locator('#surface-main').waitFor();
    await page.locator('#composer-busy.htmx-request').waitFor({ state: 'detached' });
    expect(await page.getByLabel('Message').inputValue()).toBe('and then a persona');
    await page.evaluate(`htmx.config.defaultSettleDelay = ${String(settleDelay)}`);
    await page.locator('.htmx-settling').first().waitFor({ state: 'detached' });

    // Only spaces: the server refuses it (400) and says so in the alerts; the text comes back.
    await page.getByLabel('Message').fill('   ');
    await page.getByLabel('Message').press('Enter');
    const alert = page.locator('#alerts .alert__text');
    await expect.poll(() => alert.textContent()).toBe('Please type a message.');
    // Chromium's line for the 400, and htmx's (a 4xx is an htmx error: HTMX_CONFIG swaps it into #alerts).
    expect(consoleLog.drain()).toEqual([
      failedLoad(`${page.url()}/messages`, 400, 'Bad Request'),
      { kind: 'error', text: expect.stringMatching(/^Response Status Error Code 400 from \/c\/[A-Za-z0-9_-]+\/messages/), url: expect.any(String) },
    ]);
    expect(await inView(alert)).toBe(true);
    await send(page, 'edit my persona');
    expect(await page.locator('#alerts').innerHTML()).toBe('');
    expect(await alert.count()).toBe(0);
  });

  it('a new panel is scrolled into view; the save button and its feedback are in view; no empty "Saved" block', async () => {
    const ctx = await contextAt(viewport);
    const page = await openPage(ctx, '/');
    await send(page, 'show me sample characters');
    await send(page, 'create a character card named Aria');
    const card = page.locator('#surface-main');
    await settle(page);
    await expect.poll(() => topInView(card)).toBe(true);
    // Nothing saved yet: no "Saved" group of empty values.
    expect(await card.locator('legend', { hasText: 'Saved' }).count()).toBe(0);
    expect(await card.locator('.value__text--empty').count()).toBe(0);
    await shot(page, 'card');

    const save = card.getByRole('button', { name: 'Save character' });
    if (viewport.name === 'desktop') expect(await inView(save)).toBe(true);
    await card.getByLabel('Personality').fill('Brave, curious and kind.');
    await save.click();
    const toast = card.locator('.surface__toast');
    await expect.poll(() => toast.textContent()).toMatch(/^Saved/);
    await settle(page);
    if (viewport.name === 'desktop') {
      expect(await inView(save)).toBe(true);
      expect(await inView(toast)).toBe(true);
    }
    // Said once, by the panel: the status line keeps it for screen readers only (issue 33).
    expect(await page.locator('#status').textContent()).toBe(await toast.textContent());
    expect(await page.locator('#status').evaluate((el) => el.classList.contains('visually-hidden'))).toBe(true);
    await card.locator('legend', { hasText: 'Saved' }).waitFor();
    expect(await card.locator('.value[data-path="/committed/name"] .value__text').textContent()).toBe('Aria');
    await shot(page, 'saved');
    // Phone width: nothing scrolls sideways.
    expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
  });

  it('two tabs: the stale tab\'s submit is 409 "out of date" with Regenerate, which recovers it', async () => {
    const s = suite.server;
    const client = s.client();
    const c = await newConversation(s, client, 'create a character card');
    const ctx = await contextAt(viewport, client);
    const tabA = await openPage(ctx, c.base);
    const tabB = await openPage(ctx, c.base);
    const keyOf = (tab: Page) => tab.locator('#surface-main input[name="_idem"]').inputValue();
    expect(await keyOf(tabA)).not.toBe(await keyOf(tabB));
    // Tab B stops hearing from the server (a sleeping laptop, a dropped network): it keeps the old form.
    await cutStream(tabB);

    await tabA.getByLabel('Name').fill('Aria');
    await tabA.getByLabel('Personality').fill('Brave and kind.');
    await tabA.getByRole('button', { name: 'Save character' }).click();
    await expect.poll(() => tabA.locator('#surface-main').getAttribute('data-rev')).toBe('1');

    await tabB.getByLabel('Name').fill('Brin');
    await tabB.getByLabel('Personality').fill('Quiet and sharp.');
    await tabB.getByRole('button', { name: 'Save character' }).click();
    const alert = tabB.locator('#surface-main-alert .alert');
    await expect.poll(() => alert.getAttribute('data-code')).toBe('A2UI_C2S_SURFACE_STALE');
    expect(await alert.locator('.alert__text').textContent()).toBe('UI is out of date. Please regenerate.');
    expect(consoleLog.drain()).toEqual([failedLoad(`${suite.server.url}${c.base}/actions`, 409, 'Conflict')]);
    await settle(tabB);
    expect(await topInView(alert)).toBe(true);
    await tabB.screenshot({ path: `${ARTIFACTS}/htmx-stale-tab-${viewport.name}.png` });
    const conversation = await s.handle.conversations.get(c.cid);
    expect(conversation!.ir.surfaces.find((x) => x.id === 'main')!.data.committed).toMatchObject({ name: 'Aria' });

    await alert.getByRole('button', { name: 'Regenerate' }).click();
    await expect.poll(() => tabB.locator('#surface-main').getAttribute('data-epoch')).toBe('1');
    await tabB.getByLabel('Name').fill('Brin');
    await tabB.getByLabel('Personality').fill('Quiet and sharp.');
    await tabB.getByRole('button', { name: 'Save character' }).click();
    await expect.poll(() => tabB.locator('#surface-main .value[data-path="/committed/name"] .value__text').textContent()).toBe('Brin');
  });
});

describe.each(VIEWPORTS)('the A2UI pages at $name width ($width×$height)', (viewport) => {
  for (const version of ['0.8', '0.9'] as const) {
    it(`v${version}: the same message box sends a turn whose panel arrives; the stream authenticates with the cookie`, async () => {
      const s = suite.server;
      const client = s.client();
      const c = await newConversation(s, client);
      const ctx = await contextAt(viewport, client);
      const page = await newPage(ctx);
      const streams: string[] = [];
      page.on('request', (r) => { if (r.url().includes('/stream')) streams.push(r.url()); });
      await page.goto(`${s.url}${c.a2ui}${version === '0.9' ? '?v=0.9' : ''}`);
      await page.locator('#a2ui-status[data-state="connected"]').waitFor();
      // No token in the page or in the stream's URL: the session cookie carries it.
      expect(streams.length).toBeGreaterThan(0);
      for (const url of streams) expect(new URL(url).searchParams.has('token')).toBe(false);
      expect(await page.content()).not.toContain(`data-token`);
      const box = page.getByLabel('Message');
      expect(await box.getAttribute('placeholder')).toBe('e.g. create a character card');
      expect(await inView(box)).toBe(true);
      await page.screenshot({ path: `${ARTIFACTS}/a2ui-v${version}-empty-${viewport.name}.png` });

      await box.fill('first line');
      await box.press('Shift+Enter');
      await box.pressSequentially('second');
      expect(await box.inputValue()).toBe('first line\nsecond');
      await box.fill('create a character card named Aria');
      await box.press('Enter');
      await page.locator('#a2ui-busy').waitFor();
      expect(await box.inputValue()).toBe('');
      await box.pressSequentially('typed meanwhile');
      await page.locator('a2ui-surface').first().waitFor();
      await page.locator('#a2ui-busy').waitFor({ state: 'hidden' });
      expect(await box.inputValue()).toBe('typed meanwhile');
      const entries = page.locator('#a2ui-transcript .a2ui-entry');
      await expect.poll(() => entries.count()).toBe(2);
      expect(await entries.nth(0).locator('.a2ui-entry__text').textContent()).toBe('create a character card named Aria');
      // The same turn on the htmx page's side: one conversation.
      const conversation = await s.handle.conversations.get(c.cid);
      expect(conversation!.ir.transcript.map((e) => e.role)).toEqual(['user', 'assistant']);

      // Only spaces: the page says so; the next success clears it.
      await box.fill('   ');
      await box.press('Enter');
      await page.locator('#a2ui-alerts .a2ui-alert', { hasText: 'Please type a message.' }).waitFor();
      await box.fill('thanks');
      await box.press('Enter');
      await expect.poll(() => entries.count()).toBe(4);
      expect(await page.locator('#a2ui-alerts').innerHTML()).toBe('');
      expect(await inView(box)).toBe(true);
      await page.getByText('Character card', { exact: true }).first().waitFor();
      await expect.poll(() => textField(page, 'Personality', version).count()).toBe(1);

      // A product page, not a renderer test page: a multi-line field is a textarea, typed into
      // key by key (focus kept); no "Please enter a value" placeholders; primary and secondary
      // buttons look different; the panel is one card (the surface element is none), without a shadow.
      const personality = textField(page, 'Personality', version);
      expect(await personality.evaluate((el) => el.tagName)).toBe('TEXTAREA');
      await personality.pressSequentially('Brave and kind.');
      expect(await personality.inputValue()).toBe('Brave and kind.');
      expect(await personality.evaluate((el) => el.matches(':focus'))).toBe(true);
      const placeholders = await page.evaluate(() => {
        const found: string[] = [];
        const walk = (root: Document | ShadowRoot): void => {
          for (const el of Array.from(root.querySelectorAll('*'))) {
            const ph = el.getAttribute('placeholder') ?? (el as HTMLInputElement).placeholder;
            if ((el.tagName === 'INPUT' || el.tagName === 'TEXTAREA') && ph) found.push(ph);
            if (el.shadowRoot) walk(el.shadowRoot);
          }
        };
        walk(document);
        return found;
      });
      expect(placeholders.filter((p) => /please enter a value/i.test(p))).toEqual([]);
      const background = (label: string) => button(page, label, version).evaluate((el) => getComputedStyle(el).backgroundColor);
      expect(await background('Save character')).not.toBe(await background('Discard changes'));
      const surface = page.locator('a2ui-surface').first();
      expect(await surface.evaluate((el) => getComputedStyle(el).borderTopWidth)).toBe('0px');
      // Every card the renderer draws, through its shadow roots: none with a shadow, none grey.
      const cards = await page.evaluate(() => {
        const found: Array<{ shadow: string; background: string }> = [];
        const walk = (root: Document | ShadowRoot): void => {
          for (const el of Array.from(root.querySelectorAll('*'))) {
            if (el.classList.contains('a2ui-card') || el.tagName === 'A2UI-CARD') {
              const style = getComputedStyle(el.shadowRoot?.querySelector('section, div') ?? el);
              found.push({ shadow: style.boxShadow, background: style.backgroundColor });
            }
            if (el.shadowRoot) walk(el.shadowRoot);
          }
        };
        walk(document);
        return found;
      });
      expect(cards.length).toBeGreaterThan(0);
      for (const card of cards) {
        expect(card.shadow).toBe('none');
        expect(['rgb(255, 255, 255)', 'rgba(0, 0, 0, 0)']).toContain(card.background);
      }

      await button(page, 'Save character', version).click();
      await savedRow(page, 'Name', 'Aria', version).waitFor();
      await settle(page);
      await page.screenshot({ path: `${ARTIFACTS}/a2ui-v${version}-card-${viewport.name}.png` });
      await page.screenshot({ path: `${ARTIFACTS}/a2ui-v${version}-card-${viewport.name}-full.png`, fullPage: true });
    });
  }
});
