import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './support/harness.ts';
import { formFields, openConversation, pageOf, parse, sendMessage, submitForm } from './support/page.ts';

describe('HTML host security', () => {
  let h: Harness;
  beforeAll(async () => { h = await startHarness({ limits: { maxBodyBytes: 64 * 1024 } }); });
  afterAll(async () => { await h.close(); });

  it('sets a signed HttpOnly SameSite=Lax session cookie', async () => {
    const response = await h.client().get('/');
    const cookie = response.headers.getSetCookie().find((c) => c.startsWith('surfacer_sid='))!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).toMatch(/Path=\//);
    // hono signed cookies: value.signature
    expect(decodeURIComponent(cookie.split(';')[0]!.split('=').slice(1).join('='))).toMatch(/^[A-Za-z0-9_-]{32,}\.[A-Za-z0-9+/=]+$/);
  });

  it('a flash cookie never passes as a session: the signature covers the cookie name', async () => {
    const client = h.client();
    const c = await openConversation(client);
    await sendMessage(client, c, 'create a character card');
    // Regenerating a panel without JavaScript leaves a flash for the page it redirects to.
    const regenerated = await client.post(`${c.base}/surfaces/main/regenerate`, { _csrf: c.csrf }, { as: 'browser' });
    expect(regenerated.status).toBe(303);
    const flash = regenerated.headers.getSetCookie().find((line) => line.startsWith('surfacer_flash='));
    expect(flash).toBeDefined();
    const flashValue = flash!.split(';')[0]!.slice('surfacer_flash='.length);
    // Present the (validly signed) flash value as the session cookie.
    const forged = await fetch(`${h.url}/`, { headers: { cookie: `surfacer_sid=${flashValue}` }, redirect: 'manual' });
    expect(forged.status).toBe(303);
    // Refused as a session: the server starts a new one instead of adopting the forged id.
    expect(forged.headers.getSetCookie().some((line) => line.startsWith('surfacer_sid='))).toBe(true);
    const page = await fetch(new URL(forged.headers.get('location')!, h.url), { headers: { cookie: `surfacer_sid=${flashValue}` }, redirect: 'manual' });
    expect(page.status).toBe(404);
  });

  it('another session gets 404 for a conversation it does not own, exactly like a missing one', async () => {
    const owner = h.client();
    const c = await openConversation(owner);
    await sendMessage(owner, c, 'create a character card');
    const fields = formFields(await pageOf(owner, c), 'main');

    const other = h.client();
    const own = await openConversation(other);
    const missing = await other.get('/c/cDoesNotExist00');
    const missingBody = await missing.text();
    for (const path of [c.base, `${c.base}/trace`, `${c.base}/events`]) {
      const response = await other.get(path);
      expect(response.status, path).toBe(404);
      expect(await response.text()).toBe(missingBody);
    }
    const post = await other.post(`${c.base}/actions`, { ...fields, _csrf: own.csrf, _action: 'form.submit', name: 'Mallory' }, { as: 'json' });
    expect(post.status).toBe(404);
    expect(await post.json()).toMatchObject({ code: 'HTTP_NOT_FOUND' });
    const message = await other.post(`${c.base}/messages`, { _csrf: own.csrf, text: 'hi' }, { as: 'json' });
    expect(message.status).toBe(404);
    // A client without any session sees the same 404.
    expect((await h.client().get(c.base)).status).toBe(404);
    expect((await h.service.get(c.cid))!.ir.transcript.length).toBe(2);
  });

  it('rejects a foreign Origin with 403', async () => {
    const client = h.client();
    const c = await openConversation(client);
    const response = await client.post(`${c.base}/messages`, { _csrf: c.csrf, text: 'create a character card' }, { origin: 'https://evil.example', as: 'json' });
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ code: 'HTTP_ORIGIN_FORBIDDEN', category: 'session' });
    const noOrigin = await client.post(`${c.base}/messages`, { _csrf: c.csrf, text: 'hi' }, { origin: null });
    expect(noOrigin.status).toBe(403);
    expect((await h.service.get(c.cid))!.ir.transcript.length).toBe(0);
  });

  it('rejects a missing or wrong CSRF token with 403, for every content type', async () => {
    const client = h.client();
    const c = await openConversation(client);
    const attempts: Array<Promise<Response>> = [
      client.post(`${c.base}/messages`, { text: 'create a character card' }, { as: 'json' }),
      client.post(`${c.base}/messages`, { _csrf: 'x'.repeat(43), text: 'create a character card' }, { as: 'json' }),
      // JSON bodies pass hono/csrf (not a "simple" content type): the token check still applies.
      client.request(`${c.base}/messages`, { json: { text: 'create a character card' }, as: 'json', origin: null }),
      client.request(`${c.base}/messages`, { multipart: { text: 'create a character card' }, as: 'htmx' }),
      client.post(`${c.base}/messages/cancel`, {}, { as: 'json' }),
      client.post(`${c.base}/surfaces/main/regenerate`, {}, { as: 'json' }),
    ];
    for (const response of await Promise.all(attempts)) {
      expect(response.status).toBe(403);
      const text = await response.text();
      if (response.headers.get('content-type')?.includes('json')) expect(JSON.parse(text)).toMatchObject({ code: 'HTTP_CSRF_INVALID' });
    }
    const viaHeader = await client.request(`${c.base}/messages`, { json: { text: 'hello' }, as: 'json', headers: { 'X-CSRF-Token': c.csrf } });
    expect(viaHeader.status).toBe(200);
    expect((await h.service.get(c.cid))!.ir.transcript.length).toBe(2);
  });

  it('htmx error responses are fragments retargeted into an error region', async () => {
    const client = h.client();
    const c = await openConversation(client);
    const response = await client.post(`${c.base}/messages`, { text: 'hi' }, { as: 'htmx' });
    expect(response.status).toBe(403);
    expect(response.headers.get('HX-Retarget')).toBe('#alerts');
    expect(parse(await response.text())('.alert__text').text()).toMatch(/reload/i);
    const empty = await client.post(`${c.base}/messages`, { _csrf: c.csrf, text: '   ' }, { as: 'htmx' });
    expect(empty.status).toBe(400);
    expect(parse(await empty.text())('.alert__text').text()).toBe('Please type a message.');
  });

  it('refuses bodies over the limit with 413 and unknown content types with 415', async () => {
    const client = h.client();
    const c = await openConversation(client);
    const big = await client.post(`${c.base}/messages`, { _csrf: c.csrf, text: 'x'.repeat(70 * 1024) }, { as: 'json' });
    expect(big.status).toBe(413);
    expect(await big.json()).toMatchObject({ code: 'HTTP_PAYLOAD_TOO_LARGE' });
    const xml = await client.request(`${c.base}/messages`, { method: 'POST', headers: { 'content-type': 'application/xml', 'X-CSRF-Token': c.csrf }, as: 'json' });
    expect(xml.status).toBe(415);
  });

  it('sends a CSP allowing only our own scripts and styles, and no inline code in the page', async () => {
    const client = h.client();
    const c = await openConversation(client);
    await sendMessage(client, c, 'create a character card');
    const page = await client.get(c.base);
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    const $ = parse(await page.text());
    expect($('script:not([src])').length).toBe(0);
    expect($('style').length).toBe(0);
    expect($('[style]').length).toBe(0);
    expect($('*').filter((_, el) => Object.keys((el as { attribs?: Record<string, string> }).attribs ?? {}).some((a) => a.startsWith('on') || a.startsWith('hx-on'))).length).toBe(0);
    const config = JSON.parse($('meta[name="htmx-config"]').attr('content')!) as {
      includeIndicatorStyles: boolean; attributesToSettle: string[]; responseHandling: unknown[];
    };
    expect(config.includeIndicatorStyles).toBe(false);
    expect(config.attributesToSettle).not.toContain('style');
    expect(config.responseHandling).toContainEqual(expect.objectContaining({ code: '[45]..', swap: true }));
    for (const src of $('script[src]').map((_, el) => $(el).attr('src')).get()) {
      expect(src).toMatch(/^\/static\//);
      const asset = await client.get(src);
      expect(asset.status).toBe(200);
      expect(asset.headers.get('cache-control')).toContain('immutable');
    }
    const scripts = $('script[src]').map((_, el) => $(el).attr('src')).get();
    expect(scripts.slice(0, 2)).toEqual(['/static/htmx-org-2.0.11/htmx.min.js', '/static/htmx-ext-sse-2.2.4/sse.min.js']);
    // Our own behaviours (Enter sends, new panels scrolled into view), from a content-named file.
    expect(scripts.slice(2)).toEqual([expect.stringMatching(/^\/static\/app-[0-9a-f]{10}\/app\.js$/)]);
    const css = await client.get($('link[rel="stylesheet"]').attr('href')!);
    expect(css.headers.get('content-type')).toContain('text/css');
  });

  it('every input has a label and the page has a live status region', async () => {
    const client = h.client();
    const c = await openConversation(client);
    await sendMessage(client, c, 'create a character card');
    const $ = await pageOf(client, c);
    $('input:not([type="hidden"]), textarea, select').each((_, el) => {
      const id = $(el).attr('id');
      expect(id, $.html(el)).toBeTruthy();
      expect($(`label[for="${id}"]`).length + $(el).closest('label').length, $.html(el)).toBeGreaterThan(0);
    });
    expect($('#status[role="status"][aria-live="polite"]').length).toBe(1);
    expect($('#alerts[role="alert"]').length).toBe(1);
  });

  it('answers /healthz and unknown routes with canonical errors', async () => {
    const client = h.client();
    expect(await (await client.get('/healthz')).json()).toEqual({ ok: true, store: { ok: true, engine: 'local' } });
    const ready = await client.get('/readyz');
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ ok: true, draining: false, store: { ok: true, engine: 'local' }, planner: { label: expect.any(String) } });
    const missing = await client.get('/nope', { as: 'json' });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ code: 'HTTP_NOT_FOUND', category: 'http', retryable: false });
  });

  it('a stale form from a session cannot act on a rotated surface', async () => {
    const client = h.client();
    const c = await openConversation(client);
    await sendMessage(client, c, 'create a character card');
    const fields = formFields(await pageOf(client, c), 'main');
    const wrongNonce = await submitForm(client, c, { ...fields, _nonce: 'AAAAAAAAAAAAAAAAAAAAAA', name: 'x' }, 'form.submit', 'json');
    expect(wrongNonce.status).toBe(409);
    const forbidden = await submitForm(client, c, { ...fields, name: 'x' }, 'admin.delete_everything', 'json');
    expect(forbidden.status).toBe(403);
    expect(await forbidden.json()).toMatchObject({ code: 'A2UI_C2S_ACTION_FORBIDDEN' });
  });
});
