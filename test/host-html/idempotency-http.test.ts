import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findSurface } from '../../src/ui-ir/index.ts';
import { HttpClient } from '../support/http-client.ts';
import { CHARACTER_VALUES, startHarness, type Harness, type Wiring } from './support/harness.ts';
import { formFields, openConversation, pageOf, parse, savedValue, sendMessage, submitForm, type OpenedConversation } from './support/page.ts';

const CODE = 'A2UI_C2S_IDEMPOTENCY_KEY_REUSED';
const MESSAGE = 'This was already submitted with different values, so nothing was changed. Please check the form and submit it again.';

// POST /c/{cid}/actions: the render's `_idem` is bound to the form as first sent. Real HTTP.
describe.each<Wiring>(['fixture', 'demo'])('HTML host: a reused _idem (%s wiring)', (wiring) => {
  let h: Harness;
  beforeAll(async () => { h = await startHarness({ wiring }); });
  afterAll(async () => { await h.close(); });

  /** A card saved once through `as`; returns the fields it was sent with (their _idem is now used). */
  async function savedCard(client: HttpClient, as: 'htmx' | 'browser' | 'json') {
    const c = await openConversation(client);
    await sendMessage(client, c, 'create a character card');
    const fields = { ...formFields(await pageOf(client, c), 'main'), ...CHARACTER_VALUES[wiring] };
    const first = await submitForm(client, c, fields, 'form.submit', as);
    expect(first.status).toBe(as === 'browser' ? 303 : 200);
    return { c, fields, first };
  }

  async function unchanged(c: OpenedConversation, fields: Record<string, string | string[]>, actions: number): Promise<void> {
    const ir = (await h.service.get(c.cid))!.ir;
    expect(findSurface(ir, 'main')!.rev).toBe(Number(fields['_rev']) + 1);
    expect(findSurface(ir, 'main')!.data.committed).toMatchObject({ name: 'Aria' });
    expect((await h.store.read(c.cid))!.filter((e) => e.type === 'action')).toHaveLength(actions);
  }

  it('JSON: the same form again answers the first answer; another body is the canonical 422 and applies nothing', async () => {
    const client = h.client();
    const { c, fields, first } = await savedCard(client, 'json');
    const firstBody = await first.json() as Record<string, unknown>;
    const same = await submitForm(client, c, fields, 'form.submit', 'json');
    expect(same.status).toBe(200);
    expect(await same.json()).toEqual({ ...firstBody, replayed: true });
    const changes: Array<Record<string, string>> = [
      { name: 'Brin' }, { _nonce: 'forged-nonce' }, { _rev: String(Number(fields['_rev']) + 1) },
    ];
    for (const changed of changes) {
      const refused = await submitForm(client, c, { ...fields, ...changed }, 'form.submit', 'json');
      expect(refused.status).toBe(422);
      expect(await refused.json()).toMatchObject({
        code: CODE, category: 'a2ui_c2s', severity: 'warning', recovery_path: 'fix_request', retryable: false, message: MESSAGE,
      });
    }
    await unchanged(c, fields, 1);
  });

  it('htmx: a double click replays; another body gets the current surface back with what was typed, which then saves', async () => {
    const client = h.client();
    const { c, fields } = await savedCard(client, 'htmx');
    const double = await submitForm(client, c, fields);
    expect(double.status).toBe(200);
    expect(await double.text()).toMatch(/Already done/);

    const refused = await submitForm(client, c, { ...fields, name: 'Brin' });
    expect(refused.status).toBe(422);
    expect(refused.headers.get('HX-Retarget')).toBe('#surface-main');
    expect(refused.headers.get('HX-Reswap')).toBe('outerHTML');
    const $r = parse(await refused.text());
    expect($r('section#surface-main').length).toBe(1);
    const alert = $r('#surface-main-alert .alert--warning');
    expect(alert.attr('data-code')).toBe(CODE);
    expect(alert.find('.alert__text').text()).toBe(MESSAGE);
    // What was typed, in the current rendering: a fresh rev and key, so sending it is a new request.
    const again = formFields($r, 'main');
    expect(again['name']).toBe('Brin');
    expect(again['_rev']).toBe(String(Number(fields['_rev']) + 1));
    expect(again['_idem']).not.toBe(fields['_idem']);
    await unchanged(c, fields, 1);

    const resent = await submitForm(client, c, again);
    expect(resent.status).toBe(200);
    expect(savedValue(parse(await resent.text()), 'main', 'name')).toBe('Brin');
  });

  it('without JavaScript: another body answers 422 with the page, the message in place and what was typed', async () => {
    const client = h.client();
    const { c, fields } = await savedCard(client, 'browser');
    const double = await submitForm(client, c, fields, 'form.submit', 'browser');
    expect(double.status).toBe(303);
    expect((await pageOf(client, c))('#alerts').text()).toMatch(/Already done/);

    const refused = await submitForm(client, c, { ...fields, name: 'Brin' }, 'form.submit', 'browser');
    expect(refused.status).toBe(422);
    expect(refused.headers.get('location')).toBeNull();
    const $page = parse(await refused.text());
    expect($page('#surface-main-alert .alert__text').text()).toBe(MESSAGE);
    expect($page('#message-form').length).toBe(1);
    const again = formFields($page, 'main');
    expect(again['name']).toBe('Brin');
    expect(again['_idem']).not.toBe(fields['_idem']);
    await unchanged(c, fields, 1);
    expect((await submitForm(client, c, again, 'form.submit', 'browser')).status).toBe(303);
    expect(savedValue(await pageOf(client, c), 'main', 'name')).toBe('Brin');
  });

  it('after a restart on the same log the key still refuses another body and replays its own', async () => {
    const client = h.client();
    const { c, fields, first } = await savedCard(client, 'json');
    const firstBody = await first.json() as Record<string, unknown>;
    const restarted = await startHarness({ wiring, store: h.store });
    try {
      const again = new HttpClient(restarted.url);
      for (const [name, value] of client.cookies) again.cookies.set(name, value);
      const refused = await submitForm(again, c, { ...fields, name: 'Brin' }, 'form.submit', 'json');
      expect(refused.status).toBe(422);
      expect(await refused.json()).toMatchObject({ code: CODE });
      const same = await submitForm(again, c, fields, 'form.submit', 'json');
      expect(same.status).toBe(200);
      expect(await same.json()).toEqual({ ...firstBody, replayed: true });
      const ir = (await restarted.service.get(c.cid))!.ir;
      expect(findSurface(ir, 'main')!.rev).toBe(Number(fields['_rev']) + 1);
      expect((await h.store.read(c.cid))!.filter((e) => e.type === 'action')).toHaveLength(1);
    } finally {
      await restarted.close();
    }
  });
});
