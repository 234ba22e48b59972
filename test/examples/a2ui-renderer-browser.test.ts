import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { findSurface } from '../../src/ui-ir/index.ts';
import { browserSuite } from '../e2e/support/browser-suite.ts';
import { newConversation, startE2e } from '../e2e/support/stack.ts';

/*
 * examples/clients/a2ui-renderer.html, the minimal A2UI v0.9 renderer of docs/connect-a-client.md,
 * in headless Chromium against the product as `npm start` runs it. The page is served from the
 * server's origin, as its header says it must be (the test answers its URL with the file, so the
 * page is the file as written). It renders the character card from the stream, the user types
 * into it and presses Save, and the save is applied and comes back on the stream.
 */
const PAGE = readFileSync(new URL('../../examples/clients/a2ui-renderer.html', import.meta.url), 'utf8');
const suite = browserSuite({ artifacts: 'test-artifacts/examples', start: () => startE2e() });

describe('examples/clients/a2ui-renderer.html', () => {
  it('renders the form from the stream, and Save is applied and shown', async () => {
    const s = suite.server;
    const c = await newConversation(s, s.client(), 'create a character card');
    const page = await suite.newPage(await suite.contextFor());
    await page.route(`${s.url}/renderer.html*`, (route) => route.fulfill({ contentType: 'text/html', body: PAGE }));
    await page.goto(`${s.url}/renderer.html?cid=${encodeURIComponent(c.cid)}&token=${encodeURIComponent(c.token)}`);

    await page.getByRole('textbox', { name: /^Name\b/ }).fill('Aria');
    await page.getByRole('textbox', { name: /^Personality\b/ }).fill('Brave and kind.');
    await page.getByRole('button', { name: 'Save character' }).click();
    await page.getByRole('status').getByText('sent form.submit').waitFor();

    await expect.poll(async () => findSurface((await s.handle.conversations.get(c.cid))!.ir, 'main')!.data.committed)
      .toMatchObject({ name: 'Aria', personality: 'Brave and kind.', visibility: 'private' });
    // The saved state reaches the page through the stream, like any other client's change.
    await page.getByText(/^Saved to your card library as card-\d+$/).waitFor();
    await expect.poll(() => page.getByRole('textbox', { name: /^Name\b/ }).inputValue()).toBe('Aria');
    await suite.shoot(page, 'a2ui-renderer');
  });
});
