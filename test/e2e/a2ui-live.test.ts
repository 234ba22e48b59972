import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClientSim } from '../../src/clientsim/index.ts';
import { hashAll } from '../../src/clientsim/snapshot.ts';
import { validateA2uiMessages } from '../../src/compiler/index.ts';
import { SNAPSHOT_CHECKPOINT_HEADER } from '../../src/host-a2ui/index.ts';
import { findSurface } from '../../src/ui-ir/index.ts';
import { openSse, type SseConnection } from '../support/sse-client.ts';
import {
  CHARACTER, feed, fillAndSubmit, newConversation, postEvent, startE2e, stream, until, type Conversation, type E2eServer,
} from './support/stack.ts';

// Both hosts over one conversation service, as `npm start` serves them, driven over real HTTP.
let s: E2eServer;
const open: SseConnection[] = [];
beforeAll(async () => { s = await startE2e(); });
afterAll(async () => {
  for (const conn of open.splice(0)) conn.close();
  await s.close();
});

async function follow(c: Conversation, headers: Record<string, string> = {}): Promise<SseConnection> {
  const conn = await stream(s, c, headers);
  open.push(conn);
  expect(conn.response.status).toBe(200);
  return conn;
}

async function ir(cid: string) {
  return (await s.handle.conversations.get(cid))!.ir;
}

const checkpoint = (cid: string): string => s.handle.a2ui.hub.checkpoint(cid).id;

describe('one conversation, live in both hosts', () => {
  it('the htmx page links to the A2UI view of the same conversation, which its owner may open', async () => {
    const client = s.client();
    const c = await newConversation(s, client);
    const page = await (await client.get(c.base)).text();
    expect(page).toContain(`<a href="${c.a2ui}">A2UI view</a>`);
    expect((await client.get(c.a2ui)).status).toBe(200);
  });

  it('A2UI userAction → committed, seen by the A2UI stream and the htmx SSE; htmx submit → seen by A2UI', async () => {
    const client = s.client();
    const c = await newConversation(s, client, 'create a character card');
    const a2ui = await follow(c);
    await until(a2ui, checkpoint(c.cid));
    const sim = createClientSim();
    let seen = feed(sim, a2ui);
    expect(sim.surface('main--e0')?.rendering).toBe(true);

    const htmx = await openSse(`${s.url}${c.base}/events?page=e2epage01`, { headers: { cookie: client.cookieHeader() } });
    open.push(htmx);
    await htmx.waitForComments(() => true, 100).catch(() => undefined);

    const action = fillAndSubmit(sim, 'main--e0', CHARACTER);
    const posted = await postEvent(s, c, action, { 'Idempotency-Key': 'live-1' });
    expect(posted).toMatchObject({ status: 200, body: { ok: true, replayed: false, action: 'form.submit', surface: { id: 'main', epoch: 0, rev: 1 } } });
    expect(findSurface(await ir(c.cid), 'main')?.data.committed).toMatchObject({ name: 'Aria', personality: 'Brave and kind.', tags: ['brave', 'kind'] });

    await until(a2ui, checkpoint(c.cid));
    seen = feed(sim, a2ui, seen);
    expect(sim.surface('main--e0')?.dataModel).toMatchObject({ committed: { name: 'Aria' } });
    // The htmx page hears about a change it did not make (origin "a2ui" is no page id).
    const update = await htmx.next();
    expect(update.type).toBe('update');
    expect(update.data).toContain('Aria');

    // The other way round: a plain htmx form post, and the A2UI stream follows.
    const page = await (await client.get(c.base)).text();
    const hidden = (name: string): string => new RegExp(`name="${name}" value="([^"]*)"`).exec(page)![1]!;
    const submit = await client.post(`${c.base}/actions`, {
      _csrf: c.csrf, _surface: hidden('_surface'), _epoch: hidden('_epoch'), _nonce: hidden('_nonce'), _rev: hidden('_rev'),
      _idem: 'htmx-1', _action: 'form.submit', name: 'Bran', personality: 'Gruff.', tags: 'smith',
    }, { as: 'json' });
    expect(submit.status).toBe(200);
    await until(a2ui, checkpoint(c.cid));
    feed(sim, a2ui, seen);
    expect(sim.surface('main--e0')?.dataModel).toMatchObject({ committed: { name: 'Bran' }, draft: { name: 'Bran' } });
    // What the stream built equals a fresh snapshot of the same state (compared as rendered).
    const fresh = createClientSim();
    const snap = await fetch(`${s.url}${c.a2ui}/snapshot.jsonl`, { headers: { Authorization: `Bearer ${c.token}` } });
    expect(snap.headers.get(SNAPSHOT_CHECKPOINT_HEADER)).toBe(checkpoint(c.cid));
    const lines = (await snap.text()).trimEnd().split('\n').map((l) => JSON.parse(l) as unknown);
    expect(validateA2uiMessages(lines as never).filter((v) => v.severity === 'error')).toEqual([]);
    expect(fresh.applyAll(lines).filter((v) => v.severity === 'error')).toEqual([]);
    const semantic = { sortDataKeys: true, reachableOnly: true };
    expect(hashAll(sim.state(), semantic)).toEqual(hashAll(fresh.state(), semantic));
    expect(s.errors).toEqual([]);
  });

  it('replays a repeated Idempotency-Key instead of applying it twice', async () => {
    const c = await newConversation(s, s.client(), 'create a character card');
    const a2ui = await follow(c);
    await until(a2ui, checkpoint(c.cid));
    const sim = createClientSim();
    feed(sim, a2ui);
    const action = fillAndSubmit(sim, 'main--e0', CHARACTER);
    const first = await postEvent(s, c, action, { 'Idempotency-Key': 'same-key' });
    const second = await postEvent(s, c, action, { 'Idempotency-Key': 'same-key' });
    expect(first.body).toMatchObject({ replayed: false, surface: { rev: 1 } });
    expect(second).toMatchObject({ status: 200, body: { replayed: true } });
    expect(findSurface(await ir(c.cid), 'main')?.rev).toBe(1);
  });

  it('restores strings the compiler guarded before the ingress sees them', async () => {
    const client = s.client();
    const c = await newConversation(s, client, 'create a character card');
    const a2ui = await follow(c);
    await until(a2ui, checkpoint(c.cid));
    const sim = createClientSim();
    const seen = feed(sim, a2ui);
    // JSON-looking and id-shaped text travels with a trailing U+2060 (compiler/a2ui text.ts).
    const tricky = { name: '[Aria]', personality: '{"brave": true}', tags: 'main.title.Text' };
    const first = await postEvent(s, c, fillAndSubmit(sim, 'main--e0', tricky));
    expect(first.status).toBe(200);
    await until(a2ui, checkpoint(c.cid));
    feed(sim, a2ui, seen);
    const draft = sim.surface('main--e0')!.dataModel.draft as Record<string, unknown>;
    expect(draft.name).toBe('[Aria]\u2060');
    // Submitting again without editing echoes the guarded values: they must arrive as typed.
    const again = await postEvent(s, c, fillAndSubmit(sim, 'main--e0', {}));
    expect(again.status).toBe(200);
    expect(findSurface(await ir(c.cid), 'main')?.data.committed).toMatchObject({ name: '[Aria]', personality: '{"brave": true}' });
  });
});

describe('stale protection end to end', () => {
  it('a renderer that keeps reporting errors rotates a surface at most 5 times a minute', async () => {
    const c = await newConversation(s, s.client(), 'create a character card');
    const outcomes: unknown[] = [];
    for (let epoch = 0; epoch < 7; epoch += 1) {
      const current = findSurface(await ir(c.cid), 'main')!.epoch;
      const report = await postEvent(s, c, { error: { code: 'VALIDATION_FAILED', surfaceId: `main--e${current}`, message: 'cannot render' } });
      outcomes.push([report.status, report.body.reset, (report.body.surface as { epoch: number }).epoch]);
    }
    expect(outcomes).toEqual([
      [202, 'done', 1], [202, 'done', 2], [202, 'done', 3], [202, 'done', 4], [202, 'done', 5], [202, 'skipped', 5], [202, 'skipped', 5],
    ]);
  });

  it('a client error rotates the epoch: the stream re-initialises the surface, an old userAction gets 409', async () => {
    const c = await newConversation(s, s.client(), 'create a character card');
    const a2ui = await follow(c);
    await until(a2ui, checkpoint(c.cid));
    const sim = createClientSim();
    const seen = feed(sim, a2ui);
    const stale = fillAndSubmit(sim, 'main--e0', CHARACTER);

    const report = await postEvent(s, c, { error: { code: 'VALIDATION_FAILED', surfaceId: 'main--e0', message: 'cannot render' } });
    expect(report).toMatchObject({ status: 202, body: { ok: true, recovery: 'epoch_reset', reset: 'done', surface: { id: 'main', epoch: 1 } } });
    await until(a2ui, checkpoint(c.cid));
    const batch = a2ui.events.slice(seen).map((e) => JSON.parse(e.data) as Record<string, { surfaceId: string }>);
    expect(batch[0]).toEqual({ deleteSurface: { surfaceId: 'main--e0' } });
    expect(batch.slice(1).map((m) => Object.values(m)[0]!.surfaceId)).toEqual(batch.slice(1).map(() => 'main--e1'));
    expect(Object.keys(batch.at(-1)!)).toEqual(['beginRendering']);
    feed(sim, a2ui, seen);
    expect([...sim.surfaces().keys()]).toEqual(['main--e1']);
    expect(sim.stuckBuffering()).toEqual([]);

    const refused = await postEvent(s, c, stale);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      code: 'A2UI_C2S_SURFACE_STALE', category: 'a2ui_c2s', message: 'UI is out of date. Please regenerate.', retryable: false,
    });
    // The canonical error object of design §6, nothing else.
    expect(Object.keys(refused.body).sort()).toEqual(['category', 'code', 'message', 'recovery_path', 'retryable', 'severity', 'technical_detail']);
    // An error report about the old epoch is stale too: it cannot rotate the surface again.
    const late = await postEvent(s, c, { error: { code: 'VALIDATION_FAILED', surfaceId: 'main--e0' } });
    expect(late.status).toBe(409);
    // The new surface accepts the same values.
    expect((await postEvent(s, c, fillAndSubmit(sim, 'main--e1', CHARACTER))).status).toBe(200);
  });

  it('a regenerate in the htmx page re-initialises the A2UI client under the new epoch', async () => {
    const client = s.client();
    const c = await newConversation(s, client, 'create a character card');
    const a2ui = await follow(c);
    await until(a2ui, checkpoint(c.cid));
    const seen = a2ui.events.length;
    const regen = await client.post(`${c.base}/surfaces/main/regenerate`, { _csrf: c.csrf }, { as: 'json' });
    expect(regen.status).toBe(200);
    await until(a2ui, checkpoint(c.cid));
    expect(JSON.parse(a2ui.events[seen]!.data)).toEqual({ deleteSurface: { surfaceId: 'main--e0' } });
    expect(a2ui.events.at(-1)!.data).toContain('"beginRendering":{"surfaceId":"main--e1"');
  });
});

describe('canonical errors of the A2UI ingress', () => {
  it('400 for a malformed envelope, 403 for an action the surface does not offer, 413 for a huge context', async () => {
    const c = await newConversation(s, s.client(), 'create a character card');
    const bad = await postEvent(s, c, '{"userAction":');
    expect(bad).toMatchObject({ status: 400, body: { code: 'A2UI_C2S_ENVELOPE_INVALID' } });
    const two = await postEvent(s, c, { userAction: {}, error: {} });
    expect(two).toMatchObject({ status: 400, body: { code: 'A2UI_C2S_ENVELOPE_INVALID' } });

    const a2ui = await follow(c);
    await until(a2ui, checkpoint(c.cid));
    const sim = createClientSim();
    feed(sim, a2ui);
    const action = fillAndSubmit(sim, 'main--e0', CHARACTER);
    const forbidden = await postEvent(s, c, { userAction: { ...action.userAction, name: 'form.delete_everything' } });
    expect(forbidden).toMatchObject({ status: 403, body: { code: 'A2UI_C2S_ACTION_FORBIDDEN' } });
    const huge = await postEvent(s, c, { userAction: { ...action.userAction, context: { ...action.userAction.context, personality: 'x'.repeat(40_000) } } });
    expect(huge).toMatchObject({ status: 413, body: { code: 'A2UI_C2S_CONTEXT_TOO_LARGE' } });
    expect(findSurface(await ir(c.cid), 'main')?.rev).toBe(0);
  });
});

describe('who may connect', () => {
  it('the owner by cookie, a token holder by header (the stream also by query); everyone else gets 404', async () => {
    const owner = s.client();
    const c = await newConversation(s, owner, 'create a character card');
    const stranger = s.client();
    await newConversation(s, stranger); // a session of its own, owning another conversation

    for (const path of ['', '/snapshot.jsonl']) {
      expect((await owner.get(`${c.a2ui}${path}`)).status, `owner ${path}`).toBe(200);
      expect((await stranger.get(`${c.a2ui}${path}`)).status, `stranger ${path}`).toBe(404);
      expect((await fetch(`${s.url}${c.a2ui}${path}`)).status, `anonymous ${path}`).toBe(404);
      expect((await fetch(`${s.url}${c.a2ui}${path}`, { headers: { Authorization: 'Bearer wrong-token' } })).status).toBe(404);
      expect((await fetch(`${s.url}${c.a2ui}${path}`, { headers: { Authorization: `Bearer ${c.token}` } })).status).toBe(200);
      // A URL may end up in proxy and server logs: only the stream, for external EventSource
      // clients (which cannot send headers), takes the token in its query.
      expect((await fetch(`${s.url}${c.a2ui}${path}?token=${c.token}`)).status, `query token ${path}`).toBe(404);
    }
    // Another conversation's token does not open this one.
    const other = await newConversation(s, s.client());
    expect((await fetch(`${s.url}${c.a2ui}/snapshot.jsonl`, { headers: { Authorization: `Bearer ${other.token}` } })).status).toBe(404);
    const byQuery = await openSse(`${s.url}${c.a2ui}/stream?token=${c.token}`);
    open.push(byQuery);
    expect(byQuery.response.status).toBe(200);
    expect((await fetch(`${s.url}${c.a2ui}/stream`)).status).toBe(404);
    expect(s.handle.a2ui.hub.stats().subscribers).toBeGreaterThanOrEqual(1);

    const body = JSON.stringify({ error: { surfaceId: 'main--e0' } });
    // Cookie alone cannot POST (CSRF: a custom header or Authorization is required) …
    const cookieOnly = await owner.request(`${c.a2ui}/events`, { method: 'POST', headers: { 'content-type': 'text/plain' }, json: undefined });
    expect(cookieOnly.status).toBe(403);
    // … nor with Basic credentials a browser adds by itself behind an auth proxy.
    const cookieBasic = await fetch(`${s.url}${c.a2ui}/events`, {
      method: 'POST', headers: { cookie: owner.cookieHeader(), Authorization: 'Basic dXNlcjpwdw==', 'content-type': 'application/json' }, body,
    });
    expect(cookieBasic.status).toBe(403);
    // … with the client header it can; a stranger with the header still sees nothing.
    const withHeader = await fetch(`${s.url}${c.a2ui}/events`, {
      method: 'POST', headers: { cookie: owner.cookieHeader(), 'X-Surfacer-Client': 'a2ui', 'content-type': 'application/json' }, body,
    });
    expect(withHeader.status).toBe(202);
    const strangerPost = await fetch(`${s.url}${c.a2ui}/events`, {
      method: 'POST', headers: { cookie: stranger.cookieHeader(), 'X-Surfacer-Client': 'a2ui' }, body,
    });
    expect(strangerPost.status).toBe(404);
    // A token in the query does not authorise a POST.
    const queryPost = await fetch(`${s.url}${c.a2ui}/events?token=${c.token}`, { method: 'POST', headers: { 'X-Surfacer-Client': 'a2ui' }, body });
    expect(queryPost.status).toBe(404);
  });

  it('the A2UI page shows the owner a "Connect an A2UI client" box with the token and curl lines', async () => {
    const owner = s.client();
    const c = await newConversation(s, owner);
    const html = await (await owner.get(c.a2ui)).text();
    expect(html).toContain('Connect an A2UI client');
    expect(html).toContain(`value="${c.token}"`);
    expect(html).toContain(`curl -N -H &#39;Authorization: Bearer ${c.token}&#39; &#39;${s.url}${c.a2ui}/stream&#39;`);
    expect(html).toContain(`${s.url}${c.a2ui}/events`);
  });
});

describe('shutdown', () => {
  it('closes the hub first: open A2UI and htmx streams end, and the server stops promptly', async () => {
    const own = await startE2e();
    const client = own.client();
    const c = await newConversation(own, client, 'create a character card');
    const a2ui = await stream(own, c);
    await until(a2ui, own.handle.a2ui.hub.checkpoint(c.cid).id);
    const htmx = await openSse(`${own.url}${c.base}/events?page=shutdown01`, { headers: { cookie: client.cookieHeader() } });
    const started = Date.now();
    await own.close();
    await a2ui.ended;
    await htmx.ended;
    expect(Date.now() - started).toBeLessThan(3000);
    expect(own.handle.a2ui.hub.stats().subscribers).toBe(0);
    expect(own.handle.a2ui.bridges.size).toBe(0);
    // After close, nothing new can subscribe.
    expect(() => own.handle.a2ui.hub.subscribe(c.cid, undefined, { notify() {}, dropped() {} })).toThrow(/closed/);
  });
});
