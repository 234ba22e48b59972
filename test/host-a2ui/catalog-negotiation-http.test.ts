import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASIC_CATALOG_ID } from '../../src/a2ui-v0_9-protocol/index.ts';
import { appCatalogSpecV08, STANDARD_CATALOG_ID, validateA2uiMessages, validateA2uiV09Messages } from '../../src/compiler/index.ts';
import { parseEventId } from '../../src/host-a2ui/index.ts';
import { findSurface } from '../../src/ui-ir/index.ts';
import type { SseConnection } from '../support/sse-client.ts';
import { newOracle, offer } from '../support/a2ui-v0_9-oracle.ts';
import { appOracle, createGalleryApp, GALLERY_CATALOG_ID, itemAction } from '../support/component-app.ts';
import { newConversation, postEvent, startE2e, stream, until, type Conversation, type E2eServer } from '../e2e/support/stack.ts';

/*
 * Catalogue negotiation on our own A2UI stream, over real HTTP (issue 22 item 3): a client that
 * advertises the app catalogue (`?catalog=<id>`) gets the app's component; one that advertises
 * only the basic catalogue, or nothing, gets its fallback; each is its own compilation with its
 * own event ids; the app's own page advertises the app catalogue; and an item action taken from
 * either rendering reaches the same handler with the same context.
 */
let s: E2eServer;
const open: SseConnection[] = [];
beforeAll(async () => { s = await startE2e({}, { app: createGalleryApp() }); });
afterAll(async () => {
  for (const conn of open.splice(0)) conn.close();
  await s.close();
});

const APP = `catalog=${encodeURIComponent(GALLERY_CATALOG_ID)}`;
const BASIC = `catalog=${encodeURIComponent(BASIC_CATALOG_ID)}`;

async function follow(c: Conversation, query: string): Promise<SseConnection> {
  const conn = await stream(s, c, {}, query);
  open.push(conn);
  expect(conn.response.status).toBe(200);
  return conn;
}

const hub = (version: '0.8' | '0.9', catalog: 'app' | 'basic') => s.handle.a2ui.wire(version, catalog).hub;
const data = (conn: SseConnection): Record<string, unknown>[] => conn.events.map((e) => JSON.parse(e.data) as Record<string, unknown>);
/** Every v0.9 component of a stream's updateComponents messages. */
const components09 = (messages: readonly Record<string, unknown>[]): Record<string, unknown>[] =>
  messages.flatMap((m) => ((m.updateComponents as { components?: Record<string, unknown>[] } | undefined)?.components ?? []));

async function gallery(): Promise<Conversation> {
  return newConversation(s, s.client(), 'show the gallery');
}

describe('catalogue negotiation on the A2UI stream', () => {
  it('v0.9: the app catalogue advertised → the component; only the basic one, or nothing → the fallback the official processor renders', async () => {
    const c = await gallery();
    const app = await follow(c, `?v=0.9&${APP}`);
    const basic = await follow(c, `?v=0.9&${BASIC}`);
    const silent = await follow(c, '?v=0.9');
    await until(app, hub('0.9', 'app').checkpoint(c.cid).id);
    await until(basic, hub('0.9', 'basic').checkpoint(c.cid).id);
    await until(silent, hub('0.9', 'basic').checkpoint(c.cid).id);

    const create = (conn: SseConnection) => data(conn).find((m) => m.createSurface !== undefined)!.createSurface as Record<string, unknown>;
    expect(create(app).catalogId).toBe(GALLERY_CATALOG_ID);
    expect(components09(data(app)).some((x) => x.component === 'CharacterGallery')).toBe(true);
    // A client that loads the catalogue we serve renders the app stream with the official processor.
    const served = await (await fetch(`${s.url}/a2ui/catalog/v0.9.json`)).json() as Record<string, unknown>;
    const oracle = appOracle(served);
    for (const message of data(app)) expect(offer(oracle, message)).toEqual({ ok: true });

    for (const conn of [basic, silent]) {
      expect(create(conn).catalogId).toBe(BASIC_CATALOG_ID);
      expect(components09(data(conn)).map((x) => x.component)).not.toContain('CharacterGallery');
      expect(components09(data(conn)).map((x) => x.component)).toContain('List');
      expect(validateA2uiV09Messages(data(conn))).toEqual([]);
      const oracle = newOracle();
      for (const message of data(conn)) expect(offer(oracle, message)).toEqual({ ok: true });
    }
    // Two compilations, two streams of one log: the app catalogue's ids end in `a`.
    const [pa, pb] = [app, basic].map((conn) => parseEventId(conn.events.at(-1)!.lastEventId)!);
    expect(pa!.stream).toBe(`${pb!.stream}a`);
    expect(pa!.version).toBe(pb!.version);
  });

  it('v0.8 too: beginRendering names the app catalogue for its clients, the standard one (or none) for the others', async () => {
    const c = await gallery();
    const app = await follow(c, `?${APP}`);
    const basic = await follow(c, `?catalog=${encodeURIComponent(STANDARD_CATALOG_ID)}`);
    await until(app, hub('0.8', 'app').checkpoint(c.cid).id);
    await until(basic, hub('0.8', 'basic').checkpoint(c.cid).id);
    const begin = (conn: SseConnection) => data(conn).find((m) => m.beginRendering !== undefined)!.beginRendering as Record<string, unknown>;
    expect(begin(app).catalogId).toBe(GALLERY_CATALOG_ID);
    expect(JSON.stringify(data(app))).toContain('"CharacterGallery"');
    // Valid against the app catalogue (its v0.8 encoding of the components' zod schemas).
    const registry = createGalleryApp().components!;
    expect(validateA2uiMessages(data(app), { appCatalog: appCatalogSpecV08(registry, GALLERY_CATALOG_ID) })).toEqual([]);
    expect(begin(basic).catalogId ?? STANDARD_CATALOG_ID).toBe(STANDARD_CATALOG_ID);
    expect(JSON.stringify(data(basic))).not.toContain('"CharacterGallery"');
    expect(validateA2uiMessages(data(basic))).toEqual([]);
  });

  it('an id of one catalogue never resumes the other: the client is re-initialised', async () => {
    const c = await gallery();
    const app = await follow(c, `?v=0.9&${APP}`);
    await until(app, hub('0.9', 'app').checkpoint(c.cid).id);
    const last = app.events.at(-1)!.lastEventId;
    const switched = await follow(c, `?v=0.9&${BASIC}`);
    const resumed = await stream(s, c, { 'Last-Event-ID': last }, `?v=0.9&${BASIC}`);
    open.push(resumed);
    await until(switched, hub('0.9', 'basic').checkpoint(c.cid).id);
    await until(resumed, hub('0.9', 'basic').checkpoint(c.cid).id);
    // A full init (deleteSurface of what it may hold, then createSurface), never a resume from the app stream.
    expect(data(resumed).some((m) => m.createSurface !== undefined)).toBe(true);
    const same = await stream(s, c, { 'Last-Event-ID': last }, `?v=0.9&${APP}`);
    open.push(same);
    await new Promise((r) => setTimeout(r, 200));
    expect(data(same).some((m) => m.createSurface !== undefined)).toBe(false);
  });

  it('a page asked with catalog params passes them on to its stream (e.g. to see the fallbacks)', async () => {
    // Without them the app's own page advertises the app catalogue when its client holds the
    // app's elements (the page clients' business: pageStreamUrl, and the page tests).
    const client = s.client();
    const c = await newConversation(s, client, 'show the gallery');
    const fallback = await (await client.get(`${c.a2ui}?v=0.9&${BASIC}`)).text();
    expect(fallback).toContain(`data-stream-url="${c.a2ui}/stream?v=0.9&amp;${BASIC}"`);
    const v08 = await (await client.get(`${c.a2ui}?${APP}`)).text();
    expect(v08).toContain(`data-stream-url="${c.a2ui}/stream?${APP}"`);
  });

  it('the same item action from the component and from its fallback: the same handler, the same context', async () => {
    const results: unknown[] = [];
    for (const query of [`?v=0.9&${APP}`, `?v=0.9&${BASIC}`]) {
      const c = await gallery();
      const conn = await follow(c, query);
      const catalog = query.includes(encodeURIComponent(GALLERY_CATALOG_ID)) ? 'app' : 'basic';
      await until(conn, hub('0.9', catalog).checkpoint(c.cid).id);
      const action = itemAction(data(conn), 'kestrel');
      expect(action, `an action for item kestrel in the ${catalog} stream`).toBeDefined();
      const res = await postEvent(s, c, { version: 'v0.9', action: { ...action, timestamp: new Date().toISOString() } }, { 'Idempotency-Key': `k-${catalog}` });
      expect(res.status).toBe(200);
      const ir = (await s.handle.conversations.get(c.cid))!.ir;
      results.push({ toast: res.body.toast, draft: findSurface(ir, 'main')?.data.draft.name, action: res.body.action });
    }
    expect(results[0]).toEqual({ toast: { level: 'success', text: 'Opened Captain Kestrel in a character card' }, draft: 'Captain Kestrel', action: 'character.use' });
    expect(results[1]).toEqual(results[0]);
  });

  it('the htmx page is the app\'s own: it always shows the component\'s HTML rendering', async () => {
    const client = s.client();
    const c = await newConversation(s, client, 'show the gallery');
    const html = await (await client.get(c.base)).text();
    expect(html).toContain('<section class="gallery"><h3>Pick a character</h3>');
    expect(html).toContain('<li>Captain Kestrel</li>');
  });

  it('fuzz: whatever `catalog` parameters a snapshot names, it is 200 with the basic catalogue unless one of them is exactly the app\'s', async () => {
    const c = await gallery();
    const value = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.constantFrom('', GALLERY_CATALOG_ID, `${GALLERY_CATALOG_ID}/`, GALLERY_CATALOG_ID.toUpperCase(), BASIC_CATALOG_ID, '__proto__', 'x'.repeat(3000), '%00'),
    );
    await fc.assert(fc.asyncProperty(fc.array(value, { maxLength: 5 }), async (values) => {
      const query = new URLSearchParams([['v', '0.9'], ...values.map((v): [string, string] => ['catalog', v])]).toString();
      const res = await fetch(`${s.url}${c.a2ui}/snapshot.jsonl?${query}`, { headers: { Authorization: `Bearer ${c.token}` } });
      expect(res.status).toBe(200);
      const lines = (await res.text()).trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      const create = lines.find((m) => m.createSurface !== undefined)!.createSurface as { catalogId: string };
      expect(create.catalogId).toBe(values.slice(0, 32).includes(GALLERY_CATALOG_ID) ? GALLERY_CATALOG_ID : BASIC_CATALOG_ID);
    }), { numRuns: 40 });
  });
});
