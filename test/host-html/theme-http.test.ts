import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupportDeskApp } from '../../examples/support-desk/app.ts';
import { createDemoApp, DEMO_THEME } from '../../src/app/index.ts';
import { safeResolveTheme } from '../../src/app-kit/index.ts';
import type { AppDefinition } from '../../src/conversation/index.ts';
import { isErrorCode } from '../../src/errors/index.ts';
import { createSurfacer, type RunningServer, type Surfacer } from '../../src/index.ts';
import { HttpClient } from '../support/http-client.ts';
import { startHarness } from './support/harness.ts';
import { openConversation, parse } from './support/page.ts';

/*
 * The app's theme (AppDefinition.theme) on both pages: one stylesheet of custom properties,
 * linked after the page's own CSS under a URL that names its content (the CSP allows style-src
 * 'self' only, nothing inline), public like the other static files.
 */
const HTMX_THEME = /^\/static\/theme-([0-9a-f]{10})\/theme\.css$/;
const A2UI_THEME = /^\/assets\/a2ui-theme-([0-9a-f]{16})\.css$/;

interface Running { surfacer: Surfacer; server: RunningServer; client(): HttpClient }

async function start(app: AppDefinition): Promise<Running> {
  const surfacer = createSurfacer({ app, sessionSecret: 'theme-http-secret-0123456789', agents: { a2a: false, agui: false, mcp: false } });
  const server = await surfacer.listen({ port: 0 });
  return { surfacer, server, client: () => new HttpClient(server.url) };
}

/** The stylesheets a page links, in order. */
function sheetsOf(html: string): string[] {
  const $ = parse(html);
  return $('link[rel="stylesheet"]').map((_, el) => $(el).attr('href')).get();
}

/** The value of custom property `name` in `css`'s first `:root` block. */
function variable(css: string, name: string): string | undefined {
  const root = /:root \{([^}]*)\}/.exec(css)?.[1] ?? '';
  return new RegExp(`${name}: ([^;]+);`).exec(root)?.[1];
}

describe('the app theme on the pages', () => {
  let demo: Running;
  let desk: Running;
  beforeAll(async () => { [demo, desk] = await Promise.all([start(createDemoApp()), start(createSupportDeskApp())]); });
  afterAll(async () => { await Promise.all([demo.server.close(1000), desk.server.close(1000)]); });

  it('the htmx page links the theme stylesheet last, with the theme\'s variables', async () => {
    const client = demo.client();
    const c = await openConversation(client);
    const page = await client.get(c.base);
    const sheets = sheetsOf(await page.text());
    expect(sheets[0]).toMatch(/\/app\.css$/);
    expect(sheets.at(-1)).toMatch(HTMX_THEME);
    expect(page.headers.get('content-security-policy')).toMatch(/(^|;)\s*style-src 'self'(;|$)/);

    const response = await client.get(sheets.at(-1)!);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const body = Buffer.from(await response.arrayBuffer());
    expect(createHash('sha256').update(body).digest('hex').slice(0, 10)).toBe(HTMX_THEME.exec(sheets.at(-1)!)![1]);
    const css = body.toString('utf8');
    const resolved = safeResolveTheme(DEMO_THEME);
    if (!resolved.ok) throw new Error(resolved.reason);
    expect(variable(css, '--accent')).toBe(DEMO_THEME.primaryColor);
    expect(variable(css, '--accent-text')).toBe(resolved.value.onPrimary.color);
    expect(variable(css, '--radius')).toBe(`${DEMO_THEME.radius}px`);
    expect(variable(css, 'font-family')).toBe(DEMO_THEME.fontFamily);
    // The demo is light: no dark palette.
    expect(css).not.toContain('color-scheme: dark');
  });

  it('the support desk gets its own (dark) stylesheet under its own URL', async () => {
    const c = await openConversation(desk.client());
    const sheet = sheetsOf(c.$.html()).at(-1)!;
    expect(sheet).toMatch(HTMX_THEME);
    const css = await (await desk.client().get(sheet)).text();
    expect(variable(css, '--accent')).toBe(createSupportDeskApp().theme!.primaryColor);
    expect(css).toContain('color-scheme: dark');
    const demoSheet = sheetsOf((await openConversation(demo.client())).$.html()).at(-1);
    expect(demoSheet).not.toBe(sheet);
  });

  it('the A2UI renderer pages link the same theme, served like their own assets', async () => {
    const client = demo.client();
    const c = await openConversation(client);
    const htmxCss = await (await client.get(sheetsOf(c.$.html()).at(-1)!)).text();
    for (const query of ['', '?v=0.9']) {
      const page = await client.get(`/a2ui/c/${c.cid}${query}`);
      expect(page.status).toBe(200);
      const sheets = sheetsOf(await page.text());
      expect(sheets).toHaveLength(2);
      expect(sheets[1]).toMatch(A2UI_THEME);
      const response = await client.get(sheets[1]!);
      expect(response.headers.get('content-type')).toBe('text/css; charset=utf-8');
      expect(await response.text()).toBe(htmxCss);
    }
  });

  it('is public like the other static files: no session, a forged cookie, the same bytes', async () => {
    const c = await openConversation(demo.client());
    const sheet = sheetsOf(c.$.html()).at(-1)!;
    const owner = await (await demo.client().get(sheet)).text();
    for (const headers of [{}, { cookie: 'surfacer_sid=forged.c2lnbmF0dXJl' }] as Record<string, string>[]) {
      const response = await fetch(new URL(sheet, demo.server.url), { headers });
      expect(response.status).toBe(200);
      expect(response.headers.getSetCookie()).toEqual([]);
      expect(await response.text()).toBe(owner);
    }
  });

  it('an app without a theme links none', async () => {
    const h = await startHarness();
    try {
      const c = await openConversation(h.client());
      expect(sheetsOf(c.$.html()).some((href) => HTMX_THEME.test(href))).toBe(false);
    } finally {
      await h.close();
    }
  });

  it('fuzz: any other path under /static/theme-… or /assets/a2ui-theme-… is a 404, never a 5xx', async () => {
    const c = await openConversation(demo.client());
    const real = sheetsOf(c.$.html()).at(-1)!;
    const segment = fc.string({ unit: fc.constantFrom(...'abcdef0123456789-_.%~'), maxLength: 24 });
    await fc.assert(fc.asyncProperty(segment, segment, fc.boolean(), async (hash, name, a2ui) => {
      const path = a2ui ? `/assets/a2ui-theme-${hash}${name}.css` : `/static/theme-${hash}/${name}`;
      fc.pre(path !== real);
      const response = await demo.surfacer.fetch(new Request(new URL(path, demo.server.url), { headers: { Accept: 'application/json' } }));
      expect(response.status, path).toBe(404);
      const text = await response.text();
      // The htmx host answers with a registered error code; the A2UI assets route with a plain 404.
      if (!a2ui) expect(isErrorCode((JSON.parse(text) as { code: string }).code), path).toBe(true);
    }), { numRuns: 150 });
  });
});
