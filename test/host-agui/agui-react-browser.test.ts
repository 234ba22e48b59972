import { describe, expect, it } from 'vitest';
import { committed } from '../e2e/support/browser-pages.ts';
import { browserSuite } from '../e2e/support/browser-suite.ts';
import { newConversation } from '../e2e/support/stack.ts';
import { openReactPage, startReactStack } from './react-page/open.ts';

/*
 * Issue 19, AG-UI "Done when" in Chromium: a React page with the official @a2ui/react v0.9
 * renderer, fed from POST /ag-ui by the official HttpAgent (react-page/main.ts), shows the demo's
 * character card; a submit from it is applied once and the htmx page of the same conversation
 * shows it. The conversation is the browser session's: the page's token is mapped to that
 * session's owner by a library `authenticate` (createSurfacer({ authenticate })), as an app
 * that signs its own users in would do.
 */
const ARTIFACTS = 'test-artifacts/agui';
const TOKEN = 'react-page-token-0123456789';
const owners = new Map<string, string>();

const suite = browserSuite({ artifacts: ARTIFACTS, start: () => startReactStack(owners) });
const { contextFor, newPage, openHtmx } = suite;

describe('the official React renderer fed from POST /ag-ui', () => {
  it('shows the character card; a submit from it is applied once and the htmx page shows it', async () => {
    const s = suite.server;
    const client = s.client();
    const c = await newConversation(s, client);
    owners.set(TOKEN, (await s.handle.conversations.get(c.cid))!.ownerSessionId);
    const ctx = await contextFor(client);
    const htmx = await openHtmx(ctx, c);

    const react = await newPage(ctx);
    await openReactPage(react, s.url, { token: TOKEN, thread: c.cid, say: 'create a character card' });
    await react.locator('[data-surface-id="main--e0"]').waitFor();
    await react.getByText('Character card', { exact: true }).waitFor();
    const runs = () => react.evaluate(() => (window as unknown as { __agui: { runs: Array<{ kind: string; events: string[]; error?: unknown }> } }).__agui.runs);
    await expect.poll(async () => (await runs()).length).toBe(1);
    expect((await runs())[0]).toMatchObject({ kind: 'message' });
    expect((await runs())[0]!.events.at(-1)).toBe('RUN_FINISHED');
    // The turn the React page asked for shows on the htmx page too.
    await htmx.locator('#surface-main form').waitFor();
    await react.screenshot({ path: `${ARTIFACTS}/react-card.png`, fullPage: true });

    // The card's field checks (issue 32), in the server's words: shown at once, Save disabled.
    const save = react.getByRole('button', { name: 'Save character' });
    await react.getByText('Name is required.', { exact: true }).waitFor();
    await react.getByText('Personality is required.', { exact: true }).waitFor();
    expect(await save.isDisabled()).toBe(true);
    await react.getByLabel('Name *', { exact: true }).fill('   ');
    await react.getByText('Name is required.', { exact: true }).waitFor();
    await react.screenshot({ path: `${ARTIFACTS}/react-field-checks.png`, fullPage: true });
    await react.setViewportSize({ width: 390, height: 844 });
    await react.screenshot({ path: `${ARTIFACTS}/react-field-checks-phone.png`, fullPage: true });
    await react.setViewportSize({ width: 1280, height: 900 });
    expect((await runs()).length).toBe(1);
    await react.getByLabel('Name *', { exact: true }).fill('Aria');
    await react.getByLabel('Personality *', { exact: true }).fill('Brave, curious and kind.');
    await expect.poll(() => react.getByText('Name is required.', { exact: true }).count()).toBe(0);
    await expect.poll(() => save.isDisabled()).toBe(false);
    await react.getByLabel('Tags', { exact: true }).fill('bard, brave');
    const version = (await s.handle.conversations.get(c.cid))!.version;
    await react.getByRole('button', { name: 'Save character' }).click();
    await expect.poll(async () => (await runs()).length).toBe(2);
    const action = (await runs())[1]!;
    expect(action).toMatchObject({ kind: 'action' });
    expect(action.error).toBeUndefined();
    // The change since the rev the page held, appended to its activity (ACTIVITY_DELTA).
    expect(action.events).toEqual(['RUN_STARTED', 'ACTIVITY_DELTA', 'RUN_FINISHED']);
    // Applied once: one log entry, the values the user typed.
    const after = await s.handle.conversations.get(c.cid);
    expect(after!.version).toBe(version + 1);
    expect(await committed(s, c.cid)).toMatchObject({ name: 'Aria', personality: 'Brave, curious and kind.', tags: ['bard', 'brave'] });
    await htmx.locator('#surface-main .value[data-path="/committed/name"] .value__text', { hasText: 'Aria' }).waitFor();
    await htmx.locator('#surface-main .value[data-path="/committed/tags"] .value__text', { hasText: 'bard, brave' }).waitFor();
    // The React page updated from the run's delta: still one surface, the values kept, the reply shown.
    await expect.poll(() => react.locator('[data-surface-id]').count()).toBe(1);
    expect(await react.getByLabel('Name *', { exact: true }).inputValue()).toBe('Aria');
    await react.getByText(/^Saved to your card library as /).waitFor();
    await react.screenshot({ path: `${ARTIFACTS}/react-saved.png`, fullPage: true });
    await htmx.screenshot({ path: `${ARTIFACTS}/htmx-after-react-submit.png`, fullPage: true });
  });
});
