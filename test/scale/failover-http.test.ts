import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserActionMessage } from '../../src/clientsim/index.ts';
import { hashAll } from '../../src/clientsim/snapshot.ts';
import { parseEventId } from '../../src/host-a2ui/index.ts';
import { newConversation, type Conversation, type E2eServer } from '../e2e/support/stack.ts';
import { openSse, type SseConnection } from '../support/sse-client.ts';
import { startChildInstance, type ChildInstance } from './support/child-instance.ts';
import { startCluster, type SessionClient } from './support/cluster.ts';
import { clusterSuite } from './support/cluster-suite.ts';
import { caughtUp, followA2ui, followHtmx, reaches, type A2uiFollower } from './support/followers.ts';
import { actionKeyCounts, readRedisLog } from './support/redis-log.ts';
import { characterAction, turn } from './support/user.ts';

/*
 * Issue 10, failover: an instance run as a child process (`surfacer serve --redis URL`) is
 * SIGKILLed while renderers stream from it and submit through it. They reconnect to a survivor
 * with Last-Event-ID, retry what was never acknowledged with the same idempotency key and body,
 * and must end where a renderer that stayed on the survivor ends; the log holds every
 * acknowledged submission exactly once.
 *
 * Survivor S1 follows every conversation all along (the uncut renderers are on it), so a
 * renderer that moves there is resumed from S1's buffer: its event ids simply continue. Survivor
 * S2 follows nothing, so a renderer that moves there is brought up to date from the IR of the
 * version it holds (catch-up, provisional `-i` ids) or, mid-version, re-initialised.
 */
const SEMANTIC = { reachableOnly: true, sortDataKeys: true } as const;
const PROVISIONAL = /-i\d+$/;
const USERS = 3;

const suite = clusterSuite(() => startCluster(2, 'scale-failover:'));
const { streams } = suite;
// The instance the test kills, beside the suite's (its hooks run inside the suite's: started
// after the cluster, killed before it stops).
let child: ChildInstance | undefined;
beforeAll(async () => { child = await startChildInstance(suite.cluster.redis.url, suite.cluster.prefix); });
afterAll(async () => { await child?.kill(); });

interface Submission { key: string; action: UserActionMessage; status?: number; lost?: boolean }
interface User { c: Conversation; uncut: A2uiFollower; cut: A2uiFollower; submissions: Submission[] }

describe('an instance SIGKILLed under its clients', () => {
  it('renderers move to survivors with Last-Event-ID and end where an uncut renderer ends; no acknowledged submit lost or doubled', async () => {
    const { cluster } = suite;
    const [S1, S2] = cluster.instances as [E2eServer, E2eServer];
    const K = child!;
    const viaK = cluster.clientFor(K.url, 'killed');
    const [via1, via2] = cluster.clients as [SessionClient, SessionClient];

    const users: User[] = [];
    for (let j = 0; j < USERS; j += 1) {
      // Created and planned through the instance that will die; the survivors read it from Redis.
      const c = await newConversation(S1, viaK);
      expect(await turn(viaK, c, 'create a character card')).toMatchObject({ status: 200 });
      const uncut = await followA2ui(S1.url, c);
      const cut = await followA2ui(K.url, c);
      streams.push(uncut, cut);
      users.push({ c, uncut, cut, submissions: [] });
    }
    // An htmx page on K too, for the first conversation.
    const pageVersion = (await S1.handle.conversations.get(users[0]!.c.cid))!.version;
    const page = await followHtmx(K.url, users[0]!.c, viaK.cookieHeader(), 'page-on-killed', pageVersion);
    streams.push(page);

    let killed: Promise<void> | undefined;
    const acked = (u: User): number => u.submissions.filter((s) => s.status === 200).length;
    async function submitThroughK(u: User, j: number): Promise<void> {
      for (let n = 0; killed === undefined; n += 1) {
        // The user submits what their renderer (on K) shows, once it shows the current state.
        await caughtUp(S1, u.c.cid, u.uncut);
        const deadline = Date.now() + 10_000;
        while (u.cut.lastEventId !== u.uncut.lastEventId && killed === undefined) {
          if (Date.now() > deadline) throw new Error(`renderer on K stuck at ${u.cut.lastEventId}, S1 at ${u.uncut.lastEventId}`);
          await new Promise((r) => setTimeout(r, 5));
        }
        if (killed !== undefined) return;
        u.cut.sync();
        const submission: Submission = { key: `u${j}-${n}`, action: characterAction(u.cut.sim, { name: `User ${j}.${n}`, personality: `Take ${n}.` }) };
        u.submissions.push(submission);
        const answer = viaK.a2uiEvent(u.c, submission.action, submission.key);
        // Killed while this request is on its way (and the others wherever they are).
        if (killed === undefined && users.every((x) => acked(x) >= 2)) killed = K.kill();
        const status = await answer.then((a) => a.status, () => undefined);
        if (status === undefined) {
          submission.lost = true;
          return;
        }
        submission.status = status;
        expect(status, submission.key).toBe(200);
      }
    }
    await Promise.all(users.map((u, j) => submitThroughK(u, j)));
    await killed;
    const logAtKill = await Promise.all(users.map((u) => readRedisLog(cluster.redis.url, cluster.prefix, u.c.cid)));
    for (const u of users) await u.cut.conn.ended;
    await page.ended;
    expect(K.stderr()).not.toMatch(/"level":"error"/);

    // Retries of everything unacknowledged, same key and body, through a survivor: applied once, or replayed.
    for (const [j, u] of users.entries()) {
      for (const s of u.submissions.filter((x) => x.status === undefined)) {
        const retry = await (j % 2 === 0 ? via1 : via2).a2uiEvent(u.c, s.action, s.key);
        expect(retry.status, s.key).toBe(200);
        const wasApplied = actionKeyCounts(logAtKill[j]!).get(s.key) === 1;
        expect(retry.body.replayed, s.key).toBe(wasApplied);
        s.status = 200;
      }
    }
    // The conversations move on while the renderers are away.
    for (const [j, u] of users.entries()) {
      await caughtUp(S1, u.c.cid, u.uncut);
      const away = { key: `u${j}-away`, action: characterAction(u.uncut.sim, { name: `Away ${j}`, personality: 'Away.' }) };
      expect(await via1.a2uiEvent(u.c, away.action, away.key)).toMatchObject({ status: 200, body: { replayed: false } });
      u.submissions.push({ ...away, status: 200 });
    }

    // Reconnects: user 0 and 2 to S1 (resumed from its buffer), user 1 to S2 (caught up from the IR it holds).
    const target = [S1, S2, S1];
    for (const [j, u] of users.entries()) {
      const before = u.cut.lastEventId;
      expect(parseEventId(before), before).toBeDefined();
      const next = await u.cut.reconnect(target[j]!.url);
      await caughtUp(target[j]!, u.c.cid, u.cut);
      const first = next.events[0]!;
      if (target[j] === S1) {
        expect(first.lastEventId, `user ${j} resumed`).not.toMatch(PROVISIONAL);
      } else {
        expect(first.lastEventId, `user ${j} caught up`).toMatch(PROVISIONAL);
        // A catch-up is the update from the version held; a re-initialisation (for a renderer cut
        // inside a version's messages) deletes every surface first.
        const reinit = next.events.some((e) => 'deleteSurface' in (JSON.parse(e.data) as object));
        expect(reinit, `user ${j} from ${before}`).toBe(parseEventId(before)!.index !== undefined);
      }
    }
    // The htmx page moves to S1 too: one refresh brings it to the current version.
    const pageAgain = await openSse(`${S1.url}${users[0]!.c.base}/events?page=page-on-killed`, {
      headers: { cookie: via1.cookieHeader(), 'Last-Event-ID': page.parser.lastEventId || String(pageVersion) },
    });
    streams.push(pageAgain);
    const refresh = await pageAgain.next();
    expect(refresh).toMatchObject({ type: 'update', lastEventId: String((await S1.handle.conversations.get(users[0]!.c.cid))!.version) });

    // One more submit each through the survivors; every renderer follows it.
    for (const [j, u] of users.entries()) {
      const via = j % 2 === 0 ? via2 : via1;
      const last = { key: `u${j}-last`, action: characterAction(u.cut.sim, { name: `Last ${j}`, personality: 'Last.' }) };
      expect(await via.a2uiEvent(u.c, last.action, last.key)).toMatchObject({ status: 200, body: { replayed: false } });
      u.submissions.push({ ...last, status: 200 });
      const entries = await readRedisLog(cluster.redis.url, cluster.prefix, u.c.cid);
      const stream = parseEventId(u.uncut.lastEventId)!.stream;
      await reaches(u.uncut.conn, `${stream}-${entries.length}`);
      await reaches(u.cut.conn, `${stream}-${entries.length}`);
      u.uncut.sync();
      u.cut.sync();
      expect(hashAll(u.cut.sim.state(), SEMANTIC), `user ${j}`).toEqual(hashAll(u.uncut.sim.state(), SEMANTIC));
      if (target[j] === S1) {
        expect(hashAll(u.cut.sim.state())).toEqual(hashAll(u.uncut.sim.state()));
        // Ids are log positions, the same on every instance: after the init, across the cut, the
        // resumed renderer saw exactly the ids the uncut one saw.
        const ids = u.cut.sessions.flatMap((conn) => conn.events.map((e) => e.lastEventId));
        const reference = u.uncut.conn.events.map((e) => e.lastEventId);
        const afterInit = (list: string[]): string[] => list.slice(list.findIndex((id) => !PROVISIONAL.test(id)) + 1);
        expect(afterInit(ids)).toEqual(afterInit(reference));
      }
      expect(u.cut.sim.stuckBuffering()).toEqual([]);

      // Every acknowledged submission exactly once, nothing else.
      const counts = actionKeyCounts(entries);
      expect(Object.fromEntries(counts)).toEqual(Object.fromEntries(u.submissions.map((s) => [s.key, 1])));
    }

    const lost = users.flatMap((u) => u.submissions.filter((s) => s.lost));
    expect(lost.length).toBeGreaterThanOrEqual(1);
    expect(cluster.traffic.serverErrors()).toEqual([]);
    for (const s of cluster.instances) expect(s.errors).toEqual([]);
  });
});
