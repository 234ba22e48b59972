import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClientSimV09 } from '../../src/clientsim/index.ts';
import { hashAll } from '../../src/clientsim/snapshot.ts';
import type { Conversation } from '../e2e/support/stack.ts';
import { startRedis, type TestRedis } from '../support/redis-server.ts';
import type { SseConnection } from '../support/sse-client.ts';
import { SessionClient, Traffic } from './support/cluster.ts';
import { a2uiWriter, ENDPOINTS, htmxWriter, longest, probe, Recorder, type Endpoint, type Writer } from './support/fault-load.ts';
import { followA2ui, followA2uiV09, followHtmx, fromSnapshot, fromSnapshotV09, type A2uiFollower } from './support/followers.ts';
import { startRedisProxy, type RedisProxy } from './support/redis-proxy.ts';
import { actionKeyCounts, changedVersions, readRedisLog } from './support/redis-log.ts';
import { characterAction, turn } from './support/user.ts';
import { caughtUpOn, currentOn, newConversationOn, startFaultInstance, type FaultInstance, type InstanceConfig } from './faults/instances.ts';
import { notRunningDuring, watchLoop } from './faults/loop-watch.ts';
import { startProber, type Prober } from './faults/prober.ts';

/*
 * Issue 24, stalls and partitions. Two instances, each in a process of its own and connected to
 * one real redis-server through a TCP proxy of its own, serve a conversation followed by A2UI
 * renderers (v0.8 on both, v0.9 on one) and htmx pages on both, while clients submit through
 * both instances (alternating, as a load balancer would; a refused submit goes again with the
 * same key and body) and probers call every endpoint of both. Each fault in turn: Redis
 * SIGSTOPped, both links blackholed, both links slowed past the command deadline and below it,
 * connections cut right after an append reached Redis, one instance partitioned while the other
 * keeps Redis.
 *
 * Under every fault: /healthz answers within 100 ms, /readyz within its deadline, every
 * refusal is the canonical 503 with Retry-After, no stream ends or falls silent (heartbeats go
 * on). After it: nothing acknowledged is lost or doubled, every stream catches up, and every
 * renderer ends on the state a fresh one gets. The clients run in this process, the instances
 * and the prober each in their own: the clients' work cannot hold up an instance. What an
 * instance's own work held its event loop is asserted; out of an answer's time is taken only
 * what of it the instance's or the client's process was not running at all (loop-watch.ts).
 * The suite prints, per fault, every endpoint's longest answer (raw), the recovery times and
 * the event-loop delays (docs/reliability.md records them).
 */
const PREFIX = 'faults:';
const COMMAND_TIMEOUT_MS = 300;
const READY_TIMEOUT_MS = 500;
const HEALTHZ_LIMIT_MS = 100;
/** An instance's own work holding its event loop longer than /healthz may take would make /healthz late on any machine. */
const OWN_WORK_LIMIT_MS = HEALTHZ_LIMIT_MS;
const HEARTBEAT_MS = 100;
const FAULT_MS = 1_200;
const SEMANTIC = { reachableOnly: true, sortDataKeys: true } as const;
const UNAVAILABLE = /^(STORE_UNAVAILABLE|CONVERSATION_LOG_FAILED)$/;
const PAGES = ['faults-page-a', 'faults-page-b'];
const v09Hashes = (sim: ClientSimV09): Map<string, string | undefined> => new Map([...sim.surfaces()].map(([id]) => [id, sim.hash(id, SEMANTIC)]));

interface Fault {
  name: string;
  /** Instances that lose Redis (their streams get nothing but heartbeats meanwhile). */
  faulted: number[];
  /** Redis stops answering the faulted instances (answers are bounded by the command deadline). */
  stall: boolean;
  begin(): Promise<void> | void;
  holdMs: number;
  end(): Promise<void> | void;
}

interface Row {
  fault: string;
  longest: Record<Endpoint, number>;
  accepted: number;
  refused: number;
  other: number;
  /** What the other answers were: `endpoint status code × count`. */
  otherKinds: string;
  lost: number;
  doubled: number;
  firstActionMs: number;
  caughtUpMs: number;
  silenceMs: number;
  /** The longest event-loop delay of either instance, in its own process. */
  instanceLagMs: number;
  /** The longest either instance's own work (CPU time) held its event loop. */
  instanceOwnMs: number;
  /** The longest event-loop delay of this process (every client runs in it). */
  clientLagMs: number;
}

let redis: TestRedis;
let proxies: RedisProxy[] = [];
const servers: FaultInstance[] = [];
let clients: SessionClient[] = [];
let m: Conversation;
const sides: Conversation[] = [];
let renderers: A2uiFollower[] = [];
let v09: A2uiFollower<ClientSimV09>;
let pages: SseConnection[] = [];
let pageOpenedAt = 0;
const rows: Row[] = [];
let prober: Prober | undefined;
/** A third instance whose hub replays only 2 messages, on a proxy of its own (the case of a renderer away). */
let spare: { proxy: RedisProxy; instance: FaultInstance } | undefined;
/** This process's event loop: the clients' (every client but the prober runs here). */
const clientLoop = watchLoop();
const streamEnded: boolean[] = [];

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
async function until(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(5);
  }
}

/** An instance on `proxy`, with the suite's short deadlines and heartbeats (`hub`: its A2UI hub's settings). */
function instanceOn(proxy: RedisProxy, hub: InstanceConfig['a2ui'] = {}): Promise<FaultInstance> {
  return startFaultInstance({
    a2ui: { heartbeatMs: HEARTBEAT_MS, ...hub },
    options: {
      redis: { url: proxy.url, prefix: PREFIX },
      env: { SURFACER_REDIS_COMMAND_TIMEOUT_MS: String(COMMAND_TIMEOUT_MS), SURFACER_READY_TIMEOUT_MS: String(READY_TIMEOUT_MS), SURFACER_REDIS_MAX_IN_FLIGHT: '64' },
      hostLimits: { sseHeartbeatMs: HEARTBEAT_MS },
    },
  });
}

beforeAll(async () => {
  redis = await startRedis();
  proxies = [await startRedisProxy(redis), await startRedisProxy(redis)];
  const spareProxy = await startRedisProxy(redis);
  // Started with the others (a process takes seconds to start); closed by the case that uses it.
  const [a, b, c] = await Promise.all([...proxies.map((proxy) => instanceOn(proxy)), instanceOn(spareProxy, { hubOptions: { limits: { bufferMessages: 2 } } })]);
  servers.push(a!, b!);
  spare = { proxy: spareProxy, instance: c! };
  const jar = new Map<string, string>();
  const traffic = new Traffic();
  clients = servers.map((s, i) => new SessionClient(s.url, `i${i}`, jar, traffic));
  const [A, B] = servers as [FaultInstance, FaultInstance];
  m = await newConversationOn(A, clients[0]!);
  expect(await turn(clients[1]!, m, 'create a character card')).toMatchObject({ status: 200 });
  for (let j = 0; j < 3; j += 1) {
    const side = await newConversationOn(j % 2 === 0 ? A : B, clients[j % 2]!);
    expect(await turn(clients[j % 2]!, side, 'create a character card')).toMatchObject({ status: 200 });
    sides.push(side);
  }
  pageOpenedAt = (await readRedisLog(redis.url, PREFIX, m.cid)).length;
  renderers = [await followA2ui(A.url, m), await followA2ui(B.url, m)];
  v09 = await followA2uiV09(B.url, m);
  pages = [
    await followHtmx(A.url, m, clients[0]!.cookieHeader(), PAGES[0]!, pageOpenedAt),
    await followHtmx(B.url, m, clients[1]!.cookieHeader(), PAGES[1]!, pageOpenedAt),
  ];
  prober = await startProber(servers.map((s) => s.url));
  streams().forEach((conn, i) => { streamEnded[i] = false; void conn.ended.then(() => { streamEnded[i] = true; }); });
}, 60_000);

afterAll(async () => {
  await prober?.stop();
  for (const conn of streams()) conn.close();
  if (rows.length > 0) console.log(`\nFault injection (2 instances, command deadline ${COMMAND_TIMEOUT_MS} ms, /readyz deadline ${READY_TIMEOUT_MS} ms, fault held ${FAULT_MS} ms)\n${table(rows)}\n`);
  await Promise.all([...servers, ...(spare ? [spare.instance] : [])].map((s) => s.close()));
  await spare?.proxy.close();
  await Promise.all(proxies.map((p) => p.close()));
  await redis?.stop();
});

function streams(): SseConnection[] {
  return [...renderers.map((r) => r.conn), v09.conn, ...pages];
}

/** Instance of each stream of streams(), in order. */
const STREAM_INSTANCES = [0, 1, 1, 0, 1];

/** What each htmx page must have received once the log is at `version` (its last event id at least). */
async function pageDues(version: number): Promise<number[]> {
  const entries = (await readRedisLog(redis.url, PREFIX, m.cid)).slice(0, version);
  return PAGES.map((page) => changedVersions(entries, pageOpenedAt, page).at(-1)?.version ?? 0);
}

/** Every stream holds the log up to `version` (what its instance published for it, once that instance has it). */
async function allCaughtUp(version: number, dues: readonly number[]): Promise<boolean> {
  const followers: Array<[A2uiFollower<unknown>, number]> = [[renderers[0]!, 0], [renderers[1]!, 1], [v09, 1]];
  for (const [f, i] of followers) {
    const view = await servers[i]!.view(m.cid, f);
    if (view.checkpoint < version || !view.holds) return false;
  }
  return pages.every((conn, i) => Number(conn.parser.lastEventId || 0) >= dues[i]!);
}

/** Watches every stream while `running()`: each interval in which one received nothing (no event, no ping). */
async function silences(running: () => boolean): Promise<Array<{ instance: number; from: number; to: number }>> {
  const conns = streams();
  const seen = conns.map((c) => c.events.length + c.comments.length);
  const since = conns.map(() => performance.now());
  const gaps: Array<{ instance: number; from: number; to: number }> = [];
  const close = (i: number, now: number): void => { gaps.push({ instance: STREAM_INSTANCES[i]!, from: since[i]!, to: now }); };
  while (running()) {
    await sleep(10);
    const now = performance.now();
    conns.forEach((c, i) => {
      const count = c.events.length + c.comments.length;
      if (count === seen[i]) return;
      close(i, now);
      seen[i] = count;
      since[i] = now;
    });
  }
  const end = performance.now();
  conns.forEach((_c, i) => close(i, end));
  return gaps;
}

async function runFault(fault: Fault, tag: string): Promise<Row> {
  const rec = new Recorder();
  const probeConversations = [await newConversationOn(servers[0]!, clients[0]!), await newConversationOn(servers[1]!, clients[1]!)];
  const writers: Writer[] = [
    a2uiWriter(`${tag}-m`, m, (i) => currentOn(servers[i]!, m.cid, renderers[i]!), clients, renderers, rec),
    ...sides.map((c, j) => htmxWriter(`${tag}-s${j}`, c, clients, rec)),
  ];
  const probers = servers.map((s, i) => probe(i, s, clients[i]!, probeConversations[i]!, rec));
  let stopped = false;
  try {
    await until(() => writers.every((w) => w.writes.filter((x) => x.final === 200).length >= 2), 20_000, 'two acknowledged submissions per writer');

    await Promise.all([...servers.map((s) => s.loop()), prober!.loop()]);
    clientLoop.take();
    let faulty = true;
    const silence = silences(() => faulty);
    const faultStart = performance.now();
    await fault.begin();
    await sleep(fault.holdMs);
    await fault.end();
    const faultEnd = performance.now();
    faulty = false;
    const gaps = await silence;

    // Recovery: every stream holds what the log held when the fault ended; every writer gets a
    // submission acknowledged that it sent after the end (its refused ones retried before).
    const atEnd = (await readRedisLog(redis.url, PREFIX, m.cid)).length;
    const dues = await pageDues(atEnd);
    const caughtUp = until(() => allCaughtUp(atEnd, dues), 20_000, `every stream at version ${atEnd}`).then(() => performance.now() - faultEnd);
    await until(() => writers.every((w) => w.writes.some((x) => x.final === 200 && x.sentAt! >= faultEnd)), 20_000, 'an acknowledged submission per writer after the fault');
    const caughtUpMs = await caughtUp;
    await Promise.all([...writers.map((w) => w.stop()), ...probers.map((p) => p.stop())]);
    stopped = true;
    const loops = await Promise.all(servers.map((s) => s.loop()));
    const proberLoop = await prober!.loop();
    const clientReport = clientLoop.take();

    // Acknowledged exactly once; what was finally refused (other than 503) not applied.
    let lost = 0;
    let doubled = 0;
    const counts = new Map<string, Map<string, number>>();
    for (const cid of new Set(writers.flatMap((w) => w.writes.map((x) => x.cid)))) counts.set(cid, actionKeyCounts(await readRedisLog(redis.url, PREFIX, cid)));
    for (const w of writers.flatMap((x) => x.writes)) {
      const n = counts.get(w.cid)!.get(w.key) ?? 0;
      if (w.final === 200) {
        if (n === 0) lost += 1;
        if (n > 1) doubled += 1;
      } else {
        expect.soft(n, `${w.key} answered ${w.final} but applied`).toBe(0);
      }
    }
    const acceptedAfter = writers.flatMap((w) => w.writes).filter((x) => x.final === 200 && x.sentAt! >= faultEnd).map((x) => x.answeredAt! - faultEnd);
    // The probes as the prober process saw them, from the fault's start to the end of recovery.
    const samples = [...rec.samples, ...prober!.samples.filter((s) => s.sentAt >= faultStart && s.sentAt + s.ms <= performance.now())];
    const served = rec.samples.filter((s) => s.endpoint !== 'healthz' && s.endpoint !== 'readyz');
    const row: Row = {
      fault: fault.name,
      longest: Object.fromEntries(ENDPOINTS.map((e) => [e, longest(samples, e, faultStart)])) as Record<Endpoint, number>,
      accepted: served.filter((s) => s.status >= 200 && s.status < 400).length,
      refused: served.filter((s) => s.status === 503).length,
      other: served.filter((s) => s.status !== 503 && (s.status < 200 || s.status >= 400)).length,
      otherKinds: [...served.filter((s) => s.status !== 503 && (s.status < 200 || s.status >= 400))
        .reduce((m, s) => m.set(`${s.endpoint} ${s.status} ${s.code ?? ''}`.trim(), (m.get(`${s.endpoint} ${s.status} ${s.code ?? ''}`.trim()) ?? 0) + 1), new Map<string, number>())]
        .map(([k, n]) => `${k} ×${n}`).join(', '),
      lost, doubled,
      firstActionMs: Math.min(...acceptedAfter),
      caughtUpMs,
      silenceMs: Math.max(...gaps.map((g) => g.to - g.from)),
      instanceLagMs: Math.max(...loops.map((l) => l.maxLateMs)),
      instanceOwnMs: Math.max(...loops.map((l) => l.maxOwnMs)),
      clientLagMs: clientReport.maxLateMs,
    };
    rows.push(row);

    // Probes and refusals, under the fault and after it.
    const during = samples.filter((s) => s.sentAt >= faultStart);
    // An answer's time less what of it the instance's process or the client's was not running at
    // all (the machine's other processes had the cores): every process's own work stays in.
    const waited = (x: { instance: number; endpoint?: Endpoint; sentAt: number; ms: number }): number => {
      const client = x.endpoint === 'healthz' || x.endpoint === 'readyz' ? proberLoop : clientReport;
      const from = performance.timeOrigin + x.sentAt;
      return x.ms - notRunningDuring([loops[x.instance]!, client], from, from + x.ms);
    };
    const took = (x: { instance: number; endpoint?: Endpoint; sentAt: number; ms: number }): string => `${Math.round(x.ms)} ms, of which its or the client's process was not running ${Math.round(x.ms - waited(x))} ms`;
    for (const [i, l] of loops.entries()) expect.soft(l.maxOwnMs, `instance ${i}: its own work held its event loop`).toBeLessThanOrEqual(OWN_WORK_LIMIT_MS);
    for (const s of during.filter((x) => x.endpoint === 'healthz')) {
      expect.soft(s.status, 'healthz status').toBe(200);
      expect.soft(waited(s), `healthz on ${s.instance}: ${took(s)}`).toBeLessThanOrEqual(HEALTHZ_LIMIT_MS);
    }
    for (const s of during.filter((x) => x.endpoint === 'readyz')) {
      expect.soft(waited(s), `readyz on ${s.instance} (${s.status}): ${took(s)}`).toBeLessThanOrEqual(READY_TIMEOUT_MS);
    }
    for (const s of samples) {
      expect.soft(s.status, `${s.endpoint} on ${s.instance}: an HTTP answer`).not.toBe(0);
      if (s.status >= 500) expect.soft(s.status, `${s.endpoint} on ${s.instance}`).toBe(503);
      if (s.status === 503 && s.endpoint !== 'readyz') {
        expect.soft(s.retryAfter ?? '(none)', `${s.endpoint}: Retry-After`).toMatch(/^\d+$/);
        if (s.code !== undefined) expect.soft(s.code, `${s.endpoint}: code`).toMatch(UNAVAILABLE);
      }
    }
    if (fault.stall) {
      // A stalled backend: every answer within a bounded time (a command's deadline, and one
      // request queued behind another's).
      for (const x of during.filter((y) => y.endpoint !== 'healthz' && y.endpoint !== 'readyz')) {
        expect.soft(waited(x), `${x.endpoint} on ${x.instance}: ${took(x)}`).toBeLessThanOrEqual(5 * COMMAND_TIMEOUT_MS);
      }
      for (const i of fault.faulted) {
        expect.soft(during.some((s) => s.instance === i && s.endpoint === 'readyz' && s.status === 503), `readyz 503 on ${i}`).toBe(true);
      }
    }
    expect.soft(lost, 'acknowledged submissions lost').toBe(0);
    expect.soft(doubled, 'acknowledged submissions doubled').toBe(0);
    for (const g of gaps) {
      const heard = { instance: g.instance, sentAt: g.from, ms: g.to - g.from };
      expect.soft(waited(heard), `a stream of instance ${g.instance} silent (no heartbeat): ${took(heard)}`).toBeLessThanOrEqual(5 * HEARTBEAT_MS);
    }
    expect(streamEnded, 'streams still open').toEqual(streams().map(() => false));

    // Every renderer ends where a fresh one starts; the two v0.8 ones exactly alike.
    const entries = await readRedisLog(redis.url, PREFIX, m.cid);
    const finalDues = await pageDues(entries.length);
    await until(() => allCaughtUp(entries.length, finalDues), 10_000, `every stream at version ${entries.length}`);
    for (const f of renderers) {
      f.sync();
      expect(f.sim.stuckBuffering()).toEqual([]);
    }
    v09.sync();
    expect(v09.sim.endOfStream().filter((v) => v.severity === 'error')).toEqual([]);
    expect(hashAll(renderers[1]!.sim.state())).toEqual(hashAll(renderers[0]!.sim.state()));
    for (const s of servers) {
      const fresh = await fromSnapshot(s.url, m);
      expect(hashAll(renderers[0]!.sim.state(), SEMANTIC)).toEqual(hashAll(fresh.sim.state(), SEMANTIC));
      const freshV09 = await fromSnapshotV09(s.url, m);
      expect(v09Hashes(v09.sim)).toEqual(v09Hashes(freshV09.sim));
    }
    for (const s of servers) expect(await s.errors()).toEqual([]);
    return row;
  } finally {
    if (!stopped) {
      await fault.end();
      await Promise.all([...writers.map((w) => w.stop()), ...probers.map((p) => p.stop())]);
    }
  }
}

function table(list: readonly Row[]): string {
  const ms = (n: number): string => (Number.isFinite(n) ? String(Math.round(n)) : '–');
  const head = ['fault', ...ENDPOINTS.map((e) => `${e} max ms`), 'accepted / refused (other)', 'lost', 'doubled', 'end → 1st accepted action ms', 'end → streams caught up ms', 'longest stream silence ms', 'instance event-loop delay max ms', 'of it own work max ms', 'clients\' event-loop delay max ms', 'other answers'];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => ' --- ').join('|')}|`];
  for (const r of list) {
    lines.push(`| ${[r.fault, ...ENDPOINTS.map((e) => ms(r.longest[e])), `${r.accepted} / ${r.refused} (${r.other})`, r.lost, r.doubled, ms(r.firstActionMs), ms(r.caughtUpMs), ms(r.silenceMs), ms(r.instanceLagMs), ms(r.instanceOwnMs), ms(r.clientLagMs), r.otherKinds || '–'].join(' | ')} |`);
  }
  return lines.join('\n');
}

const both = (f: (p: RedisProxy) => void) => (): void => { for (const p of proxies) f(p); };
const FAULTS: Fault[] = [
  { name: 'none (baseline)', faulted: [], stall: false, begin: () => {}, holdMs: FAULT_MS, end: () => {} },
  { name: 'Redis SIGSTOP', faulted: [0, 1], stall: true, begin: () => redis.pause(), holdMs: FAULT_MS, end: () => redis.resume() },
  { name: 'blackhole, both links', faulted: [0, 1], stall: true, begin: both((p) => p.hold()), holdMs: FAULT_MS, end: both((p) => p.pass()) },
  { name: 'latency 600 ms per chunk', faulted: [0, 1], stall: false, begin: both((p) => p.delay(600)), holdMs: FAULT_MS, end: both((p) => p.pass()) },
  { name: 'latency 100 ms per chunk', faulted: [], stall: false, begin: both((p) => p.delay(100)), holdMs: FAULT_MS, end: both((p) => p.pass()) },
  {
    name: 'connections cut mid-append', faulted: [], stall: false, holdMs: 0, end: () => {},
    async begin() {
      await proxies[0]!.cutAfterNextAppend();
      proxies[1]!.cutAll();
    },
  },
  { name: 'partition: instance A only', faulted: [0], stall: true, begin: () => proxies[0]!.hold(), holdMs: FAULT_MS, end: () => proxies[0]!.pass() },
];

describe('stalls and partitions under load, two instances', () => {
  it('a renderer away while its instance was partitioned, past what that instance can replay, is brought up to date on reconnect', async () => {
    // The spare instance, partitioned on its own proxy.
    const { proxy, instance: C } = spare!;
    try {
      const [, B] = servers as [FaultInstance, FaultInstance];
      const away = await followA2ui(C.url, m);
      await caughtUpOn(C, m.cid, away);
      away.conn.close();
      proxy.hold();
      // The conversation moves on through B meanwhile: more than C's buffer holds.
      for (let n = 0; n < 3; n += 1) {
        await caughtUpOn(B, m.cid, renderers[1]!);
        const action = characterAction(renderers[1]!.sim, { name: `Away ${n}`, personality: 'Moved on.' });
        expect(await clients[1]!.a2uiEvent(m, action, `away-${n}`)).toMatchObject({ status: 200 });
      }
      // Reconnecting to C during the partition: told to come back (503, Retry-After), not served stale.
      const refused = await fetch(`${C.url}${m.a2ui}/stream`, { headers: { Authorization: `Bearer ${m.token}`, Accept: 'text/event-stream', 'Last-Event-ID': away.lastEventId } });
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      await refused.body?.cancel();
      proxy.pass();
      await until(async () => (await fetch(`${C.url}/readyz`)).status === 200, 10_000, 'C ready again');

      const next = await away.reconnect(C.url);
      await caughtUpOn(C, m.cid, away);
      // Not resumed from a buffer that lost the gap: brought up to date from the IR (provisional ids).
      expect(next.events[0]!.lastEventId).toMatch(/-i\d+$/);
      expect(away.sim.stuckBuffering()).toEqual([]);
      const fresh = await fromSnapshot(C.url, m);
      expect(hashAll(away.sim.state(), SEMANTIC)).toEqual(hashAll(fresh.sim.state(), SEMANTIC));
      expect(await C.errors()).toEqual([]);
    } finally {
      spare = undefined;
      await C.close();
      await proxy.close();
    }
  }, 60_000);

  for (const [n, fault] of FAULTS.entries()) {
    it(`${fault.name}: probes within their deadlines, nothing acknowledged lost or doubled, every client catches up`, async () => {
      await runFault(fault, `f${n}`);
    }, 60_000);
  }
});
