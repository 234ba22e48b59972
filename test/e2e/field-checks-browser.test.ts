import type { Page, Request } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { button, recordEvents, textField } from './support/browser-pages.ts';
import { browserSuite } from './support/browser-suite.ts';
import { newConversation, startE2e, type Conversation, type E2eServer } from './support/stack.ts';

/*
 * Issue 32 item 1, in Chromium: a question whose fields check themselves (an email address, a
 * code with its own pattern and message). On the htmx page and on the official Lit v0.9 renderer
 * an invalid value shows the server's own words before any request is made; a submit forged past
 * the client gets the server's refusal with those same words, and nothing is applied. (The
 * official React renderer: test/host-agui/agui-react-browser.test.ts.)
 */
const ARTIFACTS = 'test-artifacts/e2e';
const suite = browserSuite({ artifacts: ARTIFACTS, start: () => startE2e() });
const { contextFor, openA2ui, openHtmx } = suite;

const CODE_MESSAGE = 'Use three capitals, a dash and four digits.';
const EMAIL_MESSAGE = 'Email must be an email address.';

/** Opens the question on surface `main` of a new conversation. */
async function ask(s: E2eServer): Promise<{ c: Conversation; client: ReturnType<E2eServer['client']> }> {
  const client = s.client();
  const c = await newConversation(s, client);
  const asked = await s.handle.conversations.applyHostAnswer(c.cid, {
    rawText: JSON.stringify({
      directives: [{
        type: 'ui.ask',
        payload: {
          title: 'Contact', prompt: 'Where can we reach you?', submit: 'Send',
          fields: [
            { name: 'email', label: 'Email', type: 'email', required: true },
            { name: 'code', label: 'Code', type: 'text', pattern: { regex: '[A-Z]{3}-[0-9]{4}', message: CODE_MESSAGE } },
          ],
        },
      }],
    }),
    tool: 'ask', label: 'test',
  });
  expect(asked.ok).toBe(true);
  return { c, client };
}

/** Every POST the page makes from now on. */
function posts(page: Page): Request[] {
  const seen: Request[] = [];
  page.on('request', (r) => { if (r.method() === 'POST') seen.push(r); });
  return seen;
}

async function committedOf(s: E2eServer, cid: string): Promise<Record<string, unknown>> {
  const conversation = await s.handle.conversations.get(cid);
  return conversation!.ir.surfaces.find((x) => x.id === 'main')!.data.committed;
}

describe('fields that check themselves, with the server\'s words', () => {
  it('the htmx page: the message before any request, under the field; a valid answer is applied', async () => {
    const s = suite.server;
    const { c, client } = await ask(s);
    const ctx = await contextFor(client);
    const page = await openHtmx(ctx, c);
    const form = page.locator('#surface-main form');
    await form.waitFor();
    const sent = posts(page);
    await form.getByLabel('Email').fill('not an address');
    await form.getByLabel('Code').fill('abc-12');
    await form.getByRole('button', { name: 'Send' }).click();
    await page.locator('#f-main-email-error', { hasText: EMAIL_MESSAGE }).waitFor();
    expect(await form.getByLabel('Email').evaluate((el: HTMLInputElement) => el.validationMessage)).toBe(EMAIL_MESSAGE);
    expect(await form.getByLabel('Code').evaluate((el: HTMLInputElement) => el.validationMessage)).toBe(CODE_MESSAGE);
    expect(await form.getByLabel('Email').getAttribute('aria-invalid')).toBe('true');
    await suite.shoot(page, 'field-checks-htmx');
    expect(sent).toEqual([]);
    // Mended as the person types: the message goes with the mistake.
    await form.getByLabel('Email').fill('ada@example.org');
    await expect.poll(() => page.locator('#f-main-email-error').count()).toBe(0);
    await form.getByLabel('Code').fill('ABC-1234');
    await form.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => committedOf(s, c.cid)).toEqual({ email: 'ada@example.org', code: 'ABC-1234' });
  });

  it('the official Lit v0.9 renderer: the message as the person types, Send disabled, no request; then applied', async () => {
    const s = suite.server;
    const { c, client } = await ask(s);
    const ctx = await contextFor(client);
    const page = await openA2ui(ctx, c, '?v=0.9');
    const exchanges = recordEvents(page, s, c);
    await expect.poll(() => textField(page, 'Email', '0.9').count()).toBe(1);
    await textField(page, 'Email', '0.9').fill('not an address');
    await textField(page, 'Code', '0.9').fill('abc-12');
    await page.getByText(EMAIL_MESSAGE, { exact: true }).waitFor();
    await page.getByText(CODE_MESSAGE, { exact: true }).waitFor();
    expect(await button(page, 'Send', '0.9').isDisabled()).toBe(true);
    await suite.shoot(page, 'field-checks-lit-v09');
    await button(page, 'Send', '0.9').click({ force: true });
    expect(exchanges).toEqual([]);
    await textField(page, 'Email', '0.9').fill('ada@example.org');
    await textField(page, 'Code', '0.9').fill('ABC-1234');
    await expect.poll(() => page.getByText(EMAIL_MESSAGE, { exact: true }).count()).toBe(0);
    await expect.poll(() => button(page, 'Send', '0.9').isDisabled()).toBe(false);
    await button(page, 'Send', '0.9').click();
    await expect.poll(() => exchanges.length).toBe(1);
    expect(exchanges[0]!.status).toBe(200);
    expect(await committedOf(s, c.cid)).toEqual({ email: 'ada@example.org', code: 'ABC-1234' });
  });

  it('a submit forged past the client: the server refuses it with the same words, and applies nothing', async () => {
    const s = suite.server;
    const { c, client } = await ask(s);
    const ctx = await contextFor(client);
    const page = await openA2ui(ctx, c, '?v=0.9');
    await expect.poll(() => textField(page, 'Email', '0.9').count()).toBe(1);
    const surface = (await s.handle.conversations.get(c.cid))!.ir.surfaces.find((x) => x.id === 'main')!;
    const before = (await s.handle.conversations.get(c.cid))!.version;
    // What the page's own fetch would send (the same session), with values its checks would never let go.
    const response = await client.request(`${c.a2ui}/events`, {
      method: 'POST', as: 'json', headers: { 'X-Surfacer-Client': 'a2ui', 'Idempotency-Key': 'f'.repeat(32) },
      json: {
        version: 'v0.9',
        action: {
          name: 'ask.submit', surfaceId: 'main--e0', sourceComponentId: 'main.a0-ask_submit.Button', timestamp: new Date().toISOString(),
          context: { email: 'ada@example.org', code: 'abc-12', nonce: surface.nonce, rev: surface.rev },
        },
      },
    });
    const answer = { status: response.status, body: await response.json() as Record<string, unknown> };
    expect(answer.status).toBe(422);
    expect(answer.body, JSON.stringify(answer.body)).toMatchObject({ code: 'ACTION_INPUT_INVALID', message: CODE_MESSAGE, pointer: '/code' });
    expect(String(answer.body['technical_detail'])).toContain('code (pattern)');
    expect(await committedOf(s, c.cid)).toEqual({});
    expect((await s.handle.conversations.get(c.cid))!.version).toBe(before);
  });
});
