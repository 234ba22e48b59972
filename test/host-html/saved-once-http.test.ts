import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHARACTER_VALUES, startHarness, type Harness } from './support/harness.ts';
import { formFields, openConversation, pageOf, parse, sendMessage, submitForm, type Doc } from './support/page.ts';

/*
 * Issue 33 item 9: after a save, the panel says "Saved to your card library as card-1" beside its
 * buttons, where the person is looking. The page does not say it a second time: with JavaScript,
 * the status line keeps the text for screen readers only (a live region, visually hidden);
 * without, there is no flash, and the reloaded page opens at the panel's message. A message the
 * panel does not show (a replay, a closed panel) is still shown by the page.
 */
const SAVED = /^Saved to your card library as card-\d+$/;

/** Elements of `$` whose own text is `text` and that are drawn (not inside .visually-hidden or [hidden]). */
function shown($: Doc, text: RegExp): string[] {
  return $('body *').filter((_, el) => {
    const $el = $(el);
    if ($el.children().length > 0 || !text.test($el.text().trim())) return false;
    return $el.closest('.visually-hidden, [hidden]').length === 0;
  }).map((_, el) => $(el).attr('id') ?? el.tagName).get();
}

describe('a success is shown once: in the panel', () => {
  let h: Harness;
  beforeAll(async () => { h = await startHarness({ wiring: 'demo' }); });
  afterAll(async () => { await h.close(); });

  async function openCard(): Promise<{ client: ReturnType<Harness['client']>; c: Awaited<ReturnType<typeof openConversation>>; fields: Record<string, string | string[]> }> {
    const client = h.client();
    const c = await openConversation(client);
    await sendMessage(client, c, 'create a character card');
    return { client, c, fields: { ...formFields(await pageOf(client, c), 'main'), ...CHARACTER_VALUES.demo } };
  }

  it('with JavaScript: the panel shows it; the status line holds it for screen readers only', async () => {
    const { client, c, fields } = await openCard();
    const saved = await submitForm(client, c, fields);
    expect(saved.status).toBe(200);
    const $ = parse(await saved.text());
    expect($('#surface-main-toast').text()).toMatch(SAVED);
    const status = $('#status[hx-swap-oob]');
    expect(status.attr('role')).toBe('status');
    expect(status.attr('aria-live')).toBe('polite');
    expect(status.hasClass('visually-hidden')).toBe(true);
    expect(status.text()).toBe($('#surface-main-toast').text());
    expect(shown($, SAVED)).toEqual(['surface-main-toast']);
  });

  it('with JavaScript: a replayed submit says "Already done" on the status line, shown', async () => {
    const { client, c, fields } = await openCard();
    expect((await submitForm(client, c, fields)).status).toBe(200);
    const again = parse(await (await submitForm(client, c, fields)).text());
    const status = again('#status[hx-swap-oob]');
    expect(status.text()).toMatch(/^Already done/);
    expect(status.hasClass('visually-hidden')).toBe(false);
  });

  it('with JavaScript: closing a panel, whose message then is not on screen, shows it on the status line', async () => {
    const { client, c } = await openCard();
    const fields = formFields(await pageOf(client, c), 'main');
    const closed = parse(await (await submitForm(client, c, fields, 'form.cancel')).text());
    expect(closed('#surface-main').attr('hidden')).toBeDefined();
    const status = closed('#status[hx-swap-oob]');
    expect(status.text()).toBe('Closed without saving');
    expect(status.hasClass('visually-hidden')).toBe(false);
  });

  it('without JavaScript: no flash; the page opens at the panel\'s message, which it shows once', async () => {
    const { client, c, fields } = await openCard();
    const saved = await submitForm(client, c, fields, 'form.submit', 'browser');
    expect(saved.status).toBe(303);
    expect(saved.headers.get('location')).toBe(`${c.base}#surface-main-toast`);
    expect(saved.headers.getSetCookie().some((line) => line.startsWith('surfacer_flash='))).toBe(false);
    const $ = await pageOf(client, c);
    expect($('#alerts .alert').length).toBe(0);
    expect($('#surface-main-toast').text()).toMatch(SAVED);
    expect(shown($, SAVED)).toEqual(['surface-main-toast']);
  });

  it('without JavaScript: a message the panel does not show is the flash', async () => {
    const { client, c } = await openCard();
    const fields = formFields(await pageOf(client, c), 'main');
    const closed = await submitForm(client, c, fields, 'form.cancel', 'browser');
    expect(closed.headers.get('location')).toBe(c.base);
    expect((await pageOf(client, c))('#alerts .alert').text()).toContain('Closed without saving');
  });
});
