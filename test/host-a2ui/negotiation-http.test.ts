import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClientSim, createClientSimV09, type ClientSimV09 } from '../../src/clientsim/index.ts';
import { validateA2uiMessages, validateA2uiV09Messages } from '../../src/compiler/index.ts';
import { parseEventId, SNAPSHOT_CHECKPOINT_HEADER } from '../../src/host-a2ui/index.ts';
import { DEMO_CATALOG_ID } from '../../src/app/index.ts';
import { findSurface } from '../../src/ui-ir/index.ts';
import type { SseConnection, SseEvent } from '../support/sse-client.ts';
import {
  CHARACTER, feed, feedV09, fillAndSubmit, fillAndSubmitV09, newConversation, postEvent, startE2e, stream, until,
  type Conversation, type E2eServer,
} from '../e2e/support/stack.ts';

/*
 * Issue 13 item 2 over real HTTP, against the product as `npm start` composes it: the wire
 * version is chosen per client (`?v=0.9`, `?v=0.9.1`, v0.8 without `v`) on the stream, the
 * snapshot and the page; each version has its own hub channel and event ids, compiled only once
 * a client of that version comes, with the same resume guarantees (buffer, catch-up, re-init);
 * v0.9 client messages go through the same ingress as v0.8 ones.
 */
let s: E2eServer;
const open: SseConnection[] = [];
beforeAll(async () => { s = await startE2e(); });
afterAll(async () => {
  for (const conn of open.splice(0)) conn.close();
  await s.close();
});

async function follow(c: Conversation, query = '', headers: Record<string, string> = {}): Promise<SseConnection> {
  const conn = await stream(s, c, headers, query);
  open.push(conn);
  expect(conn.response.status).toBe(200);
  return conn;
}

const hubOf = (version: '0.8' | '0.9' | '0.9.1') => s.handle.a2ui.wire(version).hub;
const checkpoint = (cid: string, version: '0.8' | '0.9' | '0.9.1' = '0.8'): string => hubOf(version).checkpoint(cid).id;

async function snapshot(c: Conversation, query = ''): Promise<{ messages: Record<string, unknown>[]; checkpoint: string | null }> {
  const res = await fetch(`${s.url}${c.a2ui}/snapshot.jsonl${query}`, { headers: { Authorization: `Bearer ${c.token}` } });
  expect(res.status).toBe(200);
  const messages = (await res.text()).trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
  return { messages, checkpoint: res.headers.get(SNAPSHOT_CHECKPOINT_HEADER) };
}

/** A v0.9 renderer initialised from the v0.9 snapshot. */
async function v09Client(c: Conversation): Promise<ClientSimV09> {
  const sim = createClientSimV09();
  expect(sim.applyAll((await snapshot(c, '?v=0.9')).messages).filter((v) => v.severity === 'error')).toEqual([]);
  return sim;
}

const data = (events: readonly SseEvent[]): Record<string, unknown>[] => events.map((e) => JSON.parse(e.data) as Record<string, unknown>);
const kinds = (events: readonly SseEvent[]): string[] => data(events).map((m) => Object.keys(m).filter((k) => k !== 'version').join());
/** A v0.8 answer's pointers as they read in v0.9 (`/userAction/…` → `/action/…`). */
const sameRoot = (body: unknown): unknown => JSON.parse(JSON.stringify(body).replaceAll('"/userAction/', '"/action/')) as unknown;
const SAME_AS_RENDERED = { reachableOnly: true, sortDataKeys: true } as const;

/** A character card followed by a v0.8 and a v0.9 renderer, both caught up (how many events each applied). */
async function cardWithBothRenderers() {
  const c = await newConversation(s, s.client(), 'create a character card');
  const v08 = await follow(c);
  const v09 = await follow(c, '?v=0.9');
  await until(v08, checkpoint(c.cid));
  await until(v09, checkpoint(c.cid, '0.9'));
  const sim08 = createClientSim();
  const sim09 = createClientSimV09();
  return { c, v08, v09, sim08, sim09, seen08: feed(sim08, v08), seen09: feedV09(sim09, v09) };
}

async function committedName(cid: string): Promise<unknown> {
  return findSurface((await s.handle.conversations.get(cid))!.ir, 'main')!.data.committed.name;
}

describe('?v= chooses the wire version per client', () => {
  it('stream, snapshot and page speak the version asked for; an unknown version is 400, a foreign conversation 404 first', async () => {
    const client = s.client();
    const c = await newConversation(s, client, 'create a character card');

    const v08 = await follow(c);
    const v09 = await follow(c, '?v=0.9');
    const v091 = await follow(c, '?v=0.9.1');
    await until(v08, checkpoint(c.cid));
    await until(v09, checkpoint(c.cid, '0.9'));
    await until(v091, checkpoint(c.cid, '0.9.1'));
    // v0.8: no version key; v0.9: every message carries the version asked for.
    expect(data(v08.events).every((m) => !('version' in m))).toBe(true);
    expect(validateA2uiMessages(data(v08.events))).toEqual([]);
    expect(data(v09.events).every((m) => m.version === 'v0.9')).toBe(true);
    expect(data(v091.events).every((m) => m.version === 'v0.9.1')).toBe(true);
    expect(kinds(v09.events)).toEqual(['deleteSurface', 'createSurface', 'updateComponents', 'updateDataModel']);
    expect(validateA2uiV09Messages(data(v09.events))).toEqual([]);
    const sim = createClientSimV09();
    feedV09(sim, v09);
    expect(sim.surface('main--e0')?.rendering).toBe(true);

    // Three streams of one log: the same log position, three stream names.
    const [p08, p09, p091] = [v08, v09, v091].map((conn) => parseEventId(conn.events.at(-1)!.lastEventId)!);
    expect(p09!.version).toBe(p08!.version);
    expect(p091!.version).toBe(p08!.version);
    expect(p09!.stream).toBe(`${p08!.stream}w09`);
    expect(p091!.stream).toBe(`${p08!.stream}w091`);

    const snap = await snapshot(c, '?v=0.9');
    expect(snap.checkpoint).toBe(checkpoint(c.cid, '0.9'));
    expect(snap.messages.map((m) => Object.keys(m).filter((k) => k !== 'version').join())).toEqual(['createSurface', 'updateComponents', 'updateDataModel']);
    expect((await snapshot(c)).checkpoint).toBe(checkpoint(c.cid));
    expect((await snapshot(c, '?v=0.8')).checkpoint).toBe(checkpoint(c.cid));

    const page = await (await client.get(`${c.a2ui}?v=0.9`)).text();
    expect(page).toMatch(/<script type="module" src="\/assets\/a2ui-client-v09-[0-9a-f]+\.js">/);
    // The demo's own page advertises the demo's catalogue (its client holds the demo's elements).
    expect(page).toContain(`data-stream-url="${c.a2ui}/stream?v=0.9&amp;catalog=${encodeURIComponent(DEMO_CATALOG_ID)}"`);
    expect(page).toContain('data-a2ui-version="v0.9"');
    expect(page).toContain(`curl -N -H &#39;Authorization: Bearer ${c.token}&#39; &#39;${s.url}${c.a2ui}/stream?v=0.9&#39;`);
    const page08 = await (await client.get(c.a2ui)).text();
    expect(page08).toMatch(/<script type="module" src="\/assets\/a2ui-client-[0-9a-f]+\.js">/);
    expect(page08).not.toContain('data-a2ui-version');
    const script = /src="(\/assets\/a2ui-client-v09-[0-9a-f]+\.js)"/.exec(page)![1]!;
    const asset = await client.get(script);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/^text\/javascript/);
    await asset.arrayBuffer();

    for (const path of [`${c.a2ui}/stream?v=1.0`, `${c.a2ui}/snapshot.jsonl?v=0.10`, `${c.a2ui}?v=v0.9`]) {
      const res = await client.get(path);
      expect(res.status, path).toBe(400);
      expect(await res.json()).toMatchObject({ code: 'HTTP_BAD_REQUEST', category: 'http', retryable: false, technical_detail: expect.stringContaining('0.8, 0.9, 0.9.1') });
    }
    const stranger = s.client();
    expect((await stranger.get(`${c.a2ui}/stream?v=1.0`)).status).toBe(404);
  });

  it('a conversation nobody watches in v0.9 is never compiled to it; the first v0.9 client starts that', async () => {
    const client = s.client();
    const c = await newConversation(s, client, 'create a character card');
    const v08 = await follow(c);
    await until(v08, checkpoint(c.cid));
    const sim = createClientSim();
    feed(sim, v08);
    expect((await postEvent(s, c, fillAndSubmit(sim, 'main--e0', CHARACTER))).status).toBe(200);
    await until(v08, checkpoint(c.cid));
    expect((await snapshot(c)).messages.length).toBeGreaterThan(0);
    // Only the version asked for has a channel (a bridge opens its channel when it first loads the IR).
    expect(hubOf('0.9').stats(c.cid).channels).toBe(0);
    expect(hubOf('0.9.1').stats(c.cid).channels).toBe(0);
    expect(s.handle.a2ui.wire('0.9').bridges.surfaceIds(c.cid)).toEqual([]);

    const v09 = await follow(c, '?v=0.9');
    await until(v09, checkpoint(c.cid, '0.9'));
    expect(hubOf('0.9').stats(c.cid)).toMatchObject({ channels: 1, subscribers: 1 });
    expect(hubOf('0.9.1').stats(c.cid).channels).toBe(0);
  });
});

describe('each version resumes on its own stream', () => {
  it('a v0.9 client resumes from the buffer; an id of another version re-initialises, and the other way round', async () => {
    const client = s.client();
    const c = await newConversation(s, client, 'create a character card');
    const first = await follow(c, '?v=0.9');
    await until(first, checkpoint(c.cid, '0.9'));
    const sim = createClientSimV09();
    feedV09(sim, first);
    const lastV09 = first.events.at(-1)!.lastEventId;
    first.close();
    const v08 = await follow(c);
    await until(v08, checkpoint(c.cid));
    const lastV08 = v08.events.at(-1)!.lastEventId;
    v08.close();

    // A change while both are away.
    const action = fillAndSubmitV09(createClientSimV09({ state: sim.state() }), 'main--e0', { name: 'Aria', personality: 'Brave.' });
    expect((await postEvent(s, c, action)).status).toBe(200);

    // Its own id: resumed from the buffer, just the update (no deleteSurface, no createSurface).
    const resumed = await follow(c, '?v=0.9', { 'Last-Event-ID': lastV09 });
    await until(resumed, checkpoint(c.cid, '0.9'));
    expect(kinds(resumed.events).every((k) => k === 'updateComponents' || k === 'updateDataModel')).toBe(true);
    expect(resumed.events.some((e) => /-i\d+$/.test(e.lastEventId))).toBe(false);
    feedV09(sim, resumed);
    expect(sim.surface('main--e0')?.dataModel).toMatchObject({ committed: { name: 'Aria', personality: 'Brave.' } });
    const fresh = await v09Client(c);
    expect(sim.hash('main--e0', SAME_AS_RENDERED)).toBe(fresh.hash('main--e0', SAME_AS_RENDERED));

    // An id of the v0.8 stream on the v0.9 stream: the positions are not comparable, a full init.
    const crossed = await follow(c, '?v=0.9', { 'Last-Event-ID': lastV08 });
    await until(crossed, checkpoint(c.cid, '0.9'));
    expect(kinds(crossed.events)).toEqual(['deleteSurface', 'createSurface', 'updateComponents', 'updateDataModel']);
    expect(crossed.events[0]!.lastEventId).toMatch(/w09-\d+-i0$/);
    // v0.9.1 is another stream again.
    const crossed091 = await follow(c, '?v=0.9.1', { 'Last-Event-ID': checkpoint(c.cid, '0.9') });
    await until(crossed091, checkpoint(c.cid, '0.9.1'));
    expect(kinds(crossed091.events)[0]).toBe('deleteSurface');
    // And a v0.9 id on the v0.8 stream.
    const back = await follow(c, '', { 'Last-Event-ID': lastV09 });
    await until(back, checkpoint(c.cid));
    expect(kinds(back.events)[0]).toBe('deleteSurface');
    expect(kinds(back.events).at(-1)).toBe('beginRendering');
    expect(back.events[0]!.lastEventId).toMatch(/^l[0-9a-f]+-\d+-i0$/);
  });

  it('a v0.9 client whose version the buffer no longer covers gets just what changed since, compiled to v0.9', async () => {
    const client = s.client();
    const c = await newConversation(s, client, 'create a character card');
    const first = await follow(c, '?v=0.9');
    await until(first, checkpoint(c.cid, '0.9'));
    const sim = createClientSimV09();
    feedV09(sim, first);
    const last = first.events.at(-1)!.lastEventId;
    first.close();
    const action = fillAndSubmitV09(createClientSimV09({ state: sim.state() }), 'main--e0', { name: 'Bran', personality: 'Gruff.' });
    expect((await postEvent(s, c, action)).status).toBe(200);
    // The instance lets go of the v0.9 channel (as after an idle sweep): the buffer is gone.
    hubOf('0.9').forget(c.cid);

    const caught = await follow(c, '?v=0.9', { 'Last-Event-ID': last });
    await until(caught, checkpoint(c.cid, '0.9'));
    // A catch-up: provisional ids, no re-initialisation of the surface.
    expect(kinds(caught.events)).not.toContain('createSurface');
    expect(kinds(caught.events)).not.toContain('deleteSurface');
    expect(caught.events.slice(0, -1).every((e) => /-i\d+$/.test(e.lastEventId))).toBe(true);
    feedV09(sim, caught);
    const fresh = await v09Client(c);
    expect(sim.hash('main--e0', SAME_AS_RENDERED)).toBe(fresh.hash('main--e0', SAME_AS_RENDERED));
    expect(sim.surface('main--e0')?.dataModel).toMatchObject({ committed: { name: 'Bran' } });
  });
});

describe('POST /a2ui/c/{cid}/events takes v0.9 client messages through the same ingress', () => {
  it('a v0.9 action is applied once and reaches v0.8, v0.9 and htmx clients; each version hands over what the user typed', async () => {
    const { c, v08, v09, sim08, sim09, seen08: at08, seen09: at09 } = await cardWithBothRenderers();
    let [seen08, seen09] = [at08, at09];

    // JSON-looking text: v0.8 guards it with U+2060 on the wire (and the host takes it off), v0.9 sends it as it is.
    const typed = '{"a": [1]}';
    const posted = await postEvent(s, c, fillAndSubmitV09(createClientSimV09({ state: sim09.state() }), 'main--e0', { name: typed, personality: 'Brave.' }));
    expect(posted).toMatchObject({ status: 200, body: { ok: true, replayed: false, action: 'form.submit', surface: { id: 'main', epoch: 0, rev: 1 } } });
    expect(await committedName(c.cid)).toBe(typed);
    await until(v08, checkpoint(c.cid));
    await until(v09, checkpoint(c.cid, '0.9'));
    seen08 = feed(sim08, v08, seen08);
    seen09 = feedV09(sim09, v09, seen09);
    expect((sim09.surface('main--e0')!.dataModel as { committed: { name: string } }).committed.name).toBe(typed);
    expect((sim08.surface('main--e0')!.dataModel as { committed: { name: string } }).committed.name).toBe(`${typed}\u2060`);

    // The v0.8 renderer submits next (its own rendering is current): the same value arrives unguarded.
    const again = fillAndSubmit(createClientSim({ state: sim08.state() }), 'main--e0', { name: typed, personality: 'Kind.' });
    expect(await postEvent(s, c, again)).toMatchObject({ status: 200, body: { surface: { rev: 2 } } });
    expect(await committedName(c.cid)).toBe(typed);
    await until(v09, checkpoint(c.cid, '0.9'));
    feedV09(sim09, v09, seen09);
    expect(sim09.surface('main--e0')?.dataModel).toMatchObject({ committed: { name: typed, personality: 'Kind.' } });
  });

  it('stale and forged v0.9 messages get the codes and statuses v0.8 ones get', async () => {
    const client = s.client();
    const c = await newConversation(s, client, 'create a character card');
    const values = { name: 'Aria', personality: 'Brave.' };
    const action = fillAndSubmitV09(await v09Client(c), 'main--e0', values);
    const sim08 = createClientSim();
    sim08.applyAll((await snapshot(c)).messages);
    const action08 = fillAndSubmit(sim08, 'main--e0', values);
    type Inner = typeof action.action;
    const both = (change: (inner: Inner) => Partial<Inner>): [unknown, unknown] => [
      { version: action.version, action: { ...action.action, ...change(action.action) } },
      { userAction: { ...action08.userAction, ...change(action08.userAction as Inner) } },
    ];
    const forged: Array<[string, [unknown, unknown], number, string]> = [
      ['a nonce of another rendering', both((a) => ({ context: { ...a.context, nonce: 'forged-nonce-0000000000' } })), 409, 'A2UI_C2S_SURFACE_STALE'],
      ['a rev from the future', both((a) => ({ context: { ...a.context, rev: 7 } })), 409, 'A2UI_C2S_SURFACE_STALE'],
      ['an epoch never rendered', both(() => ({ surfaceId: 'main--e5' })), 409, 'A2UI_C2S_SURFACE_STALE'],
      ['a surface that does not exist', both(() => ({ surfaceId: 'sidebar--e0' })), 409, 'A2UI_C2S_SURFACE_STALE'],
      ['an action the surface does not offer', both(() => ({ name: 'admin.delete_everything' })), 403, 'A2UI_C2S_ACTION_FORBIDDEN'],
      ['a context the action refuses', both((a) => ({ context: { ...a.context, name: { first: 'A' } } })), 403, 'A2UI_C2S_ACTION_FORBIDDEN'],
      ['no nonce', both((a) => ({ context: { name: 'x', rev: a.context.rev } })), 400, 'A2UI_C2S_ENVELOPE_INVALID'],
      ['a surface id that is no surface', both(() => ({ surfaceId: 'main' })), 400, 'A2UI_C2S_ENVELOPE_INVALID'],
      ['a context too large', both((a) => ({ context: { ...a.context, name: 'x'.repeat(40_000) } })), 413, 'A2UI_C2S_CONTEXT_TOO_LARGE'],
    ];
    const canonical = { category: expect.any(String), severity: expect.any(String), message: expect.any(String), recovery_path: expect.any(String), retryable: expect.any(Boolean) };
    for (const [what, [v09, v08], status, code] of forged) {
      const [a09, a08] = [await postEvent(s, c, v09), await postEvent(s, c, v08)];
      expect(a09.status, what).toBe(status);
      expect(a09.body, what).toMatchObject({ code, ...canonical });
      // The very answer a v0.8 client gets for the same forgery (a pointer names the key of its own wire).
      expect({ status: a08.status, body: sameRoot(a08.body) }, what).toEqual({ status: a09.status, body: a09.body });
    }
    // The app's own validation (a required field left blank) answers both alike too.
    const [blank09, blank08] = both((a) => ({ context: { ...a.context, name: '  ' } }));
    const [b09, b08] = [await postEvent(s, c, blank09), await postEvent(s, c, blank08)];
    expect(b09.status).toBeGreaterThanOrEqual(400);
    expect({ status: b08.status, body: sameRoot(b08.body) }).toEqual({ status: b09.status, body: b09.body });

    const envelopes: Array<[string, unknown]> = [
      ['an unknown version', { version: 'v1.0', action: action.action }],
      ['a v0.8 key beside the version', { version: 'v0.9', userAction: action.action }],
      ['action and error together', { version: 'v0.9', action: action.action, error: { code: 'X', surfaceId: 'main--e0', message: 'm' } }],
      ['a v0.9 action without its version (read as v0.8)', { action: action.action }],
    ];
    for (const [what, body] of envelopes) {
      expect(await postEvent(s, c, body), what).toMatchObject({ status: 400, body: { code: 'A2UI_C2S_ENVELOPE_INVALID', ...canonical } });
    }
    const noHeader = await fetch(`${s.url}${c.a2ui}/events`, { method: 'POST', body: JSON.stringify(action), headers: { 'Content-Type': 'application/json', Cookie: client.cookieHeader() } });
    expect(noHeader.status).toBe(403);
    expect(await noHeader.json()).toMatchObject({ code: 'HTTP_ORIGIN_FORBIDDEN' });
    // None of it changed anything; the real action still applies.
    expect(findSurface((await s.handle.conversations.get(c.cid))!.ir, 'main')!.rev).toBe(0);
    expect((await postEvent(s, c, action)).status).toBe(200);
    // …once: now it is stale, in either version.
    expect(await postEvent(s, c, action)).toMatchObject({ status: 409, body: { code: 'A2UI_C2S_SURFACE_STALE', message: 'UI is out of date. Please regenerate.' } });
    expect(await postEvent(s, c, action08)).toMatchObject({ status: 409, body: { code: 'A2UI_C2S_SURFACE_STALE' } });
  });

  it('a v0.9 error report resets the surface epoch once, and every client re-initialises under the new epoch', async () => {
    const { c, v08, v09, sim08, sim09, seen08, seen09 } = await cardWithBothRenderers();

    const report = { version: 'v0.9', error: { code: 'VALIDATION_FAILED', surfaceId: 'main--e0', path: '/components/3/text', message: 'Expected string' } };
    expect(await postEvent(s, c, report, { 'Idempotency-Key': 'report-1' }))
      .toMatchObject({ status: 202, body: { ok: true, recovery: 'epoch_reset', reset: 'done', replayed: false, surface: { id: 'main', epoch: 1 } } });
    // The same report again is replayed, not a second reset; a report about the old epoch is stale.
    expect(await postEvent(s, c, report, { 'Idempotency-Key': 'report-1' })).toMatchObject({ status: 202, body: { replayed: true, reset: 'skipped' } });
    expect(await postEvent(s, c, report)).toMatchObject({ status: 409, body: { code: 'A2UI_C2S_SURFACE_STALE' } });

    await until(v08, checkpoint(c.cid));
    await until(v09, checkpoint(c.cid, '0.9'));
    feed(sim08, v08, seen08);
    feedV09(sim09, v09, seen09);
    expect([...sim08.surfaces().keys()]).toEqual(['main--e1']);
    expect([...sim09.surfaces().keys()]).toEqual(['main--e1']);
    // The new rendering works from the v0.9 client.
    const action = fillAndSubmitV09(createClientSimV09({ state: sim09.state() }), 'main--e1', { name: 'Dara', personality: 'Calm.' });
    expect(await postEvent(s, c, action)).toMatchObject({ status: 200, body: { surface: { epoch: 1, rev: 1 } } });
  });

  it('idempotency: a v0.9 retry replays; another v0.9 body under the key is 422; a v0.8 and a v0.9 submission of one request share a key', async () => {
    const client = s.client();
    const c = await newConversation(s, client, 'create a character card');
    const sim09 = await v09Client(c);
    const values = { name: 'Aria', personality: 'Brave.' };
    const action = fillAndSubmitV09(createClientSimV09({ state: sim09.state() }), 'main--e0', values);
    const first = await postEvent(s, c, action, { 'Idempotency-Key': 'k-09' });
    expect(first).toMatchObject({ status: 200, body: { replayed: false, surface: { rev: 1 } } });
    // A retry, even with a fresh client clock: the first answer, nothing applied twice.
    const retried = { ...action, action: { ...action.action, timestamp: '2030-01-01T00:00:00.000Z' } };
    expect(await postEvent(s, c, retried, { 'Idempotency-Key': 'k-09' })).toMatchObject({ status: 200, body: { replayed: true, surface: { rev: 1 } } });
    const other = { ...action, action: { ...action.action, context: { ...action.action.context, name: 'Bea' } } };
    expect(await postEvent(s, c, other, { 'Idempotency-Key': 'k-09' })).toMatchObject({ status: 422, body: { code: 'A2UI_C2S_IDEMPOTENCY_KEY_REUSED' } });
    // v0.9.1 is the same wire: the same request.
    expect(await postEvent(s, c, { ...action, version: 'v0.9.1' }, { 'Idempotency-Key': 'k-09' })).toMatchObject({ status: 200, body: { replayed: true } });

    // The same request from a v0.8 renderer of the same rendering (rev 1 now) and from a v0.9 one.
    const v08snap = createClientSim();
    v08snap.applyAll((await snapshot(c)).messages);
    const sim09b = await v09Client(c);
    const again = { name: 'Cora', personality: 'Sharp.' };
    const from08 = fillAndSubmit(v08snap, 'main--e0', again);
    const from09 = fillAndSubmitV09(sim09b, 'main--e0', again);
    expect(await postEvent(s, c, from08, { 'Idempotency-Key': 'k-both' })).toMatchObject({ status: 200, body: { replayed: false, surface: { rev: 2 } } });
    expect(await postEvent(s, c, from09, { 'Idempotency-Key': 'k-both' })).toMatchObject({ status: 200, body: { replayed: true, surface: { rev: 2 } } });
    // Under one key, a v0.9 body with other values is another request, whichever version came first.
    const otherValues = fillAndSubmitV09(createClientSimV09({ state: sim09b.state() }), 'main--e0', { name: 'Dana' });
    expect(await postEvent(s, c, otherValues, { 'Idempotency-Key': 'k-both' })).toMatchObject({ status: 422, body: { code: 'A2UI_C2S_IDEMPOTENCY_KEY_REUSED' } });
    expect(findSurface((await s.handle.conversations.get(c.cid))!.ir, 'main')!.rev).toBe(2);
  });
});
