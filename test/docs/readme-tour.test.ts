import { readFileSync } from 'node:fs';
import * as cheerio from 'cheerio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { surfaceFormFields } from '../support/html-forms.ts';
import { newConversation, startE2e, type E2eServer } from '../e2e/support/stack.ts';

/*
 * The README's tour quotes what the demo shows after a save. Its words are read from the README
 * itself and looked for in the page of the product as `npm start` runs it, after the tour's
 * steps over HTTP (JavaScript off: what a browser without it posts), so a change of either
 * the demo or the README breaks this test, not a reader's first minute.
 */
const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
let s: E2eServer;
beforeAll(async () => { s = await startE2e(); });
afterAll(async () => { await s.close(); });

describe('the README\'s two-minute tour', () => {
  it('step 2: after Save the form shows the quoted words above its buttons', async () => {
    const quoted = /press Save: the form shows "([^"]+)" above its buttons/.exec(README.replace(/\s+/g, ' '))?.[1];
    expect(quoted, 'the README\'s step 2 quotes what the form shows').toBeDefined();

    const client = s.client();
    const c = await newConversation(s, client, 'create a character card');
    const hidden = surfaceFormFields(await (await client.get(c.base)).text(), 'main');
    const saved = await client.post(`${c.base}/actions`, {
      ...hidden, _csrf: c.csrf, _action: 'form.submit', name: 'Aria', personality: 'Brave and kind.',
    });
    expect(saved.status).toBe(303); // post, redirect, get: as a browser without JavaScript

    const $ = cheerio.load(await (await client.get(c.base)).text());
    const form = $('#surface-main form').first();
    const text = form.text().replace(/\s+/g, ' ');
    const at = text.indexOf(quoted!);
    expect(at, `"${quoted}" on the form`).toBeGreaterThan(-1);
    const firstButton = form.find('button[name="_action"]').first().text().trim();
    expect(firstButton).not.toBe('');
    expect(at, 'above the buttons').toBeLessThan(text.lastIndexOf(firstButton));
    expect(s.errors).toEqual([]);
  });
});
