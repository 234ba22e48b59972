import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASIC_CATALOG_ID } from '../../src/a2ui-v0_9-protocol/index.ts';
import { STANDARD_CATALOG_ID } from '../../src/compiler/index.ts';
import { createDemoApp } from '../../src/app/index.ts';
import { isErrorCode } from '../../src/errors/index.ts';
import { createGalleryApp, GALLERY_CATALOG_ID } from '../support/component-app.ts';
import { newConversation, startE2e, type E2eServer } from '../e2e/support/stack.ts';

/*
 * The catalogue routes over real HTTP: public (a catalogue describes components, never a
 * conversation: no session, no token), cacheable (ETag, 304), the same bytes for everyone; the
 * conversation routes beside them still need their owner or token, whatever `catalog` a request
 * names; and a fuzz of paths, queries and headers never gets a 5xx or a non-canonical error.
 */
let app: E2eServer;
let plain: E2eServer;
beforeAll(async () => {
  app = await startE2e({}, { app: createGalleryApp() });
  // An app without components of its own: the demo without its PortraitCard.
  const { components: _components, catalog: _catalog, ...bare } = createDemoApp();
  plain = await startE2e({}, { app: bare });
});
afterAll(async () => {
  await app.close();
  await plain.close();
});

const PATHS = ['/a2ui/catalog/v0.9.json', '/a2ui/catalog/v0.8.json', '/a2ui/capabilities.json'] as const;

describe('GET /a2ui/catalog/… and /a2ui/capabilities.json', () => {
  it('need no session and no token; cacheable, with an ETag that answers 304; no cookie is set', async () => {
    for (const path of PATHS) {
      const res = await fetch(`${app.url}${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('public, max-age=300');
      expect(res.headers.get('set-cookie')).toBeNull();
      const etag = res.headers.get('etag')!;
      expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
      const body = await res.text();
      // With credentials of any kind: the same document.
      const withJunk = await fetch(`${app.url}${path}`, { headers: { Authorization: 'Bearer nope', Cookie: 'sid=forged' } });
      expect(await withJunk.text()).toBe(body);
      const again = await fetch(`${app.url}${path}`, { headers: { 'If-None-Match': etag } });
      expect(again.status).toBe(304);
      expect(await again.text()).toBe('');
    }
  });

  it('capabilities: the app catalogue first, then the basic one, per version; no inline catalogues', async () => {
    expect(await (await fetch(`${app.url}/a2ui/capabilities.json`)).json()).toEqual({
      'v0.8': { supportedCatalogIds: [GALLERY_CATALOG_ID, STANDARD_CATALOG_ID], acceptsInlineCatalogs: false },
      'v0.9': { supportedCatalogIds: [GALLERY_CATALOG_ID, BASIC_CATALOG_ID], acceptsInlineCatalogs: false },
    });
    expect(await (await fetch(`${plain.url}/a2ui/capabilities.json`)).json()).toEqual({
      'v0.8': { supportedCatalogIds: [STANDARD_CATALOG_ID], acceptsInlineCatalogs: false },
      'v0.9': { supportedCatalogIds: [BASIC_CATALOG_ID], acceptsInlineCatalogs: false },
    });
  });

  it('the v0.9 and v0.8 catalogues name the app catalogue and hold the basic components and the app\'s; an app without components has none (404)', async () => {
    const doc = await (await fetch(`${app.url}/a2ui/catalog/v0.9.json`)).json() as { catalogId: string; components: Record<string, unknown> };
    expect(doc.catalogId).toBe(GALLERY_CATALOG_ID);
    expect(Object.keys(doc.components)).toEqual(expect.arrayContaining(['Text', 'List', 'Button', 'CharacterGallery']));
    const v08 = await (await fetch(`${app.url}/a2ui/catalog/v0.8.json`)).json() as { catalogId: string; components: Record<string, unknown> };
    expect(v08.catalogId).toBe(GALLERY_CATALOG_ID);
    expect(Object.keys(v08.components)).toEqual(expect.arrayContaining(['Text', 'List', 'Button', 'CharacterGallery']));
    for (const path of ['/a2ui/catalog/v0.9.json', '/a2ui/catalog/v0.8.json']) {
      const res = await fetch(`${plain.url}${path}`);
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ code: 'HTTP_NOT_FOUND', category: 'http' });
    }
  });

  it('the conversation routes still need their owner or token, whatever catalogue a request names', async () => {
    const c = await newConversation(app, app.client(), 'show the gallery');
    const query = `?v=0.9&catalog=${encodeURIComponent(GALLERY_CATALOG_ID)}`;
    for (const path of [`${c.a2ui}/stream${query}`, `${c.a2ui}/snapshot.jsonl${query}`, `${c.a2ui}${query}`]) {
      expect((await fetch(`${app.url}${path}`)).status, path).toBe(404);
      expect((await fetch(`${app.url}${path}`, { headers: { Authorization: 'Bearer not-the-token' } })).status, path).toBe(404);
      // Another visitor's session is no owner either.
      expect((await app.client().get(path)).status, path).toBe(404);
    }
    const ok = await fetch(`${app.url}${c.a2ui}/snapshot.jsonl${query}`, { headers: { Authorization: `Bearer ${c.token}` } });
    expect(ok.status).toBe(200);
    await ok.arrayBuffer();
  });

  it('fuzz: paths, queries and headers around the catalogue routes never give a 5xx; a refusal is canonical', async () => {
    const bodies = new Map<string, string>();
    for (const path of PATHS) bodies.set(path, await (await fetch(`${app.url}${path}`)).text());
    const junk = fc.oneof(
      fc.string({ maxLength: 30 }),
      fc.constantFrom('', '..', '%2e%2e', '__proto__', 'constructor', '%00', '🙂', 'v0.9.json/..', 'v1.0.json', 'V0.9.JSON'),
    );
    const request = fc.record({
      base: fc.constantFrom(...PATHS, '/a2ui/catalog/', '/a2ui/catalog', '/a2ui/catalog.json'),
      suffix: fc.option(junk.map(encodeURIComponent), { nil: undefined }),
      query: fc.array(fc.tuple(fc.constantFrom('catalog', 'v', 'token', '__proto__', 'x'), junk), { maxLength: 4 }),
      headers: fc.record({
        'if-none-match': fc.option(junk.map((j) => j.replace(/[^\x20-\x7e]/g, '')), { nil: undefined }),
        authorization: fc.option(fc.constantFrom('Bearer x', 'Basic Zm9vOmJhcg==', 'Bearer '), { nil: undefined }),
      }, { requiredKeys: [] }),
      method: fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'DELETE'),
    });
    await fc.assert(fc.asyncProperty(request, async (r) => {
      const path = r.suffix === undefined ? r.base : `${r.base}/${r.suffix}`;
      const query = new URLSearchParams(r.query).toString();
      // Asking for JSON: the app's not-found page answers a browser with HTML, a program with the canonical JSON.
      const headers = { Accept: 'application/json', ...Object.fromEntries(Object.entries(r.headers).filter(([, v]) => v !== undefined)) as Record<string, string> };
      const res = await fetch(`${app.url}${path}${query === '' ? '' : `?${query}`}`, { method: r.method, headers });
      const text = await res.text();
      expect(res.status, `${r.method} ${path}`).toBeLessThan(500);
      if (res.status === 200 && r.method === 'GET') {
        expect(text).toBe(bodies.get(new URL(res.url).pathname) ?? 'a catalogue path');
      } else if (res.status >= 400 && r.method !== 'HEAD') {
        const body = JSON.parse(text) as { code?: string };
        expect(isErrorCode(body.code ?? ""), text.slice(0, 200)).toBe(true);
      }
    }), { numRuns: 150 });
  });
});
