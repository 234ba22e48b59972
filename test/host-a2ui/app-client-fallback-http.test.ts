import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineComponent, createComponentRegistry } from '../../src/app-kit/index.ts';
import type { AppDefinition } from '../../src/conversation/index.ts';
import { CharacterGallery, createGalleryApp, GALLERY_CATALOG_ID } from '../support/component-app.ts';
import { newConversation, startE2e, type E2eServer } from '../e2e/support/stack.ts';

/*
 * An app whose element module does not exist (review finding): its A2UI page must still be
 * served, with the plain client and the basic catalogue (docs/components.md "Bundling"), not
 * answer 500; and the failed bundle is remembered, so asset requests (unauthenticated) never
 * start another esbuild run: the failure is logged once.
 */
const Broken = defineComponent({
  ...CharacterGallery,
  element: { tag: 'broken-gallery', module: '/nonexistent/surfacer-test/broken-gallery.ts' },
});

function brokenApp(): AppDefinition {
  return { ...createGalleryApp(), components: createComponentRegistry([Broken]) };
}

let s: E2eServer;
beforeAll(async () => { s = await startE2e({}, { app: brokenApp() }); });
afterAll(async () => { await s.close(); });

const bundleErrors = (): string[] => s.errors.filter((e) => e.includes('could not be bundled'));

describe('an app client that cannot be bundled', () => {
  it('the page is served with the plain client, asking for the basic catalogue; the failure is logged once', async () => {
    const client = s.client();
    const c = await newConversation(s, client, 'show the gallery');
    for (const query of ['?v=0.9', '?v=0.9', '']) {
      const page = await client.get(`${c.a2ui}${query}`);
      expect(page.status).toBe(200);
      const html = await page.text();
      // No catalog parameter: the stream compiles the fallbacks for the basic catalogue.
      expect(html).not.toContain(encodeURIComponent(GALLERY_CATALOG_ID));
      const script = /<script[^>]*src="(\/assets\/a2ui-client-[^"]+\.js)"/.exec(html)?.[1];
      expect(script).toBeDefined();
      // The asset route (no session, no token) serves the plain client, without bundling again.
      const asset = await fetch(`${s.url}${script!}`);
      expect(asset.status).toBe(200);
      expect(await asset.text()).not.toContain('broken-gallery');
    }
    // Once per page version (the v0.9 and v0.8 pages have a bundle each).
    expect(bundleErrors()).toHaveLength(2);
    expect(bundleErrors()[0]).toContain('broken-gallery.ts');
  }, 180_000);
});
