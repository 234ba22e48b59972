import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupportDeskApp } from '../../examples/support-desk/app.ts';
import { componentClass } from '../../src/app-kit/index.ts';
import { createDemoApp, PortraitCard } from '../../src/app/index.ts';
import type { AppDefinition } from '../../src/conversation/index.ts';
import { createMemoryStore } from '../../src/conversation/index.ts';
import { isErrorCode } from '../../src/errors/index.ts';
import { createApp, createConversationStack, startServer, type HostApp, type RunningServer } from '../../src/host-html/index.ts';
import { createSeededSource } from '../../src/ui-ir/index.ts';
import { HttpClient } from '../support/http-client.ts';
import { startHarness } from './support/harness.ts';
import { openConversation, parse, sendMessage, type Doc } from './support/page.ts';

/*
 * An app's component stylesheets on the htmx page (ComponentDefinition.css): one file of our own
 * origin, linked after the page's own CSS, under a URL that names its content, so the page's CSP
 * (style-src 'self', nothing inline) admits it and it may be cached for a year.
 */
const STYLESHEET = /^\/static\/components-([0-9a-f]{10})\/components\.css$/;

interface Running { host: HostApp; server: RunningServer; client(): HttpClient }

async function start(app: AppDefinition): Promise<Running> {
  const service = createConversationStack({ app, store: createMemoryStore(), entropy: createSeededSource('component-styles') });
  const host = createApp({ app, conversations: service, sessionSecret: 'component-styles-secret-0123456789' });
  const server = await startServer(host, { port: 0 });
  return { host, server, client: () => new HttpClient(server.url) };
}

/** The page after `text`, and the href of each stylesheet it links, in order. */
async function pageAfter(client: HttpClient, text: string): Promise<{ $: Doc; csp: string; sheets: string[] }> {
  const c = await openConversation(client);
  expect((await sendMessage(client, c, text)).status).toBe(200);
  const page = await client.get(c.base);
  const $ = parse(await page.text());
  return { $, csp: page.headers.get('content-security-policy') ?? '', sheets: $('link[rel="stylesheet"]').map((_, el) => $(el).attr('href')).get() };
}

/** The class names used in `$`'s markup under `selector`. */
function classesIn($: Doc, selector: string): Set<string> {
  const found = new Set<string>();
  $(selector).find('*').addBack().each((_, el) => { for (const name of ($(el).attr('class') ?? '').split(/\s+/)) if (name) found.add(name); });
  return found;
}

describe('component stylesheets on the htmx page', () => {
  let demo: Running;
  let desk: Running;
  beforeAll(async () => { [demo, desk] = await Promise.all([start(createDemoApp()), start(createSupportDeskApp())]); });
  afterAll(async () => { await Promise.all([demo.server.close(1000), desk.server.close(1000)]); });

  it('the demo page links its component stylesheet after its own, under a CSP with no inline styles', async () => {
    const { $, csp, sheets } = await pageAfter(demo.client(), 'show me Kestrel\'s portrait');
    // Then the app's theme, last (theme-http.test.ts).
    expect(sheets).toHaveLength(3);
    expect(sheets[0]).toMatch(/^\/static\/app-[0-9a-f]{10}\/app\.css$/);
    expect(sheets[1]).toMatch(STYLESHEET);
    // A same-origin file: style-src 'self' admits it; nothing inline is needed or allowed.
    expect(csp).toMatch(/(^|;)\s*style-src 'self'(;|$)/);
    expect(csp).not.toContain('unsafe-inline');
    expect($('style, [style]').length).toBe(0);

    // The card's markup carries the component's own classes, and the stylesheet styles them.
    const card = $('#surface-portrait article.portrait-card');
    expect(card.length).toBe(1);
    expect(card.find('.portrait-card__initials').text()).toBe('CK');
    expect(card.find('.portrait-card__tags li').map((_, li) => $(li).text()).get()).toEqual(['pilot', 'rogue']);
    const css = await (await demo.client().get(sheets[1]!)).text();
    const own = [...classesIn($, '#surface-portrait .portrait-card')].filter((name) => name.startsWith(componentClass(PortraitCard.name)));
    expect(own.length).toBeGreaterThan(5);
    for (const name of own) expect(css, name).toContain(`.${name}`);
  });

  it('serves the stylesheet as CSS, immutable under its content hash, with the page\'s security headers', async () => {
    const { sheets } = await pageAfter(demo.client(), 'hello');
    const href = sheets[1]!;
    const response = await demo.client().get(href);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    // Browsers apply a stylesheet only when its type is CSS: nosniff keeps it that way.
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    const body = Buffer.from(await response.arrayBuffer());
    expect(createHash('sha256').update(body).digest('hex').slice(0, 10)).toBe(STYLESHEET.exec(href)![1]);
    expect(body.toString('utf8')).toContain(PortraitCard.css!.trim());
  });

  it('is public like the page\'s other static files: the same bytes with no session, a foreign one or a forged cookie', async () => {
    const { sheets } = await pageAfter(demo.client(), 'hello');
    const owner = await (await demo.client().get(sheets[1]!)).text();
    const strangers = [
      await fetch(new URL(sheets[1]!, demo.server.url)),
      await fetch(new URL(sheets[1]!, demo.server.url), { headers: { cookie: 'surfacer_sid=forged.c2lnbmF0dXJl' } }),
    ];
    for (const response of strangers) {
      expect(response.status).toBe(200);
      expect(response.headers.getSetCookie()).toEqual([]);
      expect(await response.text()).toBe(owner);
    }
    // It is a stylesheet, nothing more: other methods are not served.
    expect((await fetch(new URL(sheets[1]!, demo.server.url), { method: 'POST', headers: { Origin: demo.server.url } })).status).toBe(404);
  });

  it('the support desk\'s page links its TicketTable and BarChart styles; their markup has their classes', async () => {
    const { $, sheets } = await pageAfter(desk.client(), 'show the queue');
    expect(sheets[1]).toMatch(STYLESHEET);
    const css = await (await desk.client().get(sheets[1]!)).text();
    const styled = {
      '#surface-queue section.ticket-table': ['ticket-table', 'ticket-table__scroll', 'ticket-table__row', 'ticket-table__customer', 'ticket-table__id', 'ticket-table__actions'],
      '#surface-queue figure.bar-chart': ['bar-chart', 'bar-chart__bars', 'bar-chart__bar', 'bar-chart__value'],
    };
    for (const [selector, names] of Object.entries(styled)) {
      expect($(selector).length, selector).toBe(1);
      const used = classesIn($, selector);
      // Some classes are only hooks (tests find a row's status by .ticket-table__status).
      for (const name of names) {
        expect(used.has(name), `${name} in the markup`).toBe(true);
        expect(css, name).toContain(`.${name}`);
      }
    }
    // Two apps, two stylesheets: each URL names its own content.
    const demoPage = await pageAfter(demo.client(), 'hello');
    expect(demoPage.sheets[1]).not.toBe(sheets[1]);
  });

  it('an app whose components have no css links none', async () => {
    const h = await startHarness();
    try {
      const client = h.client();
      const c = await openConversation(client);
      const $ = parse(await (await client.get(c.base)).text());
      expect($('link[rel="stylesheet"]').map((_, el) => $(el).attr('href')).get()).toEqual([expect.stringMatching(/\/app\.css$/)]);
    } finally {
      await h.close();
    }
  });

  it('fuzz: any other path under /static/components-… is a 404 with a registered code, never a 5xx', async () => {
    const { sheets } = await pageAfter(demo.client(), 'hello');
    const real = sheets[1]!;
    const segment = fc.string({ unit: fc.constantFrom(...'abcdef0123456789-_.%~'), maxLength: 24 });
    await fc.assert(fc.asyncProperty(segment, segment, fc.constantFrom('GET', 'HEAD', 'POST'), async (hash, name, method) => {
      const path = `/static/components-${hash}/${name}`;
      fc.pre(path !== real);
      const response = await demo.host.hono.request(path, { method, headers: { Accept: 'application/json' } });
      // A POST is refused before routing when the Origin/Fetch-Site check fails (403), else not found.
      expect(method === 'POST' ? [403, 404] : [404], path).toContain(response.status);
      if (method !== 'HEAD') expect(isErrorCode(((await response.json()) as { code: string }).code), path).toBe(true);
    }), { numRuns: 150 });
  });
});
