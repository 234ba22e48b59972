import { describe, expect, it } from 'vitest';
import { createDemoApp } from '../../src/app/index.ts';
import { hashAll } from '../../src/clientsim/snapshot.ts';
import { parseEventId } from '../../src/host-a2ui/index.ts';
import { newConversation, type Conversation, type E2eServer } from '../e2e/support/stack.ts';
import type { SseConnection } from '../support/sse-client.ts';
import { startCluster, startOnRedisCluster, type Cluster, type SessionClient } from './support/cluster.ts';
import { clusterSuite } from './support/cluster-suite.ts';
import { caughtUp, followA2ui, followHtmx, fromSnapshot, reaches, type A2uiFollower } from './support/followers.ts';
import { createHeldPlanner } from './support/held-planner.ts';
import { actionKeyCounts, changedVersions, readRedisLog } from './support/redis-log.ts';
import { characterAction, formOnPage, htmlSubmit, turn } from './support/user.ts';

/*
 * Issue 10, "several instances, one conversation": three instances of the product (startServe
 * with the same Redis and session secret, their own ports) serve one conversation driven
 * alternately through each over HTTP — turns, A2UI and htmx submits, replays, stale submits, a
 * cancel of a turn running on another instance, a regenerate. Every instance has an htmx page
 * stream and an A2UI stream open; all of them must end on the same state.
 *
 * A2UI states are compared as rendered (ClientSim reachableOnly + sortDataKeys) against a fresh
 * snapshot (v0.8 cannot remove components, so incremental clients keep orphans an init lacks),
 * and exactly against each other (every instance compiles the same changes the same way).
 *
 * Run twice: on one redis-server, and on a local Redis Cluster (3 primaries, 3 replicas; the
 * instances given its seed URLs), where the conversation lives on one shard, its notices travel
 * by sharded pub/sub and every append waits for a replica.
 */
const SEMANTIC = { reachableOnly: true, sortDataKeys: true } as const;
const PAGES = ['page-inst0', 'page-inst1', 'page-inst2'];

type Store = { url: string; stop(): Promise<void> };
const SETUPS: Array<{ on: string; start: (planner: ReturnType<typeof createHeldPlanner>) => Promise<Cluster<Store>> }> = [
  { on: 'one Redis', start: (planner) => startCluster(3, 'scale-inst:', { planner }) },
  { on: 'a Redis Cluster', start: (planner) => startOnRedisCluster(3, 'scale-inst:', { planner }) },
];

describe.each(SETUPS)('one conversation, three instances, over HTTP, on $on', ({ start }) => {
  const held = createHeldPlanner(createDemoApp().offlinePlanner);
  const suite = clusterSuite(() => start(held));
  const { streams } = suite;

  it('driven alternately through each instance: every client ends on the same state, every accepted submit applied once', async () => {
    const { cluster } = suite;
    const [A, B, C] = cluster.instances as [E2eServer, E2eServer, E2eServer];
    const [ca, cb, cc] = cluster.clients as [SessionClient, SessionClient, SessionClient];
    const c: Conversation = await newConversation(A, ca);
    expect(await turn(cb, c, 'create a character card', PAGES[1])).toMatchObject({ status: 200, body: { outcome: 'applied' } });

    const opened = (await B.handle.conversations.get(c.cid))!.version;
    const a2ui: A2uiFollower[] = [];
    const htmx: SseConnection[] = [];
    for (const [i, s] of cluster.instances.entries()) {
      a2ui.push(await followA2ui(s.url, c));
      htmx.push(await followHtmx(s.url, c, ca.cookieHeader(), PAGES[i]!, opened));
    }
    streams.push(...a2ui, ...htmx);
    const [fa, fb, fc] = a2ui as [A2uiFollower, A2uiFollower, A2uiFollower];
    for (const [i, s] of cluster.instances.entries()) await caughtUp(s, c.cid, a2ui[i]!);

    // A2UI submit through C; the same request again through A is replayed, not applied.
    const first = characterAction(fc.sim, { name: 'Aria', personality: 'Brave.', tags: 'brave' });
    expect(await cc.a2uiEvent(c, first, 'a2ui-1')).toMatchObject({ status: 200, body: { replayed: false, surface: { rev: 1 } } });
    expect(await ca.a2uiEvent(c, first, 'a2ui-1')).toMatchObject({ status: 200, body: { replayed: true } });
    // B's renderer still shows the rendering before that save: its submit is stale.
    const stale = characterAction(fb.sim, { name: 'Bea' });
    expect(await cb.a2uiEvent(c, stale, 'a2ui-stale')).toMatchObject({ status: 409, body: { code: 'A2UI_C2S_SURFACE_STALE' } });

    // htmx submit through A, from the page A renders; the same form again through C is stale.
    const form = await formOnPage(ca, c);
    expect(await htmlSubmit(ca, c, form, 'html-1', { name: 'Bran', personality: 'Gruff.', tags: 'smith' }, PAGES[0]))
      .toMatchObject({ status: 200, body: { replayed: false, surface: { rev: 2 } } });
    expect(await htmlSubmit(cc, c, form, 'html-stale', { name: 'Cid', personality: 'Odd.', tags: 'x' }, PAGES[2]))
      .toMatchObject({ status: 409, body: { code: 'A2UI_C2S_SURFACE_STALE' } });

    // Regenerate through B (a new epoch), then submit the new rendering through C.
    const regenerate = await cb.post(`${c.base}/surfaces/main/regenerate`, { _csrf: c.csrf }, { as: 'json', headers: { 'X-Surfacer-Page': PAGES[1]! } });
    expect(regenerate.status).toBe(200);
    await regenerate.arrayBuffer();
    await caughtUp(C, c.cid, fc);
    expect(fc.sim.surface('main--e1')?.rendering).toBe(true);
    const afterReset = characterAction(fc.sim, { name: 'Dara', personality: 'Calm.', tags: 'calm' });
    expect(await cc.a2uiEvent(c, afterReset, 'a2ui-2')).toMatchObject({ status: 200, body: { replayed: false, surface: { epoch: 1 } } });

    // A turn held by a slow planner on B is cancelled through C; A's turn then runs.
    const started = held.holdNext();
    const slow = turn(cb, c, 'scene settings please', PAGES[1]);
    await started;
    const cancel = await cc.post(`${c.base}/messages/cancel`, { _csrf: c.csrf }, { as: 'json' });
    expect(await cancel.json()).toEqual({ ok: true, cancelled: true });
    expect(await slow).toMatchObject({ status: 200, body: { outcome: 'cancelled', error: { code: 'PLANNER_CANCELLED' } } });
    expect(await turn(ca, c, 'open my persona', PAGES[0])).toMatchObject({ status: 200, body: { outcome: 'applied' } });
    expect(await turn(cc, c, 'a character named Eve', PAGES[2])).toMatchObject({ status: 200, body: { outcome: 'applied' } });

    // The last change is a submit through B, so every stream has an event for the final version.
    await caughtUp(B, c.cid, fb);
    const last = characterAction(fb.sim, { personality: 'Curious.', tags: 'new' });
    expect(await cb.a2uiEvent(c, last, 'a2ui-3')).toMatchObject({ status: 200, body: { replayed: false } });

    const entries = await readRedisLog(cluster.redis.url, cluster.prefix, c.cid);
    const final = entries.length;
    const stream = parseEventId(fa.lastEventId)!.stream;
    for (const [i, s] of cluster.instances.entries()) {
      expect((await s.handle.conversations.get(c.cid))!.version).toBe(final);
      await reaches(a2ui[i]!.conn, `${stream}-${final}`);
      await reaches(htmx[i]!, String(final));
      a2ui[i]!.sync();
    }

    // Every A2UI client: the same state, exactly; as rendered, that of a fresh snapshot from any instance.
    const states = a2ui.map((f) => hashAll(f.sim.state()));
    expect(states[1]).toEqual(states[0]);
    expect(states[2]).toEqual(states[0]);
    for (const s of cluster.instances) {
      const fresh = await fromSnapshot(s.url, c);
      expect(fresh.checkpoint).toBe(`${stream}-${final}`);
      expect(hashAll(fa.sim.state(), SEMANTIC)).toEqual(hashAll(fresh.sim.state(), SEMANTIC));
    }
    for (const f of a2ui) expect(f.sim.stuckBuffering()).toEqual([]);

    // Every htmx page: an update (HTML) for each version that changed something and that it did
    // not cause itself (those it got in its own response), the same HTML on every instance.
    const updates = htmx.map((conn) => new Map(conn.events.filter((e) => e.type === 'update').map((e) => [Number(e.lastEventId), e.data])));
    for (const [i, conn] of htmx.entries()) {
      const expected = changedVersions(entries, opened, PAGES[i]!).filter((v) => !v.own).map((v) => v.version);
      expect([...updates[i]!.keys()], `page ${i}`).toEqual(expected);
      expect(conn.events.filter((e) => e.type !== 'update')).toEqual([]);
      // Each page's forms carry idempotency keys of their own rendering (a stale tab's submit is a
      // new request); everything else is the same HTML on every instance.
      for (const [version, html] of updates[i]!) {
        for (const other of updates) if (other.has(version)) expect(withoutRenderKeys(other.get(version)!)).toBe(withoutRenderKeys(html));
      }
    }

    // Each accepted submit is in the log exactly once; replays and stale submits are not.
    expect(Object.fromEntries(actionKeyCounts(entries))).toEqual({ 'a2ui-1': 1, 'html-1': 1, 'a2ui-2': 1, 'a2ui-3': 1 });
    expect(entries.filter((e) => e.type === 'action')).toHaveLength(4);
    expect(entries.filter((e) => e.type === 'turn').map((e) => e.type === 'turn' && e.outcome))
      .toEqual(['applied', 'cancelled', 'applied', 'applied']);
    expect(entries.filter((e) => e.type === 'reset')).toHaveLength(1);

    expect(cluster.traffic.serverErrors()).toEqual([]);
    for (const s of cluster.instances) expect(s.errors).toEqual([]);
  });
});

function withoutRenderKeys(html: string): string {
  return html.replace(/name="_idem" value="[^"]*"/g, 'name="_idem" value=""');
}
