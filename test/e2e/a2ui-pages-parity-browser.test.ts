import type { BrowserContext, Locator, Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import type { HttpClient } from '../support/http-client.ts';
import { button, committed, savedRow, textField, type RendererVersion } from './support/browser-pages.ts';
import { browserSuite } from './support/browser-suite.ts';
import { newConversation, startE2e, type Conversation } from './support/stack.ts';

/*
 * Issue 33 item 5: the A2UI pages as finished as the htmx page, in headless Chromium against the
 * product as `npm start` composes it, at a desktop (1280×900) and a phone (390×844) width. A new
 * character card shows no "Saved" block of unset values; its single choice shows the chosen
 * value (v0.8: a select, not "1 Selected"; v0.9: the radio of the draft's value checked); after a
 * save the toast is a status box, not a second "Saved" line; the assistant's bubble keeps its
 * background and the top bar takes two lines on a phone (the htmx page too); each A2UI page links
 * to the other version and to the htmx page. The console must stay clean (browserSuite).
 */
const ARTIFACTS = 'test-artifacts/a2ui-pages-parity';

const suite = browserSuite({ artifacts: ARTIFACTS, start: () => startE2e() });
const { newPage } = suite;

const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };
const QUERY: Record<RendererVersion, string> = { '0.8': '', '0.9': '?v=0.9' };

const opened: BrowserContext[] = [];
afterEach(async () => {
  for (const ctx of opened.splice(0)) await ctx.close();
});

async function contextAt(size: { width: number; height: number }, client: HttpClient): Promise<BrowserContext> {
  const ctx = await suite.browser.newContext({ viewport: size, reducedMotion: 'reduce' });
  await ctx.addCookies([...client.cookies].map(([name, value]) => ({ name, value, url: suite.server.url })));
  opened.push(ctx);
  return ctx;
}

async function openA2ui(ctx: BrowserContext, c: Conversation, version: RendererVersion): Promise<Page> {
  const page = await newPage(ctx);
  // Under the test's own timeout: a wait that fails names its locator.
  page.setDefaultTimeout(10_000);
  await page.goto(`${suite.server.url}${c.a2ui}${QUERY[version]}`);
  await page.locator('#a2ui-status[data-state="connected"]').waitFor();
  await expect.poll(() => textField(page, 'Name', version).count()).toBe(1);
  return page;
}

/** How many lines the visible children of `bar` take (tops more than 8 px apart start a new line). */
async function lines(bar: Locator): Promise<number> {
  return bar.evaluate((el) => {
    const tops = Array.from(el.children).map((c) => c.getBoundingClientRect()).filter((r) => r.height > 0).map((r) => r.top).sort((a, b) => a - b);
    return tops.filter((top, i) => i === 0 || top - tops[i - 1]! > 8).length;
  });
}

/** The element's background is its own: not transparent and not the page's. */
async function hasOwnBackground(locator: Locator): Promise<boolean> {
  return locator.evaluate((el) => {
    const own = getComputedStyle(el).backgroundColor;
    return own !== 'rgba(0, 0, 0, 0)' && own !== getComputedStyle(document.body).backgroundColor;
  });
}

/** The single choice "Visibility" of the character card: the value it shows as chosen. */
async function chosenVisibility(page: Page, version: RendererVersion): Promise<string> {
  if (version === '0.8') return page.locator('a2ui-surfacer-multiplechoice select').inputValue();
  return page.locator('a2ui-choicepicker input[type="radio"]:checked').getAttribute('value').then((v) => v ?? '');
}

async function chooseVisibility(page: Page, version: RendererVersion, value: string): Promise<void> {
  if (version === '0.8') await page.locator('a2ui-surfacer-multiplechoice select').selectOption(value);
  else await page.locator(`a2ui-choicepicker input[type="radio"][value="${value}"]`).check();
}

describe.each(['0.8', '0.9'] as const)('the A2UI v%s page beside the htmx page', (version) => {
  it('a new card: no "Saved" block, the single choice shows its value; a save shows the values and the toast as a status box', async () => {
    const s = suite.server;
    const client = s.client();
    const c = await newConversation(s, client, 'create a character card');
    const page = await openA2ui(await contextAt(DESKTOP, client), c, version);

    // No block of unset values before anything was saved (the htmx page shows none either).
    await page.getByText('Character card', { exact: true }).waitFor();
    expect(await page.getByText('Saved', { exact: true }).count()).toBe(0);
    expect(await page.getByText('—', { exact: true }).count()).toBe(0);
    // The draft's default is shown chosen, as a single choice (not a "1 Selected" dropdown).
    expect(await chosenVisibility(page, version)).toBe('private');
    expect(await page.getByText('1 Selected').count()).toBe(0);
    await suite.shoot(page, `v${version}-new`);

    await textField(page, 'Name', version).fill('Aria');
    await textField(page, 'Personality', version).fill('Brave.');
    await chooseVisibility(page, version, 'public');
    await button(page, 'Save character', version).click();
    await savedRow(page, 'Name', 'Aria', version).waitFor();
    expect(await committed(s, c.cid)).toMatchObject({ name: 'Aria', visibility: 'public' });
    await savedRow(page, 'Visibility', 'public', version).waitFor();
    expect(await chosenVisibility(page, version)).toBe('public');
    // "Saved" once, as the group's title; the toast is a status box of its own.
    expect(await page.getByText('Saved', { exact: true }).count()).toBe(1);
    const toast = page.locator('.toast--success[role="status"]', { hasText: /Saved to your card library as card-\d+/ });
    await toast.waitFor();
    expect(await hasOwnBackground(toast)).toBe(true);
    await suite.shoot(page, `v${version}-saved`);
  });

  it('on a phone: the top bar takes two lines, the assistant bubble keeps a background; the header switches versions', async () => {
    const s = suite.server;
    const client = s.client();
    const c = await newConversation(s, client, 'create a character card');
    const page = await openA2ui(await contextAt(PHONE, client), c, version);

    expect(await lines(page.locator('.a2ui-topbar'))).toBe(2);
    expect(await hasOwnBackground(page.locator('.a2ui-entry--assistant').first())).toBe(true);

    const nav = page.locator('.a2ui-topbar__nav');
    expect(await nav.getByRole('link', { name: 'HTML view' }).getAttribute('href')).toBe(c.base);
    const switcher = nav.getByRole('group', { name: 'A2UI version' });
    expect(await switcher.locator('[aria-current="page"]').textContent()).toBe(`v${version}`);
    const other: RendererVersion = version === '0.8' ? '0.9' : '0.8';
    await switcher.getByRole('link', { name: `v${other}` }).click();
    await page.waitForURL((url) => url.pathname === c.a2ui && url.searchParams.get('v') === other);
    await page.locator('#a2ui-status[data-state="connected"]').waitFor();
    await expect.poll(() => textField(page, 'Name', other).count()).toBe(1);
    expect(await page.locator('.a2ui-switch [aria-current="page"]').textContent()).toBe(`v${other}`);
  });
});

describe('the htmx page on a phone', () => {
  it('takes two lines for its top bar and keeps the assistant bubble\'s background', async () => {
    const s = suite.server;
    const client = s.client();
    const c = await newConversation(s, client, 'create a character card');
    const page = await newPage(await contextAt(PHONE, client));
    await page.goto(`${s.url}${c.base}`);
    await page.locator('#surface-main form').waitFor();
    expect(await lines(page.locator('.topbar'))).toBe(2);
    expect(await hasOwnBackground(page.locator('.entry--assistant').first())).toBe(true);
    // The badge's closing remark is left out there; the whole label stays its text.
    expect(await page.locator('.badge').textContent()).toBe('Offline planner (no language model connected)');
    expect(await page.locator('.badge__detail').isVisible()).toBe(false);
  });
});
