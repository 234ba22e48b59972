import { describe, expect, it } from 'vitest';
import { createDemoApp } from '../../src/app/index.ts';
import type { AppDefinition } from '../../src/index.ts';
import { browserSuite } from './support/browser-suite.ts';
import { newConversation, startE2e } from './support/stack.ts';

/*
 * Progressive answers in headless Chromium (docs/streaming.md): the real product with the
 * offline planner streaming its answer at a fixed pace (2 characters every 25 ms, fenced like
 * many chat models answer). On the htmx page the assistant's words grow in the preview and the
 * form appears while the message's own request is still running; the A2UI page (official Lit
 * renderer) of the same conversation shows the form before the answer ends too.
 */
const ARTIFACTS = 'test-artifacts/e2e';
const demo = createDemoApp({ offlinePlanner: { fenced: true, stream: { chars: 2, everyMs: 25 } } });
/*
 * The form's directive closes a few characters before the answer's end, so the answer's stream
 * stays open a second longer, as a provider's does while it sends its closing usage chunk: "the
 * form before the answer ends" then means the streamed form, not a race of the two pages' own
 * deliveries on a loaded machine (CI once saw the A2UI page's form 5 ms after the htmx request).
 */
const STREAM_OPEN_AFTER_MS = 1_000;
const app: AppDefinition = {
  ...demo,
  offlinePlanner: {
    ...demo.offlinePlanner,
    plan: async (input, signal) => {
      const output = await demo.offlinePlanner.plan(input, signal);
      await new Promise((resolve) => setTimeout(resolve, STREAM_OPEN_AFTER_MS));
      return output;
    },
  },
};
const suite = browserSuite({ artifacts: ARTIFACTS, start: () => startE2e({}, { app }) });
const { contextFor, openA2ui, openHtmx } = suite;

type Seen = { preview: Array<[number, number]>; form: number; done: number };

describe('a streamed answer in the browser', () => {
  it('the htmx page shows the words growing and the form before the answer ends; the A2UI page shows the form then too', async () => {
    const s = suite.server;
    const client = s.client();
    const c = await newConversation(s, client);
    const ctx = await contextFor(client);
    const a2ui = await openA2ui(ctx, c);
    const htmx = await openHtmx(ctx, c);
    // Watch both pages from the inside (one clock: Date.now on the same machine).
    await a2ui.evaluate(() => {
      const w = window as unknown as { seenForm: number };
      w.seenForm = 0;
      const timer = setInterval(() => {
        if (document.querySelector('a2ui-surface[data-surface-id="main--e0"]') !== null) { w.seenForm = Date.now(); clearInterval(timer); }
      }, 5);
    });
    await htmx.evaluate(() => {
      const seen: Seen = { preview: [], form: 0, done: 0 };
      (window as unknown as { seen: Seen }).seen = seen;
      new MutationObserver(() => {
        const text = document.getElementById('assistant-preview')?.textContent ?? '';
        if (text.length > (seen.preview.at(-1)?.[1] ?? 0)) seen.preview.push([Date.now(), text.length]);
        if (seen.form === 0 && document.querySelector('#surface-main form') !== null) seen.form = Date.now();
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
      document.body.addEventListener('htmx:afterRequest', (event) => {
        const path = (event as CustomEvent<{ pathInfo?: { requestPath?: string } }>).detail.pathInfo?.requestPath ?? '';
        if (path.endsWith('/messages')) seen.done = Date.now();
      });
    });
    await htmx.locator('#message-text').fill('create a character card');
    await htmx.locator('#message-form button[type="submit"]').click();
    await htmx.waitForFunction(() => (window as unknown as { seen: Seen }).seen.done > 0, undefined, { timeout: 20_000 });
    const seen = await htmx.evaluate(() => (window as unknown as { seen: Seen }).seen);
    const a2uiForm = await a2ui.evaluate(() => (window as unknown as { seenForm: number }).seenForm);
    await htmx.screenshot({ path: `${ARTIFACTS}/streaming-htmx.png`, fullPage: true });
    // The words grew over several updates before the form appeared.
    const beforeForm = seen.preview.filter(([at]) => at <= seen.form);
    expect(beforeForm.length).toBeGreaterThan(3);
    expect(seen.form).toBeGreaterThan(0);
    // The form was there while the message's request was still running (the answer had not ended).
    expect(seen.form).toBeLessThan(seen.done);
    expect(a2uiForm).toBeGreaterThan(0);
    expect(a2uiForm).toBeLessThan(seen.done);
    // Once the text is in the transcript, the preview is empty again.
    await expect.poll(() => htmx.locator('#assistant-preview').textContent()).toBe('');
    await expect.poll(() => htmx.locator('#transcript li').count()).toBe(2);
  });
});
