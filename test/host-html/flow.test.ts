import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHARACTER_VALUES, startHarness, type Harness, type Wiring } from './support/harness.ts';
import { formFields, openConversation, pageOf, parse, savedValue, sendMessage, submitForm } from './support/page.ts';

// The whole flow over real HTTP, against the test wiring and the real demo app.
describe.each<Wiring>(['fixture', 'demo'])('HTML host flow (%s wiring)', (wiring) => {
  let h: Harness;
  beforeAll(async () => { h = await startHarness({ wiring }); });
  afterAll(async () => { await h.close(); });

  it('htmx: message → form appears → submit → committed values shown', async () => {
    const client = h.client();
    const c = await openConversation(client);
    expect(c.$('.badge').text()).toMatch(/offline/i);
    expect(c.$('#surfaces section.surface').length).toBe(0);

    const turn = await sendMessage(client, c, 'create a character card');
    expect(turn.status).toBe(200);
    const $turn = parse(await turn.text());
    // Primary swap: a fresh message form; out of band: the new surface, transcript, status.
    expect($turn('#message-form textarea[name="text"]').text()).toBe('');
    expect($turn('[hx-swap-oob="beforeend:#surfaces"] section#surface-main').length).toBe(1);
    expect($turn('[hx-swap-oob="beforeend:#transcript"] li.entry--user').text()).toContain('create a character card');
    expect($turn('[hx-swap-oob="beforeend:#transcript"] li.entry--assistant').length).toBe(1);

    const fields = { ...formFields($turn, 'main'), ...CHARACTER_VALUES[wiring] };
    const submit = await submitForm(client, c, fields);
    expect(submit.status).toBe(200);
    const $s = parse(await submit.text());
    const section = $s('section#surface-main');
    expect(section.attr('hx-swap-oob')).toBeUndefined();
    expect(section.attr('data-rev')).toBe(String(Number(fields['_rev']) + 1));
    expect(savedValue($s, 'main', 'name')).toBe('Aria');
    expect($s('#status[hx-swap-oob]').text()).toMatch(/saved/i);
    expect(savedValue(await pageOf(client, c), 'main', 'name')).toBe('Aria');
  });

  it('without JavaScript: plain posts answer 303 and the page shows the result', async () => {
    const client = h.client();
    const c = await openConversation(client);
    const turn = await sendMessage(client, c, 'create a character card', 'browser');
    expect(turn.status).toBe(303);
    expect(turn.headers.get('location')).toBe(c.base);
    const $page = await pageOf(client, c);
    expect($page('#transcript li').length).toBeGreaterThanOrEqual(2);
    const fields = { ...formFields($page, 'main'), ...CHARACTER_VALUES[wiring] };
    const submit = await submitForm(client, c, fields, 'form.submit', 'browser');
    expect(submit.status).toBe(303);
    // The panel says it beside its buttons: the page opens there, with no flash saying it again.
    expect(submit.headers.get('location')).toBe(`${c.base}#surface-main-toast`);
    const $after = await pageOf(client, c);
    expect(savedValue($after, 'main', 'name')).toBe('Aria');
    expect($after('#surface-main-toast').text()).toMatch(/saved/i);
    expect($after('#alerts .alert').length).toBe(0);
  });

  it('JSON clients get JSON results', async () => {
    const client = h.client();
    const c = await openConversation(client);
    const turn = await client.post(`${c.base}/messages`, { _csrf: c.csrf, text: 'create a character card' }, { as: 'json' });
    expect(turn.status).toBe(200);
    const body = await turn.json() as { outcome: string; surfaces: Array<{ id: string }>; trace: { trace_version: number } };
    expect(body.outcome).toBe('applied');
    expect(body.surfaces.map((s) => s.id)).toContain('main');
    expect(body.trace.trace_version).toBe(1);
    const fields = { ...formFields(await pageOf(client, c), 'main'), ...CHARACTER_VALUES[wiring] };
    const submit = await submitForm(client, c, fields, 'form.submit', 'json');
    expect(submit.status).toBe(200);
    expect(await submit.json()).toMatchObject({ ok: true, replayed: false, surface: { id: 'main', rev: Number(fields['_rev']) + 1 } });
  });

  it('a double submit (same _idem) is applied once', async () => {
    const client = h.client();
    const c = await openConversation(client);
    await sendMessage(client, c, 'create a character card');
    const fields = { ...formFields(await pageOf(client, c), 'main'), ...CHARACTER_VALUES[wiring] };
    const [first, second] = await Promise.all([submitForm(client, c, fields), submitForm(client, c, fields)]);
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    const texts = [await first.text(), await second.text()];
    expect(texts.filter((t) => /Already done/.test(t)).length).toBe(1);
    const conversation = await h.service.get(c.cid);
    expect(conversation!.ir.surfaces[0]!.rev).toBe(Number(fields['_rev']) + 1);
    const actions = (await h.store.read(c.cid))!.filter((e) => e.type === 'action');
    expect(actions.length).toBe(1);
    // A third copy after the fact is still a replay, not a 409.
    const third = await submitForm(client, c, fields, 'form.submit', 'json');
    expect(await third.json()).toMatchObject({ ok: true, replayed: true });
  });

  it('a stale tab gets 409 with the message and a working regenerate button', async () => {
    const client = h.client();
    const c = await openConversation(client);
    await sendMessage(client, c, 'create a character card');
    const stale = { ...formFields(await pageOf(client, c), 'main'), ...CHARACTER_VALUES[wiring] };
    expect((await submitForm(client, c, stale)).status).toBe(200);

    // Same render, but a new idempotency key (a second tab typing again): rev is now old.
    const conflict = await submitForm(client, c, { ...stale, _idem: 'another-key-1' });
    expect(conflict.status).toBe(409);
    expect(conflict.headers.get('HX-Retarget')).toBe('#surface-main-alert');
    expect(conflict.headers.get('HX-Reswap')).toBe('innerHTML');
    const $err = parse(await conflict.text());
    expect($err('.alert__text').text()).toBe('UI is out of date. Please regenerate.');
    const regen = $err('form.regenerate');
    expect(regen.attr('hx-target')).toBe('#surface-main');
    const regenAction = regen.attr('action')!;
    expect(regenAction).toBe(`${c.base}/surfaces/main/regenerate`);

    const json = await submitForm(client, c, { ...stale, _idem: 'another-key-2' }, 'form.submit', 'json');
    expect(json.status).toBe(409);
    expect(await json.json()).toMatchObject({
      code: 'A2UI_C2S_SURFACE_STALE', category: 'a2ui_c2s', message: 'UI is out of date. Please regenerate.', recovery_path: 'regenerate',
    });

    const fresh = await client.post(regenAction, { _csrf: regen.find('input[name="_csrf"]').attr('value')! }, { as: 'htmx' });
    expect(fresh.status).toBe(200);
    const $fresh = parse(await fresh.text());
    expect($fresh('section#surface-main').attr('data-epoch')).toBe(String(Number(stale['_epoch']) + 1));
    const again = await submitForm(client, c, { ...formFields($fresh, 'main'), ...CHARACTER_VALUES[wiring], name: 'Brin' });
    expect(again.status).toBe(200);
    expect(savedValue(parse(await again.text()), 'main', 'name')).toBe('Brin');
  });

  // The field each wiring's card has besides `name`, free text, to see typed values survive.
  const TYPED: Record<Wiring, { key: string; value: string }> = {
    fixture: { key: 'bio', value: 'A bard who <sings> & "dances".' },
    demo: { key: 'personality', value: 'Curious, a bit <shy> & "quiet".' },
  };

  it('without JavaScript, a rejected submit answers with the page and keeps what was typed', async () => {
    const client = h.client();
    const c = await openConversation(client);
    await sendMessage(client, c, 'create a character card', 'browser');
    const page = await pageOf(client, c);
    const typed = TYPED[wiring];
    // The fixture's card also has a checkbox: a checked one is posted, and must come back checked.
    const extra: Record<string, string> = wiring === 'fixture' ? { public: 'true' } : {};
    const fields = { ...formFields(page, 'main'), ...CHARACTER_VALUES[wiring], ...extra, name: '', [typed.key]: typed.value };
    const rejected = await submitForm(client, c, fields, 'form.submit', 'browser');
    // 422 (the demo's validation) or 403 (the fixture's precondition): either way the page, no redirect.
    expect([403, 422]).toContain(rejected.status);
    expect(rejected.headers.get('location')).toBeNull();
    expect(rejected.headers.get('cache-control')).toBe('no-store');
    const $r = parse(await rejected.text());
    expect($r('#surface-main-alert .alert--error').text()).toMatch(/name/i);
    expect($r('#alerts .alert').length).toBe(0);
    // What was typed is in the form again, ready to fix and resend.
    const again = formFields($r, 'main');
    expect(again[typed.key]).toBe(typed.value);
    expect(again['name']).toBe('');
    if (wiring === 'fixture') expect(again['public']).toBe('true');
    expect(again['_rev']).toBe(fields['_rev']);
    expect(again['_csrf']).toBe(c.csrf);
    // The message form and the rest of the page are there too.
    expect($r('#message-form textarea[name="text"]').length).toBe(1);
    // Nothing was stored: a reload shows the draft as it was.
    expect(formFields(await pageOf(client, c), 'main')[typed.key]).toBe(formFields(page, 'main')[typed.key]);
    // Fixed and sent again from the returned page: saved.
    const fixed = await submitForm(client, c, { ...again, name: 'Aria' }, 'form.submit', 'browser');
    expect(fixed.status).toBe(303);
    expect(savedValue(await pageOf(client, c), 'main', 'name')).toBe('Aria');
  });

  it('a stale plain form post answers 409 with the typed values, the message and a regenerate button', async () => {
    const client = h.client();
    const c = await openConversation(client);
    await sendMessage(client, c, 'create a character card');
    const stale = { ...formFields(await pageOf(client, c), 'main'), ...CHARACTER_VALUES[wiring] };
    expect((await submitForm(client, c, stale, 'form.submit', 'browser')).status).toBe(303);
    const typed = TYPED[wiring];
    const conflict = await submitForm(client, c, { ...stale, _idem: 'other', name: 'Brin', [typed.key]: typed.value }, 'form.submit', 'browser');
    expect(conflict.status).toBe(409);
    const $page = parse(await conflict.text());
    expect($page('#surface-main-alert .alert__text').text()).toBe('UI is out of date. Please regenerate.');
    const values = formFields($page, 'main');
    expect(values['name']).toBe('Brin');
    expect(values[typed.key]).toBe(typed.value);
    const regen = $page('#surface-main-alert form.regenerate');
    expect(regen.length).toBe(1);
    const reset = await client.post(regen.attr('action')!, { _csrf: c.csrf }, { as: 'browser' });
    expect(reset.status).toBe(303);
    expect((await pageOf(client, c))('section#surface-main').attr('data-epoch')).toBe(String(Number(stale['_epoch']) + 1));
  });

  it('htmx and JSON rejections are unchanged (a fragment, the canonical object)', async () => {
    const client = h.client();
    const c = await openConversation(client);
    await sendMessage(client, c, 'create a character card');
    const fields = { ...formFields(await pageOf(client, c), 'main'), ...CHARACTER_VALUES[wiring], name: '' };
    const htmx = await submitForm(client, c, fields);
    expect([403, 422]).toContain(htmx.status);
    expect(htmx.headers.get('HX-Retarget')).toBe('#surface-main-alert');
    expect(parse(await htmx.text())('#message-form').length).toBe(0);
    const json = await submitForm(client, c, fields, 'form.submit', 'json');
    expect(json.status).toBe(htmx.status);
    expect(JSON.stringify(await json.json())).toMatch(/"code":.*name/i);
  });
});
