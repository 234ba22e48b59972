import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type ServeHandle } from '../../src/cli/commands/serve.ts';
import { createClientSim, type UserActionMessage } from '../../src/clientsim/index.ts';
import type { Logger } from '../../src/conversation/index.ts';
import { findSurface } from '../../src/ui-ir/index.ts';
import { HttpClient } from '../support/http-client.ts';
import { parse, pageOf, type Doc, type OpenedConversation } from '../host-html/support/page.ts';

/**
 * A per-item action over real HTTP, on both hosts of the product as `npm start` composes it
 * (offline planner, JSONL log): the sample characters list (`samples` panel), its "Use this one"
 * (character.use) and "Hide" (list.remove) buttons. Applied once (a repeat is replayed, not
 * applied again), stale (a button of an older rendering: 409), forged (a key the list does not
 * show: 400) — the log tells what was applied.
 */
const dir = mkdtempSync(join(tmpdir(), 'surfacer-lists-'));
const errors: string[] = [];
const logger: Logger = { info() {}, warn() {}, error(message, fields) { errors.push(`${message} ${JSON.stringify(fields ?? {})}`); } };
let server: ServeHandle;

beforeAll(async () => {
  server = await startServe({
    port: 0, hostname: '127.0.0.1', planner: 'offline', dataDir: dir, logger, fsync: false,
    env: { SURFACER_SESSION_SECRET: 'lists-session-secret-0123456789' }, a2ui: { heartbeatMs: 60_000 },
  });
});
afterAll(async () => {
  await server.close(1000);
  rmSync(dir, { recursive: true, force: true });
});

const loggedActions = (cid: string): number =>
  readFileSync(join(dir, `${cid}.jsonl`), 'utf8').split('\n').filter((line) => line.includes('"type":"action"')).length;

async function withSamples(): Promise<{ client: HttpClient; c: OpenedConversation }> {
  const client = new HttpClient(server.url);
  const base = (await client.get('/')).headers.get('location')!;
  const $ = parse(await (await client.get(base)).text());
  const csrf = $('#message-form input[name="_csrf"]').attr('value')!;
  expect((await client.post(`${base}/messages`, { _csrf: csrf, text: 'show me some sample characters' }, { as: 'json' })).status).toBe(200);
  return { client, c: { cid: base.slice(3), base, $, csrf } };
}

/** The hidden fields of one item's form, as a browser posts them with the clicked button. */
function itemForm($: Doc, key: string): Record<string, string> {
  const button = $(`#surface-samples li[data-key="${key}"] button`).first();
  const form = $(`form#${button.attr('form')!}`);
  expect(form.length).toBe(1);
  return Object.fromEntries(form.find('input[type=hidden]').map((_, el) => [[$(el).attr('name')!, $(el).attr('value')!]]).get() as Array<[string, string]>);
}

async function samplesRev(cid: string): Promise<number> {
  return findSurface((await server.conversations.get(cid))!.ir, 'samples')!.rev;
}

describe('HTML host: a per-item action', () => {
  it('shows the list; "Use this one" is applied once; a repeat is replayed; stale and forged items are refused and never applied', async () => {
    const { client, c } = await withSamples();
    const $ = await pageOf(client, c);
    expect($('#surface-samples li').map((_, li) => $(li).attr('data-key')).get()).toEqual(['aria', 'kestrel', 'holloway']);
    const aria = itemForm($, 'aria');
    const kestrel = itemForm($, 'kestrel');

    const used = await client.post(`${c.base}/actions`, { ...aria, _action: 'character.use' }, { as: 'htmx' });
    expect(used.status).toBe(200);
    const card = findSurface((await server.conversations.get(c.cid))!.ir, 'main')!;
    expect(card.view.template).toBe('character_card');
    expect(card.data.draft).toMatchObject({ name: 'Aria Nightingale', tagline: 'A wandering bard with a secret' });
    expect(loggedActions(c.cid)).toBe(1);

    const again = await client.post(`${c.base}/actions`, { ...aria, _action: 'character.use' }, { as: 'json' });
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ ok: true, replayed: true, action: 'character.use' });
    expect(loggedActions(c.cid)).toBe(1);

    // "Hide" on Kestrel, without JavaScript: 303 back to the page, and the list no longer shows her.
    const rev = await samplesRev(c.cid);
    const hidden = await client.post(`${c.base}/actions`, { ...kestrel, _action: 'list.remove' }, { as: 'browser' });
    expect(hidden.status).toBe(303);
    expect(await samplesRev(c.cid)).toBe(rev + 1);
    const $after = await pageOf(client, c);
    expect($after('#surface-samples li').map((_, li) => $after(li).attr('data-key')).get()).toEqual(['aria', 'holloway']);
    expect(loggedActions(c.cid)).toBe(2);

    // The old rendering's Holloway button: the rev moved on, so it is stale (409), whatever the key.
    const stale = await client.post(`${c.base}/actions`, { ...itemForm($, 'holloway'), _action: 'list.remove' }, { as: 'json' });
    expect(stale.status).toBe(409);
    expect(await stale.json()).toMatchObject({ code: 'A2UI_C2S_SURFACE_STALE' });

    // A current rendering with a key it does not show (Kestrel is gone; "zz" never was): 400.
    for (const item of ['kestrel', 'zz']) {
      const forged = await client.post(`${c.base}/actions`, { ...itemForm($after, 'aria'), item, _idem: `forged-${item}`, _action: 'list.remove' }, { as: 'json' });
      expect(forged.status).toBe(400);
      expect(await forged.json()).toMatchObject({ code: 'A2UI_C2S_ITEM_UNKNOWN', message: 'That item is not on this panel.' });
    }
    const wrongList = await client.post(`${c.base}/actions`, { ...itemForm($after, 'aria'), list: 'other', _idem: 'forged-list', _action: 'list.remove' }, { as: 'json' });
    expect(wrongList.status).toBe(400);
    expect(await samplesRev(c.cid)).toBe(rev + 1);
    expect(loggedActions(c.cid)).toBe(2);
    expect(errors).toEqual([]);
  });
});

describe('HTML host without JavaScript: item buttons are plain form posts', () => {
  /**
   * What a browser shows after a plain post: an applied action is a 303 back to the conversation
   * (followed here), a refused one the page itself with the refusal's status and its alert.
   */
  async function postPlain(client: HttpClient, c: OpenedConversation, form: Record<string, string>, status = 303): Promise<Doc> {
    const res = await client.post(`${c.base}/actions`, form);
    expect(res.status).toBe(status);
    if (status !== 303) return parse(await res.text());
    // Back to the conversation, at the panel's message when the panel shows one (issue 33 item 9).
    const location = res.headers.get('location') ?? '';
    expect(location.startsWith(c.base) && /^(#surface-[a-z][a-z0-9_-]*-toast)?$/.test(location.slice(c.base.length)), location).toBe(true);
    const page = await client.follow(res);
    expect(page.status).toBe(200);
    return parse(await page.text());
  }

  it('"Use this one" is applied once (a resubmitted form is replayed); a stale key gets the page with 409, a forged one with 400, each with its canonical code, and nothing applied', async () => {
    const { client, c } = await withSamples();
    const $ = await pageOf(client, c);
    const holloway = itemForm($, 'holloway');
    const $used = await postPlain(client, c, { ...holloway, _action: 'character.use' });
    expect($used('#surface-main form input[name="name"]').attr('value')).toBe('Inspector Holloway');
    await postPlain(client, c, { ...holloway, _action: 'character.use' });
    expect(loggedActions(c.cid)).toBe(1);

    const $hidden = await postPlain(client, c, { ...itemForm($, 'aria'), _action: 'list.remove' });
    expect($hidden('#surface-samples li').map((_, li) => $hidden(li).attr('data-key')).get()).toEqual(['kestrel', 'holloway']);
    expect(loggedActions(c.cid)).toBe(2);

    const $stale = await postPlain(client, c, { ...itemForm($, 'kestrel'), _action: 'list.remove' }, 409);
    expect($stale('.alert[data-code="A2UI_C2S_SURFACE_STALE"]').length).toBe(1);
    const $forged = await postPlain(client, c, { ...itemForm($hidden, 'kestrel'), item: 'aria', _idem: 'plain-forged', _action: 'list.remove' }, 400);
    expect($forged('.alert[data-code="A2UI_C2S_ITEM_UNKNOWN"]').text()).toContain('That item is not on this panel.');
    expect($forged('#surface-samples li').map((_, li) => $forged(li).attr('data-key')).get()).toEqual(['kestrel', 'holloway']);
    expect(loggedActions(c.cid)).toBe(2);
    expect(errors).toEqual([]);
  });
});

describe('A2UI host (v0.8): a per-item action', () => {
  async function snapshotSim(cid: string, token: string) {
    const res = await fetch(`${server.url}/a2ui/c/${cid}/snapshot.jsonl`, { headers: { Authorization: `Bearer ${token}` } });
    const sim = createClientSim();
    expect(sim.applyAll((await res.text()).trimEnd().split('\n').map((line) => JSON.parse(line) as unknown)).filter((v) => v.severity === 'error')).toEqual([]);
    return sim;
  }

  async function post(cid: string, token: string, body: unknown, key: string): Promise<{ status: number; body: Record<string, unknown> }> {
    const res = await fetch(`${server.url}/a2ui/c/${cid}/events`, {
      method: 'POST', body: JSON.stringify(body),
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Idempotency-Key': key },
    });
    return { status: res.status, body: await res.json() as Record<string, unknown> };
  }

  const click = (sim: ReturnType<typeof createClientSim>, id: string): UserActionMessage => {
    const r = sim.click('samples--e0', id);
    if (!r.ok) throw new Error(r.violation.detail);
    return r.message;
  };

  it('an item button sends its key; applied once, replayed under its key; stale 409; forged 400; never applied twice', async () => {
    const { c } = await withSamples();
    const token = (await server.conversations.get(c.cid))!.a2uiToken;
    const sim = await snapshotSim(c.cid, token);
    const use = click(sim, 'samples.l-characters.a0-character_use.Button:1');
    expect(use.userAction).toMatchObject({
      name: 'character.use', surfaceId: 'samples--e0', sourceComponentId: 'samples.l-characters.a0-character_use.Button:1',
      context: { list: 'characters', item: 'kestrel', rev: '0' },
    });
    const first = await post(c.cid, token, use, 'use-1');
    expect(first).toMatchObject({ status: 200, body: { ok: true, replayed: false, action: 'character.use' } });
    expect(findSurface((await server.conversations.get(c.cid))!.ir, 'main')!.data.draft).toMatchObject({ name: 'Captain Kestrel' });
    expect(await post(c.cid, token, use, 'use-1')).toEqual({ status: 200, body: { ...first.body, replayed: true } });
    expect(loggedActions(c.cid)).toBe(1);

    const hideAria = click(sim, 'samples.l-characters.a1-list_remove.Button:0');
    expect(await post(c.cid, token, hideAria, 'hide-1')).toMatchObject({ status: 200, body: { action: 'list.remove' } });
    const stale = await post(c.cid, token, click(sim, 'samples.l-characters.a1-list_remove.Button:2'), 'hide-2');
    expect(stale).toMatchObject({ status: 409, body: { code: 'A2UI_C2S_SURFACE_STALE' } });

    const fresh = await snapshotSim(c.cid, token);
    const current = click(fresh, 'samples.l-characters.a1-list_remove.Button:0');
    expect(current.userAction.context).toMatchObject({ item: 'kestrel', rev: '1' });
    const forged = { userAction: { ...current.userAction, context: { ...current.userAction.context, item: 'aria' } } };
    expect(await post(c.cid, token, forged, 'forged-1')).toMatchObject({ status: 400, body: { code: 'A2UI_C2S_ITEM_UNKNOWN' } });
    const noKey = { userAction: { ...current.userAction, context: { nonce: current.userAction.context.nonce, rev: '1' } } };
    expect(await post(c.cid, token, noKey, 'forged-2')).toMatchObject({ status: 400, body: { code: 'A2UI_C2S_ENVELOPE_INVALID' } });
    expect(await samplesRev(c.cid)).toBe(1);
    expect(loggedActions(c.cid)).toBe(2);
    expect(errors).toEqual([]);
  });
});
