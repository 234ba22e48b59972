import { describe, expect, it } from 'vitest';
import { hashAll } from '../../src/clientsim/snapshot.ts';
import { parseEventId } from '../../src/host-a2ui/index.ts';
import { newConversation, type Conversation, type E2eServer } from '../e2e/support/stack.ts';
import type { SseConnection } from '../support/sse-client.ts';
import { startCluster, type Answer, type SessionClient } from './support/cluster.ts';
import { clusterSuite } from './support/cluster-suite.ts';
import { caughtUp, followA2ui, followHtmx, fromSnapshot, reaches, type A2uiFollower } from './support/followers.ts';
import { actionKeyCounts, readRedisLog } from './support/redis-log.ts';
import { characterAction, formOnPage, htmlSubmit, turn } from './support/user.ts';

/*
 * Issue 10, outages: Redis is killed (SIGKILL, AOF with appendfsync always) while three
 * instances serve, with writes in flight. During the outage every state-changing or
 * state-reading request answers 503 with the canonical retryable error and a Retry-After
 * header, /readyz says not ready, and open streams stay up. Redis comes back on the same port
 * and directory: every instance serves again without a restart, everything acknowledged before
 * is in the log, and the streams that stayed open catch up.
 */
const UNAVAILABLE = /^(STORE_UNAVAILABLE|CONVERSATION_LOG_FAILED)$/;
const SEMANTIC = { reachableOnly: true, sortDataKeys: true } as const;
const PAGES = ['page-restart0', 'page-restart1', 'page-restart2'];

const suite = clusterSuite(() => startCluster(3, 'scale-restart:', { proxied: true }));
const { streams } = suite;

interface Reply { status: number; headers: Headers; body: Record<string, unknown> }

async function reply(res: Response): Promise<Reply> {
  const text = await res.text();
  let body: Record<string, unknown>;
  try { body = JSON.parse(text) as Record<string, unknown>; } catch { body = { notJson: text.slice(0, 200) }; }
  return { status: res.status, headers: res.headers, body };
}

function expectUnavailable(answer: Pick<Reply, 'status' | 'headers' | 'body'>, what: string): void {
  expect.soft(answer.status, what).toBe(503);
  expect.soft(answer.headers.get('retry-after') ?? '(none)', `${what}: Retry-After`).toMatch(/^\d+$/);
  expect.soft(answer.body, what).toMatchObject({ code: expect.stringMatching(UNAVAILABLE), retryable: true, recovery_path: 'retry' });
}

interface Write { c: Conversation; key: string; send(): Promise<Reply>; answer?: Reply }

describe('Redis restarted under running instances', () => {
  it('503 with a retry hint while it is away, nothing acknowledged lost, every instance serves again by itself', async () => {
    const { cluster } = suite;
    const [A, B] = cluster.instances as [E2eServer, E2eServer, E2eServer];
    const clients = cluster.clients as [SessionClient, SessionClient, SessionClient];
    const [ca, cb] = clients;
    const m = await newConversation(A, ca);
    expect(await turn(cb, m, 'create a character card')).toMatchObject({ status: 200 });
    const opened = (await A.handle.conversations.get(m.cid))!.version;
    // Renderers on A and B; htmx pages on all three (the third serves this conversation only to htmx).
    const a2ui = [await followA2ui(A.url, m), await followA2ui(B.url, m)] as [A2uiFollower, A2uiFollower];
    const htmx: SseConnection[] = [];
    for (const [i, s] of cluster.instances.entries()) htmx.push(await followHtmx(s.url, m, ca.cookieHeader(), PAGES[i]!, opened));
    streams.push(...a2ui, ...htmx);
    await caughtUp(A, m.cid, a2ui[0]);
    await caughtUp(B, m.cid, a2ui[1]);
    expect(await ca.a2uiEvent(m, characterAction(a2ui[0].sim, { name: 'Aria', personality: 'Brave.' }), 'before')).toMatchObject({ status: 200 });

    // Writers keep submitting through every instance (the renderer on A, and htmx pages of side
    // conversations on each instance) until Redis dies under them, wherever each request is then.
    const side: Array<{ c: Conversation; client: SessionClient }> = [];
    for (const [i, client] of [...clients, ...clients].entries()) {
      const x = await newConversation(A, client);
      expect(await turn(client, x, 'create a character card'), `side ${i}`).toMatchObject({ status: 200 });
      side.push({ c: x, client });
    }
    const ended = streams.map(() => false);
    [...a2ui.map((f) => f.conn), ...htmx].forEach((conn, i) => { void conn.ended.then(() => { ended[i] = true; }); });
    const writes: Write[] = [];
    let outageStart = -1;
    let killed: Promise<string> | undefined;
    async function write(c: Conversation, key: string, send: () => Promise<Reply>): Promise<boolean> {
      const w: Write = { c, key, send };
      writes.push(w);
      // After 8 acknowledged writes, Redis dies right after it made the next append durable
      // (this one or another's), before its reply reaches the instance.
      if (killed === undefined && writes.filter((x) => x.answer?.status === 200).length >= 8) {
        outageStart = cluster.traffic.answers.length;
        killed = cluster.proxy!.killAfterNextAppend();
      }
      w.answer = await send();
      return w.answer.status === 200;
    }
    const writers = [
      (async () => {
        for (let n = 0; killed === undefined; n += 1) {
          const version = await caughtUp(A, m.cid, a2ui[0]).catch(() => undefined);
          if (version === undefined) return;
          const action = characterAction(a2ui[0].sim, { name: `Renderer ${n}`, personality: 'Busy.' });
          if (!(await write(m, `m-${n}`, () => ca.a2uiEvent(m, action, `m-${n}`)))) return;
        }
      })(),
      ...side.map(async ({ c, client }, i) => {
        for (let n = 0; killed === undefined; n += 1) {
          const form = await formOnPage(client, c).catch(() => undefined);
          if (form === undefined) return;
          const values = { name: `Side ${i}.${n}`, personality: 'Busy.', tags: '' };
          if (!(await write(c, `s${i}-${n}`, () => htmlSubmit(client, c, form, `s${i}-${n}`, values)))) return;
        }
      }),
    ];
    await Promise.all(writers);
    expect(killed, 'Redis was killed under the writers').toBeDefined();
    const heldRequest = await killed;
    const refused = writes.filter((w) => w.answer!.status !== 200);
    for (const w of refused) expectUnavailable(w.answer!, `in flight: ${w.key}`);
    // The appends whose replies never came back (one, or a few sent together) were refused,
    // whether or not Redis made them durable (see below).
    const held = writes.filter((w) => heldRequest!.includes(`"idempotencyKey":"${w.key}"`) || heldRequest!.includes(`"idempotencyKey":"${w.key} `));
    expect(held.length).toBeGreaterThanOrEqual(1);
    for (const w of held) expect(refused).toContain(w);

    // While Redis is away, on every instance.
    for (const [i, s] of cluster.instances.entries()) {
      const client = clients[i]!;
      const ready = await fetch(`${s.url}/readyz`);
      expect(ready.status, `readyz ${i}`).toBe(503);
      expect(await ready.json()).toMatchObject({ ok: false, store: { ok: false, engine: 'redis' } });
      expect((await (await fetch(`${s.url}/healthz`)).json()), `healthz ${i}`).toMatchObject({ ok: true, store: { ok: false } });
      const json = { as: 'json' } as const;
      expectUnavailable(await reply(await client.get('/', json)), `new conversation on ${i}`);
      expectUnavailable(await reply(await client.get(m.base, json)), `page on ${i}`);
      expectUnavailable(await reply(await client.post(`${m.base}/messages`, { _csrf: m.csrf, text: 'hello' }, json)), `turn on ${i}`);
      expectUnavailable(await reply(await client.post(`${m.base}/actions`, { _csrf: m.csrf, _surface: 'main', _action: 'form.submit' }, json)), `submit on ${i}`);
      expectUnavailable(await reply(await client.post(`${m.base}/surfaces/main/regenerate`, { _csrf: m.csrf }, json)), `regenerate on ${i}`);
      expectUnavailable(await reply(await client.get(`${m.base}/events?v=${opened}`, json)), `htmx stream on ${i}`);
      // As the A2UI client sends them: no Accept header, a bearer token.
      expectUnavailable(await client.a2uiEvent(m, characterAction(a2ui[0].sim, { name: 'Down', personality: 'Away.' }), `down-${i}`), `A2UI submit on ${i}`);
      const stream = await fetch(`${s.url}${m.a2ui}/stream`, { headers: { Authorization: `Bearer ${m.token}`, Accept: 'text/event-stream' } });
      cluster.traffic.record(`i${i}`, 'GET /a2ui/c/:cid/stream', stream.status);
      expectUnavailable(await reply(stream), `A2UI stream on ${i}`);
    }
    // The streams that were open stay open.
    expect(ended).toEqual(streams.map(() => false));

    await cluster.redis.start();
    for (const s of cluster.instances) {
      await expect.poll(async () => (await fetch(`${s.url}/readyz`)).status, { timeout: 15_000, interval: 50 }).toBe(200);
    }
    const outageEnd = cluster.traffic.answers.length;

    // Everything acknowledged is there, once; what was refused is there at most once, and its retry tells which.
    for (const w of writes) {
      const counts = actionKeyCounts(await readRedisLog(cluster.redis.url, cluster.prefix, w.c.cid));
      if (w.answer!.status === 200) {
        expect(counts.get(w.key), w.key).toBe(1);
        continue;
      }
      const written = counts.get(w.key) ?? 0;
      expect(written, w.key).toBeLessThanOrEqual(1);
      expect(await w.send(), w.key).toMatchObject({ status: 200, body: { replayed: written === 1 } });
    }
    const downKeys = (await readRedisLog(cluster.redis.url, cluster.prefix, m.cid))
      .filter((e) => e.type === 'action' && e.request.idempotencyKey?.startsWith('down-'));
    expect(downKeys).toEqual([]);

    // Every instance serves again: a turn and a submit through each, on the conversation the streams follow.
    for (const [i, s] of cluster.instances.entries()) {
      expect(await turn(clients[i]!, m, 'a character named Zed', PAGES[i]), `turn on ${i}`).toMatchObject({ status: 200, body: { outcome: 'applied' } });
      const form = await formOnPage(clients[i]!, m);
      expect(await htmlSubmit(clients[i]!, m, form, `after-${i}`, { name: `After ${i}`, personality: 'Back.', tags: '' }, PAGES[i]), `submit on ${i}`)
        .toMatchObject({ status: 200, body: { replayed: false } });
      expect((await s.handle.conversations.get(m.cid))!.version).toBe((await readRedisLog(cluster.redis.url, cluster.prefix, m.cid)).length);
    }
    await caughtUp(B, m.cid, a2ui[1]);
    expect(await cb.a2uiEvent(m, characterAction(a2ui[1].sim, { name: 'Final', personality: 'Done.' }), 'final')).toMatchObject({ status: 200 });

    // The streams opened before the outage follow to the end, and agree.
    const entries = await readRedisLog(cluster.redis.url, cluster.prefix, m.cid);
    const stream = parseEventId(a2ui[0].lastEventId)!.stream;
    for (const f of a2ui) {
      await reaches(f.conn, `${stream}-${entries.length}`);
      f.sync();
      expect(f.sim.stuckBuffering()).toEqual([]);
    }
    expect(hashAll(a2ui[1].sim.state())).toEqual(hashAll(a2ui[0].sim.state()));
    // As rendered, what a renderer starting now gets, from the instance that never streamed it before.
    const fresh = await fromSnapshot(cluster.instances[2]!.url, m);
    expect(fresh.checkpoint).toBe(`${stream}-${entries.length}`);
    expect(hashAll(a2ui[0].sim.state(), SEMANTIC)).toEqual(hashAll(fresh.sim.state(), SEMANTIC));
    for (const conn of htmx) await reaches(conn, String(entries.length));
    expect(ended).toEqual(streams.map(() => false));

    const duringOutage = (a: Answer): boolean => {
      const index = cluster.traffic.answers.indexOf(a);
      return a.status === 503 && index >= outageStart && index < outageEnd;
    };
    expect(cluster.traffic.serverErrors(duringOutage)).toEqual([]);
    for (const s of cluster.instances) expect(s.errors).toEqual([]);
  });
});
