import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileConversationToHtml, idempotencyKey, itemIdempotencyKey } from '../../src/compiler/html/index.ts';
import { findSurface } from '../../src/ui-ir/index.ts';
import type { HttpClient } from '../support/http-client.ts';
import { CHARACTER_VALUES, startHarness, type Harness, type Wiring } from './support/harness.ts';
import { formFields, openConversation, pageOf, parse, savedValue, sendMessage, submitForm, type Doc, type OpenedConversation } from './support/page.ts';

const STALE = 'A2UI_C2S_SURFACE_STALE';

/** The page id a page load drew (its events URL carries it). */
function pageIdOf($: Doc): string {
  const url = new URL($('main[sse-connect]').attr('sse-connect')!, 'http://x');
  return url.searchParams.get('page')!;
}

/**
 * Two tabs = two page loads of one conversation, over real HTTP. An `_idem` names one rendering:
 * the second tab's submit of a panel the first already applied is stale (409 with regenerate),
 * while the same request from the same rendering is a retry and replays its first answer.
 */
describe.each<Wiring>(['fixture', 'demo'])('HTML host: a stale second tab (%s wiring)', (wiring) => {
  let h: Harness;
  beforeAll(async () => { h = await startHarness({ wiring }); });
  afterAll(async () => { await h.close(); });

  async function twoTabs(client: HttpClient): Promise<{ c: OpenedConversation; a: Doc; b: Doc }> {
    const c = await openConversation(client);
    expect((await sendMessage(client, c, 'create a character card')).status).toBe(200);
    return { c, a: await pageOf(client, c), b: await pageOf(client, c) };
  }

  it('each page load is its own rendering: same panel state, different keys', async () => {
    const { a, b } = await twoTabs(h.client());
    const fa = formFields(a, 'main');
    const fb = formFields(b, 'main');
    expect(fa['_idem']).not.toBe(fb['_idem']);
    const rest = (f: Record<string, unknown>) => { const { _idem: _, ...others } = f; return others; };
    expect(rest(fa)).toEqual(rest(fb));
    expect(pageIdOf(a)).not.toBe(pageIdOf(b));
  });

  for (const as of ['htmx', 'json'] as const) {
    it(`${as}: tab B's submit after tab A's is 409 with regenerate; tab A's retry replays`, async () => {
      const client = h.client();
      const { c, a, b } = await twoTabs(client);
      const fa = { ...formFields(a, 'main'), ...CHARACTER_VALUES[wiring] };
      const first = await submitForm(client, c, fa, 'form.submit', as);
      expect(first.status).toBe(200);
      const firstBody = as === 'json' ? await first.json() as Record<string, unknown> : await first.text();

      // The same request from the same rendering: a retry, answered as the first time.
      const retry = await submitForm(client, c, fa, 'form.submit', as);
      expect(retry.status).toBe(200);
      if (as === 'json') expect(await retry.json()).toEqual({ ...(firstBody as object), replayed: true });
      else expect(await retry.text()).toMatch(/Already done/);

      // Tab B, other values and the very same values: both stale, neither applied.
      for (const values of [{ ...CHARACTER_VALUES[wiring], name: 'Brin' }, CHARACTER_VALUES[wiring]]) {
        const stale = await submitForm(client, c, { ...formFields(b, 'main'), ...values }, 'form.submit', as);
        expect(stale.status).toBe(409);
        if (as === 'json') {
          expect(await stale.json()).toMatchObject({ code: STALE, recovery_path: 'regenerate' });
        } else {
          const $s = parse(await stale.text());
          expect($s('.alert').attr('data-code')).toBe(STALE);
          expect($s('.alert__text').text()).toBe('UI is out of date. Please regenerate.');
          expect($s('form.regenerate, form[action$="/surfaces/main/regenerate"]').length).toBe(1);
          expect(stale.headers.get('HX-Retarget')).toBe('#surface-main-alert');
        }
      }
      const ir = (await h.service.get(c.cid))!.ir;
      expect(findSurface(ir, 'main')!.data.committed).toMatchObject({ name: 'Aria' });
      expect((await h.store.read(c.cid))!.filter((e) => e.type === 'action')).toHaveLength(1);

      // Regenerate from tab B, then its submit is a new request that applies.
      const regen = await client.post(`${c.base}/surfaces/main/regenerate`, { _csrf: c.csrf }, { as: 'htmx' });
      expect(regen.status).toBe(200);
      const fresh = formFields(parse(await regen.text()), 'main');
      const saved = await submitForm(client, c, { ...fresh, ...CHARACTER_VALUES[wiring], name: 'Brin' });
      expect(saved.status).toBe(200);
      expect(savedValue(parse(await saved.text()), 'main', 'name')).toBe('Brin');
    });
  }

  it('without JavaScript: tab B gets the page back (409) with the stale alert, its regenerate button and what it typed', async () => {
    const client = h.client();
    const { c, a, b } = await twoTabs(client);
    expect((await submitForm(client, c, { ...formFields(a, 'main'), ...CHARACTER_VALUES[wiring] }, 'form.submit', 'browser')).status).toBe(303);
    const stale = await submitForm(client, c, { ...formFields(b, 'main'), ...CHARACTER_VALUES[wiring], name: 'Brin' }, 'form.submit', 'browser');
    expect(stale.status).toBe(409);
    const $page = parse(await stale.text());
    expect($page('#surface-main-alert .alert').attr('data-code')).toBe(STALE);
    expect($page('#surface-main-alert form[action$="/surfaces/main/regenerate"]').length).toBe(1);
    expect(formFields($page, 'main')['name']).toBe('Brin');
    expect(savedValue(await pageOf(client, c), 'main', 'name')).toBe('Aria');
  });

  it('keys are a pure function of the IR and the page id the host drew (a replayed log renders the same bytes)', async () => {
    const client = h.client();
    const { c, a, b } = await twoTabs(client);
    const ir = (await h.service.get(c.cid))!.ir;
    for (const page of [a, b]) {
      expect(formFields(page, 'main')['_idem']).toBe(idempotencyKey(c.cid, findSurface(ir, 'main')!, pageIdOf(page)));
    }
    // Without a rendering id (CLI, replay) the output depends on the IR alone.
    expect(compileConversationToHtml(ir).html).toBe(compileConversationToHtml(structuredClone(ir)).html);
    expect(compileConversationToHtml(ir).html).toContain(idempotencyKey(c.cid, findSurface(ir, 'main')!));
  });
});

describe('HTML host: the page ids come from the injected token source', () => {
  it('two hosts fed the same tokens render byte-identical pages from the same log, item forms included', async () => {
    const tokens = () => { let n = 0; return () => `tok${String(n++).padStart(9, '0')}`; };
    const first = await startHarness({ wiring: 'demo' });
    const hosts: Harness[] = [];
    try {
      const client = first.client();
      const c = await openConversation(client);
      await sendMessage(client, c, 'show me sample characters');
      const pages: string[] = [];
      for (let i = 0; i < 2; i++) {
        const host = await startHarness({ wiring: 'demo', store: first.store, randomToken: tokens() });
        hosts.push(host);
        const other = host.client();
        for (const [name, value] of client.cookies) other.cookies.set(name, value);
        const page = await other.get(c.base);
        expect(page.status).toBe(200);
        pages.push(await page.text());
      }
      expect(pages[1]).toBe(pages[0]);
      const $ = parse(pages[0]!);
      expect(pageIdOf($)).toBe('tok000000000');
      const ir = (await hosts[0]!.service.get(c.cid))!.ir;
      const item = $('form.surface__item-form').first();
      expect(item.length).toBe(1);
      const surface = findSurface(ir, item.find('input[name="_surface"]').attr('value')!)!;
      expect(item.find('input[name="_idem"]').attr('value')).toBe(itemIdempotencyKey(
        c.cid, surface, item.find('input[name="list"]').attr('value')!, item.find('input[name="item"]').attr('value')!, pageIdOf($),
      ));
    } finally {
      for (const host of hosts) await host.close();
      await first.close();
    }
  });
});
