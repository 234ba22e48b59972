import { describe, expect, it } from 'vitest';
import { createClientSimV09, type ClientSimV09 } from '../../src/clientsim/index.ts';
import { hashAll } from '../../src/clientsim/snapshot.ts';
import { parseEventId } from '../../src/host-a2ui/index.ts';
import { fillAndSubmitV09, newConversation, type Conversation, type E2eServer } from '../e2e/support/stack.ts';
import { startCluster, type SessionClient } from './support/cluster.ts';
import { clusterSuite } from './support/cluster-suite.ts';
import {
  caughtUp, followA2ui, followA2uiV09, fromSnapshot, fromSnapshotV09, reaches, type A2uiFollower,
} from './support/followers.ts';
import { actionKeyCounts, readRedisLog } from './support/redis-log.ts';
import { characterAction, turn } from './support/user.ts';

/*
 * Issue 13 phase 2 on two instances sharing Redis: v0.8 and v0.9 clients of one conversation on
 * either instance. Each wire version's event ids are log positions of its own stream, the same on
 * every instance: a v0.9 client resumes on the other instance from its buffer, or with just what
 * changed since (an instance that never compiled the conversation to v0.9 does so when the first
 * v0.9 client comes), and an id of the v0.8 stream re-initialises it.
 */
const AS_RENDERED = { reachableOnly: true, sortDataKeys: true } as const;

const suite = clusterSuite(() => startCluster(2, 'scale-versions:'));
const { streams } = suite;

function v09Submit(f: A2uiFollower<ClientSimV09>, surfaceId: string, values: Record<string, string>) {
  return fillAndSubmitV09(createClientSimV09({ state: f.sim.state() }), surfaceId, values);
}

const v09Hashes = (sim: ClientSimV09) => new Map([...sim.surfaces()].map(([id]) => [id, sim.hash(id, AS_RENDERED)]));

describe('v0.8 and v0.9 clients of one conversation on two instances', () => {
  it('share one log; each version resumes on the other instance with its own ids', async () => {
    const { cluster } = suite;
    const [A, B] = cluster.instances as [E2eServer, E2eServer];
    const [ca, cb] = cluster.clients as [SessionClient, SessionClient];
    const c: Conversation = await newConversation(A, ca);
    expect(await turn(cb, c, 'create a character card')).toMatchObject({ status: 200, body: { outcome: 'applied' } });

    // A v0.9 renderer on A, a v0.8 one on B. B has compiled nothing to v0.9 yet.
    const v09a = await followA2uiV09(A.url, c);
    const v08b = await followA2ui(B.url, c);
    streams.push(v09a, v08b);
    await caughtUp(A, c.cid, v09a);
    await caughtUp(B, c.cid, v08b);
    expect(B.handle.a2ui.wire('0.9').hub.stats(c.cid).channels).toBe(0);

    // A v0.9 submit through B, a v0.8 submit through A: both renderers see both.
    expect(await cb.a2uiEvent(c, v09Submit(v09a, 'main--e0', { name: 'Aria', personality: 'Brave.' }), 'v09-1'))
      .toMatchObject({ status: 200, body: { replayed: false, surface: { rev: 1 } } });
    await caughtUp(B, c.cid, v08b);
    expect(await ca.a2uiEvent(c, characterAction(v08b.sim, { name: 'Bran' }), 'v08-1'))
      .toMatchObject({ status: 200, body: { replayed: false, surface: { rev: 2 } } });
    await caughtUp(A, c.cid, v09a);
    await caughtUp(B, c.cid, v08b);
    expect(v09a.sim.surface('main--e0')?.dataModel).toMatchObject({ committed: { name: 'Bran', personality: 'Brave.' } });

    // A's v0.9 renderer loses A and reconnects to B, which has no v0.9 channel: B compiles the
    // conversation to v0.9 now and sends just what changed since the client's version.
    const atA = v09a.lastEventId;
    expect(await cb.a2uiEvent(c, characterAction(v08b.sim, { name: 'Cora' }), 'v08-2')).toMatchObject({ status: 200 });
    v09a.conn.close();
    const onB = await v09a.reconnect(B.url);
    await caughtUp(B, c.cid, v09a);
    const kinds = onB.events.map((e) => Object.keys(JSON.parse(e.data) as object).filter((k) => k !== 'version').join());
    expect(kinds.length).toBeGreaterThan(0);
    expect(kinds).not.toContain('createSurface');
    expect(onB.events.slice(0, -1).every((e) => /-i\d+$/.test(e.lastEventId))).toBe(true);
    expect(parseEventId(onB.events.at(-1)!.lastEventId)!.stream).toBe(parseEventId(atA)!.stream);
    expect(v09a.sim.surface('main--e0')?.dataModel).toMatchObject({ committed: { name: 'Cora' } });

    // Now both instances follow the conversation in v0.9: a second v0.9 renderer on A, and the
    // ids each instance sends for the same log version are the same.
    const v09second = await followA2uiV09(A.url, c);
    streams.push(v09second);
    await caughtUp(A, c.cid, v09second);
    expect(await ca.a2uiEvent(c, v09Submit(v09second, 'main--e0', { name: 'Dara' }), 'v09-2')).toMatchObject({ status: 200 });
    await caughtUp(A, c.cid, v09second);
    await caughtUp(B, c.cid, v09a);
    expect(v09a.lastEventId).toBe(v09second.lastEventId);
    const idsOnA = v09second.conn.events.at(-1)!;
    const idsOnB = v09a.conn.events.at(-1)!;
    expect(idsOnB.lastEventId).toBe(idsOnA.lastEventId);
    expect(idsOnB.data).toBe(idsOnA.data);

    // The renderer on A drops and comes back on B: resumed from B's buffer, nothing re-sent.
    const resumeFrom = v09second.lastEventId;
    expect(await cb.a2uiEvent(c, v09Submit(v09a, 'main--e0', { name: 'Eli' }), 'v09-3')).toMatchObject({ status: 200 });
    v09second.conn.close();
    const resumed = await v09second.reconnect(B.url);
    await caughtUp(B, c.cid, v09second);
    expect(resumed.events.length).toBeGreaterThan(0);
    expect(resumed.events.some((e) => /-i\d+$/.test(e.lastEventId))).toBe(false);
    expect(parseEventId(resumed.events[0]!.lastEventId)!.version).toBeGreaterThan(parseEventId(resumeFrom)!.version);

    // A v0.8 id on B's v0.9 stream (a client that switched versions): a full re-initialisation.
    const wrongStream = await followA2uiV09(B.url, c);
    streams.push(wrongStream);
    await caughtUp(B, c.cid, wrongStream);
    wrongStream.conn.close();
    wrongStream.conn.parser.lastEventId = v08b.lastEventId;
    const fresh = await wrongStream.reconnect(B.url);
    await caughtUp(B, c.cid, wrongStream);
    const first = JSON.parse(fresh.events[0]!.data) as Record<string, unknown>;
    expect(Object.keys(first)).toEqual(['version', 'deleteSurface']);
    expect(fresh.events[0]!.lastEventId).toMatch(/w09-\d+-i0$/);

    // Every v0.9 renderer, on either instance: the state of a fresh v0.9 snapshot from either instance.
    const entries = await readRedisLog(cluster.redis.url, cluster.prefix, c.cid);
    const final = entries.length;
    for (const f of [v09a, v09second, wrongStream]) {
      await reaches(f.conn, `${parseEventId(f.lastEventId)!.stream}-${final}`);
      f.sync();
      expect(f.sim.endOfStream().filter((v) => v.severity === 'error')).toEqual([]);
    }
    for (const s of cluster.instances) {
      const snap = await fromSnapshotV09(s.url, c);
      expect(parseEventId(snap.checkpoint!)).toMatchObject({ stream: parseEventId(v09a.lastEventId)!.stream, version: final });
      for (const f of [v09a, v09second, wrongStream]) expect(v09Hashes(f.sim)).toEqual(v09Hashes(snap.sim));
    }
    // And the v0.8 renderer agrees with a v0.8 snapshot.
    await caughtUp(B, c.cid, v08b);
    expect(hashAll(v08b.sim.state(), AS_RENDERED)).toEqual(hashAll((await fromSnapshot(A.url, c)).sim.state(), AS_RENDERED));

    expect(Object.fromEntries(actionKeyCounts(entries))).toEqual({ 'v09-1': 1, 'v08-1': 1, 'v08-2': 1, 'v09-2': 1, 'v09-3': 1 });
    expect(cluster.traffic.serverErrors()).toEqual([]);
    for (const s of cluster.instances) expect(s.errors).toEqual([]);
  });
});
