import { expect } from 'vitest';
import { createClientSim, createClientSimV09, type ClientSim, type ClientSimV09 } from '../../../src/clientsim/index.ts';
import type { A2uiVersion } from '../../../src/compiler/index.ts';
import { SNAPSHOT_CHECKPOINT_HEADER } from '../../../src/host-a2ui/index.ts';
import { openSse, type SseConnection } from '../../support/sse-client.ts';
import { feed, feedV09, holdsEverything, stream, type Conversation, type E2eServer } from '../../e2e/support/stack.ts';

/** A reconnecting renderer was refused (503) for longer than a failover takes. */
export class StreamRefusedError extends Error {
  override name = 'StreamRefusedError';
}

/** How long a reconnecting renderer waits for the server to begin its answer (a 200 or a 503). */
const NO_ANSWER_MS = 20_000;
/** How long it retries 503s (the store away) before the test calls the instance stuck. */
const STORE_AWAY_MS = 30_000;

/**
 * The clients of a conversation as a test holds them: an A2UI renderer (its SSE stream fed into
 * a ClientSim, across reconnects to any instance) and an htmx page's event stream.
 */
export interface A2uiFollower<Sim = ClientSim> {
  /** The wire version it speaks (`?v=` of every connection). */
  readonly version: A2uiVersion;
  /** The current connection (the last one opened). */
  readonly conn: SseConnection;
  /** Every connection so far, oldest first. */
  readonly sessions: readonly SseConnection[];
  readonly sim: Sim;
  /** Applies what arrived since the last call to the ClientSim (checks it against the A2UI rules). */
  sync(): void;
  /** Its current connection was ended by the server (an instance that found its log rewritten ends its streams). */
  readonly ended: boolean;
  /** What this renderer would send on reconnecting: the last event id it received. */
  readonly lastEventId: string;
  /** Opens a new connection to `url` with Last-Event-ID, as EventSource does after the old one ended. */
  reconnect(url: string): Promise<SseConnection>;
  close(): void;
}

export function followA2ui(url: string, c: Conversation): Promise<A2uiFollower> {
  return followWith(url, c, '0.8', createClientSim(), feed);
}

/** A v0.9 renderer (`?v=0.9` on every connection), its stream fed into a ClientSim v0.9. */
export function followA2uiV09(url: string, c: Conversation): Promise<A2uiFollower<ClientSimV09>> {
  return followWith(url, c, '0.9', createClientSimV09(), feedV09);
}

async function followWith<Sim>(
  url: string, c: Conversation, version: A2uiVersion, sim: Sim, feedInto: (sim: Sim, conn: SseConnection, from: number) => number,
): Promise<A2uiFollower<Sim>> {
  const query = version === '0.8' ? '' : `?v=${version}`;
  const sessions: SseConnection[] = [await stream({ url }, c, {}, query)];
  expect(sessions[0]!.response.status).toBe(200);
  let fed = 0;
  const endedConnections = new WeakSet<SseConnection>();
  const watch = (conn: SseConnection): void => { void conn.ended.then(() => endedConnections.add(conn), () => endedConnections.add(conn)); };
  watch(sessions[0]!);
  const follower: A2uiFollower<Sim> = {
    version,
    get conn() { return sessions.at(-1)!; },
    sessions,
    sim,
    sync() { fed = feedInto(sim, follower.conn, fed); },
    get ended() { return endedConnections.has(follower.conn); },
    get lastEventId() { return follower.conn.parser.lastEventId; },
    async reconnect(to) {
      follower.sync();
      const last = follower.lastEventId;
      // A 503 (the store away while its shard fails over, with a retry hint) is retried, as an
      // EventSource does, for up to STORE_AWAY_MS. A request left without any answer fails at once
      // (SseNoAnswerError): the server must answer, if only with that 503.
      const open = (): Promise<SseConnection> => stream({ url: to }, c, last === '' ? {} : { 'Last-Event-ID': last }, query, { answerWithinMs: NO_ANSWER_MS });
      const began = performance.now();
      const refusals: string[] = [];
      let next = await open();
      while (next.response.status === 503) {
        refusals.push(`${Math.round(performance.now() - began)} ms: ${(await next.response.text().catch(() => '')).slice(0, 300)}`);
        if (performance.now() - began > STORE_AWAY_MS) {
          throw new StreamRefusedError(`${to} still answered the stream 503 after ${refusals.length} tries in ${Math.round(performance.now() - began)} ms; the last: ${refusals.slice(-3).join(' | ')}`);
        }
        await new Promise((r) => setTimeout(r, 250));
        next = await open();
      }
      expect(next.response.status).toBe(200);
      // An event cut off with the old connection was never dispatched: the new one starts from the last complete one.
      next.parser.lastEventId = last;
      sessions.push(next);
      watch(next);
      fed = 0;
      return next;
    },
    close() { for (const conn of sessions) conn.close(); },
  };
  return follower;
}

/** The page's `GET /c/{cid}/events?page=…&v=…` stream, with the session cookie of `cookie`. */
export async function followHtmx(url: string, c: Conversation, cookie: string, pageId: string, version: number): Promise<SseConnection> {
  const conn = await openSse(`${url}${c.base}/events?page=${pageId}&v=${version}`, { headers: { cookie } });
  expect(conn.response.status).toBe(200);
  return conn;
}

/**
 * Resolves once instance `s` has folded the conversation's log to its end and `follower` (connected
 * to `s`) has received everything `s` published for it, then feeds the follower's ClientSim.
 */
export async function caughtUp(s: E2eServer, cid: string, follower: A2uiFollower<unknown>, timeoutMs = 10_000): Promise<number> {
  const { ir, version } = (await s.handle.conversations.get(cid))!;
  const { hub } = s.handle.a2ui.wire(follower.version);
  // Published, not sent: a version that changed nothing a renderer holds sends nothing. And the
  // hub is given only versions that changed the IR: entries that changed nothing (a form asked
  // for again as it is) leave the IR the hub last had the current one.
  const published = async (): Promise<boolean> => {
    const at = hub.checkpoint(cid).published;
    return at >= version || (await s.handle.conversations.irAt(cid, at)) === ir;
  };
  const deadline = performance.now() + timeoutMs;
  while (!((await published()) && holdsEverything(hub, cid, follower.lastEventId))) {
    if (performance.now() > deadline) {
      throw new Error(`renderer not caught up within ${timeoutMs} ms: instance at version ${version}, hub ${JSON.stringify(hub.checkpoint(cid))}, `
        + `renderer at ${follower.lastEventId}${follower.ended ? ' (its stream ended)' : ''}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  follower.sync();
  return version;
}

/** A fresh renderer initialised from `GET …/snapshot.jsonl` of the instance at `url`, and the checkpoint it names. */
export function fromSnapshot(url: string, c: Conversation): Promise<{ sim: ClientSim; checkpoint: string | null }> {
  return snapshotInto(url, c, '', createClientSim());
}

/** The same for a v0.9 renderer (`snapshot.jsonl?v=0.9`). */
export function fromSnapshotV09(url: string, c: Conversation): Promise<{ sim: ClientSimV09; checkpoint: string | null }> {
  return snapshotInto(url, c, '?v=0.9', createClientSimV09());
}

async function snapshotInto<Sim extends { applyAll(messages: Iterable<unknown>): Array<{ severity: string }> }>(
  url: string, c: Conversation, query: string, sim: Sim,
): Promise<{ sim: Sim; checkpoint: string | null }> {
  const res = await fetch(`${url}${c.a2ui}/snapshot.jsonl${query}`, { headers: { Authorization: `Bearer ${c.token}` } });
  expect(res.status, res.status === 200 ? 'snapshot' : await res.clone().text()).toBe(200);
  const lines = (await res.text()).trimEnd().split('\n').map((line) => JSON.parse(line) as unknown);
  expect(sim.applyAll(lines).filter((v) => v.severity === 'error')).toEqual([]);
  return { sim, checkpoint: res.headers.get(SNAPSHOT_CHECKPOINT_HEADER) };
}

/** Resolves once `conn` has seen event id `id` (also an id-only event). */
export async function reaches(conn: SseConnection, id: string, timeoutMs = 10_000): Promise<void> {
  await expect.poll(() => conn.parser.lastEventId, { timeout: timeoutMs, interval: 5 }).toBe(id);
}
