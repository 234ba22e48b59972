import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TraceSchema } from '../../src/conversation/index.ts';
import type { HttpClient } from '../support/http-client.ts';
import { startHarness, type Harness } from './support/harness.ts';
import { holdingContinuations } from './support/holding-planner.ts';
import { formFields, openConversation, pageOf, parse, sendMessage, submitForm, type OpenedConversation } from './support/page.ts';

/** "ask me something" → the clarifier's form fields, "persona" chosen. */
async function clarifier(client: HttpClient, c: OpenedConversation): Promise<Record<string, string | string[]>> {
  const turn = await sendMessage(client, c, 'ask me something');
  expect(turn.status).toBe(200);
  const $ = parse(await turn.text());
  expect($('section#surface-main').attr('data-template')).toBe('ask');
  return { ...formFields($, 'main'), goal: 'persona', details: 'named Kim' };
}

async function traces(client: HttpClient, c: OpenedConversation) {
  const body = await (await client.get(`${c.base}/trace`, { as: 'json' })).json() as { traces: unknown[] };
  return body.traces.map((t) => TraceSchema.parse(t));
}

describe('an action that continues the conversation, on the htmx host', () => {
  let h: Harness;
  const planner = holdingContinuations();
  beforeAll(async () => { h = await startHarness({ wiring: 'demo', planner }); });
  afterAll(async () => { await h.close(); });

  it('htmx: choosing "persona" and pressing Continue opens the persona form in the same response, without typing', async () => {
    const client = h.client();
    const c = await openConversation(client);
    const response = await submitForm(client, c, await clarifier(client, c), 'ask.submit');
    expect(response.status).toBe(200);
    const $ = parse(await response.text());
    const form = $('section#surface-main');
    expect(form.attr('data-template')).toBe('persona');
    expect(form.find('input[name="display_name"]').attr('value')).toBe('Kim');
    // The answers once (the action's entry), then the assistant's reply.
    const added = $('[hx-swap-oob="beforeend:#transcript"] li');
    expect(added.map((_, li) => $(li).attr('class')).get()).toEqual(['entry entry--user', 'entry entry--assistant']);
    expect(added.first().text()).toContain('I want to edit: persona');
    expect($('#status[hx-swap-oob]').text()).toBe('The assistant replied.');
    const [, continued] = await traces(client, c);
    expect(continued).toMatchObject({ outcome: 'applied', continuation: { action: 'ask.submit', surface_id: 'main' }, llm: { offline: true } });
  });

  it('without JavaScript: the post waits for the continuation, then 303; the page shows the persona form', async () => {
    const client = h.client();
    const c = await openConversation(client);
    const response = await submitForm(client, c, await clarifier(client, c), 'ask.submit', 'browser');
    expect(response.status).toBe(303);
    const $ = await pageOf(client, c);
    expect($('section#surface-main').attr('data-template')).toBe('persona');
    expect($('#transcript li').length).toBe(4);
  });

  it('JSON clients get the action and its continuation', async () => {
    const client = h.client();
    const c = await openConversation(client);
    const response = await submitForm(client, c, await clarifier(client, c), 'ask.submit', 'json');
    const body = await response.json() as Record<string, unknown>;
    expect(body).toMatchObject({
      ok: true, replayed: false, action: 'ask.submit', toast: { text: 'Thanks, answers sent' },
      // The clarifier's surface id holds the persona form now (a new rendering: the next epoch).
      continuation: { ok: true, outcome: 'applied', surfaces: [{ id: 'main', epoch: 1, rev: 0, lifecycle: 'editing' }] },
    });
    expect((await pageOf(client, c))('section#surface-main').attr('data-template')).toBe('persona');
  });

  it('cancel during the continuation leaves the surfaces as they were after the action; the cancelled turn is traced', async () => {
    const client = h.client();
    const c = await openConversation(client);
    const fields = await clarifier(client, c);
    planner.hold = true;
    try {
      const held = planner.held;
      const running = submitForm(client, c, fields, 'ask.submit');
      await waitFor(async () => planner.held > held && (await h.service.get(c.cid))!.busy);
      const cancel = await client.post(`${c.base}/messages/cancel`, { _csrf: c.csrf }, { as: 'htmx' });
      expect(cancel.status).toBe(204);
      const response = await running;
      expect(response.status).toBe(200);
      const $ = parse(await response.text());
      expect($('section#surface-main').is('[hidden]')).toBe(true);
      expect($('#status[hx-swap-oob]').text()).toBe('Stopped. Your answers were saved; the assistant did not continue.');
    } finally {
      planner.hold = false;
    }
    const $page = await pageOf(client, c);
    expect($page('#surfaces section.surface:not([hidden])').length).toBe(0);
    expect($page('#transcript li').last().text()).toContain('I want to edit: persona');
    const last = (await traces(client, c)).at(-1)!;
    expect(last).toMatchObject({ outcome: 'cancelled', continuation: { action: 'ask.submit' } });
  });

  it('a double submit (the same form twice at once) runs one continuation', async () => {
    const client = h.client();
    const c = await openConversation(client);
    const fields = await clarifier(client, c);
    const [a, b] = await Promise.all([submitForm(client, c, fields, 'ask.submit', 'json'), submitForm(client, c, fields, 'ask.submit', 'json')]);
    const bodies = await Promise.all([a.json(), b.json()]) as Array<{ replayed: boolean; continuation?: unknown }>;
    expect(bodies.map((x) => x.replayed).sort()).toEqual([false, true]);
    expect(bodies.filter((x) => x.continuation !== undefined)).toHaveLength(1);
    // Submitted again under a new key: the clarifier is gone, so it is stale and nothing continues.
    const again = await submitForm(client, c, { ...fields, _idem: 'another-key-123' }, 'ask.submit', 'json');
    expect(again.status).toBe(409);
    expect((await traces(client, c)).filter((t) => t.continuation !== undefined)).toHaveLength(1);
  });
});

async function waitFor(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
