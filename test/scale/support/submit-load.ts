import { expect } from 'vitest';
import type { UserActionMessage } from '../../../src/clientsim/index.ts';
import { hashAll } from '../../../src/clientsim/snapshot.ts';
import { newConversation, type Conversation, type E2eServer } from '../../e2e/support/stack.ts';
import type { SessionClient } from './cluster.ts';
import { caughtUp, followA2ui, fromSnapshot, type A2uiFollower } from './followers.ts';
import { characterAction, turn } from './user.ts';

/**
 * Users submitting without pause, each what their A2UI renderer shows, through two instances in
 * turn (the load balancer's pick), while a test breaks the store under them. A 503 with
 * Retry-After is retried with the same key and body until acknowledged; any other failure is
 * recorded as unexpected and ends that user's loop.
 */
export interface Submission { key: string; action: UserActionMessage; acked: boolean; replayed?: boolean; unavailable: number; attempts: string[]; stale?: boolean }
export interface LoadUser {
  c: Conversation; follower: A2uiFollower; on: number; submissions: Submission[];
  /** What its loop is doing now, for a failure's message: waiting for its renderer, or submitting. */
  doing?: string;
}

export interface SubmitLoad {
  readonly acks: Array<{ user: number; at: number }>;
  readonly unexpected: string[];
  /** Ends every loop after its current submission is acknowledged. */
  stop(): Promise<void>;
  /**
   * Runs `body` under the load, then stops it. A body that fails ends every loop at its next step
   * instead, its current submission left as it is: the body's own error is the one reported, not
   * a timeout while a loop retries a shard that never came back.
   */
  during<T>(body: () => Promise<T>): Promise<T>;
}

/**
 * The `count` users of a load over two instances, a conversation each (two users on one would
 * make stale submits part of the load): user j's character card is made through instance j % 2,
 * and an A2UI renderer follows it there (pushed to `followers`, for the caller to close).
 */
export async function startLoadUsers(
  instances: readonly E2eServer[], clients: readonly SessionClient[], count: number, followers: Array<{ close(): void }>,
): Promise<LoadUser[]> {
  const users: LoadUser[] = [];
  for (let j = 0; j < count; j += 1) {
    const c = await newConversation(instances[0]!, clients[0]!);
    const on = j % 2;
    expect(await turn(clients[on]!, c, 'create a character card')).toMatchObject({ status: 200 });
    const follower = await followA2ui(instances[on]!.url, c);
    followers.push(follower);
    users.push({ c, follower, on, submissions: [] });
  }
  return users;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
/** Tries of one submission (≈ 100 ms apart, plus each answer's time) before it counts as stuck. */
const RETRIES = 300;

/** The renderer shows the conversation's current version on its instance (retried while the store is away). */
export async function current(instances: readonly E2eServer[], u: LoadUser, timeoutMs = 60_000): Promise<void> {
  // The store is away for seconds during a failover: reads fail (503) until it is back.
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    try {
      await caughtUp(instances[u.on]!, u.c.cid, u.follower, 10_000);
      return;
    } catch (error) {
      if (performance.now() > deadline) throw new Error(`renderer of ${u.c.cid} not current within ${timeoutMs} ms: ${String(error)}`);
      // An instance that found entries it had shown lost by a failover restarts its streams: the
      // renderer reconnects with its Last-Event-ID, as EventSource does, and is sent everything again.
      if (u.follower.ended) await u.follower.reconnect(instances[u.on]!.url).catch(() => {});
      await sleep(200);
    }
  }
}

/**
 * `staleAfterLoss`: a failover may lose an append that an instance had already read and shown to
 * its renderers (read by a request's catch-up in the moment before its acknowledgement); until
 * that instance reads the log again, its renderer shows a rev the log does not have, and a
 * submission from it is refused as stale (409, recovery "regenerate"). Given the surface's rev as
 * the log holds it now, such a refusal is what a renderer does with it (the submission is dropped:
 * nothing was applied, the caller checks the log; the user goes on from its renderer's state, at
 * most MAX_STALE times per user), but only when the refused rev is one the log does not hold:
 * a refusal of a rev the log has is a defect, reported as unexpected.
 */
const MAX_STALE = 8;

export function startSubmitLoad(
  users: readonly LoadUser[], instances: readonly E2eServer[], clients: readonly SessionClient[], options: { staleAfterLoss?: (u: LoadUser) => Promise<number> } = {},
): SubmitLoad {
  let stopped = false;
  let abandoned = false;
  const acks: SubmitLoad['acks'] = [];
  const unexpected: string[] = [];
  async function loop(u: LoadUser, j: number): Promise<void> {
    for (let n = 0; !stopped && unexpected.length === 0; n += 1) {
      u.doing = `waiting for its renderer to be current on instance ${u.on} (since ${performance.now().toFixed(0)})`;
      await current(instances, u);
      u.doing = 'submitting';
      const s: Submission = { key: `u${j}-${n}`, action: characterAction(u.follower.sim, { name: `User ${j}.${n}`, personality: `Take ${n}.` }), acked: false, unavailable: 0, attempts: [] };
      u.submissions.push(s);
      for (let attempt = 0; !s.acked; attempt += 1) {
        if (abandoned) return;
        const via = (n + attempt) % clients.length;
        const sentAt = performance.now();
        const answer = await clients[via]!.a2uiEvent(u.c, s.action, s.key);
        s.attempts.push(`${performance.now().toFixed(0)} i${via} ${answer.status} (${(performance.now() - sentAt).toFixed(0)} ms) ${answer.status === 200 ? `replayed=${answer.body.replayed} rev=${JSON.stringify((answer.body.surface as { rev?: number } | undefined)?.rev)}` : String(answer.body.technical_detail ?? '').slice(0, 120)}`);
        if (answer.status === 200) {
          s.acked = true;
          s.replayed = answer.body.replayed === true;
          acks.push({ user: j, at: performance.now() });
        } else if (answer.status === 503 && answer.headers.get('Retry-After') !== null) {
          s.unavailable += 1;
          // Unavailable for this long is an outage the test did not cause: report it, do not hang.
          if (attempt >= RETRIES) {
            unexpected.push(`${s.key}: still 503 after ${RETRIES} tries: ${s.attempts.slice(-3).join(' | ')}`);
            return;
          }
          await sleep(100);
        } else if (options.staleAfterLoss !== undefined && answer.status === 409 && answer.body.code === 'A2UI_C2S_SURFACE_STALE'
          && u.submissions.filter((x) => x.stale).length < MAX_STALE) {
          const refused = Number(/rev (\d+) is not the current rev/.exec(String(answer.body.technical_detail))?.[1] ?? Number.NaN);
          const logRev = await options.staleAfterLoss(u);
          if (!(refused > logRev)) {
            unexpected.push(`${s.key}: refused as stale at rev ${refused}, which the log holds (rev ${logRev} there): ${JSON.stringify(answer.body)}`);
            return;
          }
          s.stale = true;
          await sleep(100);
          break;
        } else {
          unexpected.push(`${s.key}: ${answer.status} ${JSON.stringify(answer.body)}`);
          return;
        }
      }
    }
  }
  // A loop that fails is reported with the rest, at once (the test fails fast instead of waiting).
  const loops = users.map((u, j) => loop(u, j).catch((error: unknown) => { unexpected.push(`user ${j}: ${String(error)}`); }));
  return {
    acks, unexpected,
    async stop() {
      stopped = true;
      await Promise.all(loops);
    },
    async during(body) {
      let result;
      try {
        result = await body();
      } catch (error) {
        stopped = true;
        abandoned = true;
        throw error;
      }
      await this.stop();
      return result;
    },
  };
}

/** The figures a run prints: submissions, those acknowledged as already applied, 503s. */
export function loadFigures(users: readonly LoadUser[]): string[] {
  const submissions = users.flatMap((u) => u.submissions);
  return [
    `  acknowledged submissions: ${submissions.filter((s) => s.acked).length} (${submissions.filter((s) => s.replayed).length} acknowledged by a retry as already applied)`,
    `  refused as stale after a lost append (renderer regenerated): ${submissions.filter((s) => s.stale).length}`,
    `  503 answers (retried): ${submissions.reduce((n, s) => n + s.unavailable, 0)} over ${submissions.filter((s) => s.unavailable > 0).length} submissions`,
  ];
}

/** The renderer's state as rendered equals a fresh snapshot's from its instance. */
export async function matchesSnapshot(instances: readonly E2eServer[], u: LoadUser): Promise<{ held: unknown; fresh: unknown }> {
  await current(instances, u);
  const fresh = await fromSnapshot(instances[u.on]!.url, u.c);
  const semantic = { reachableOnly: true, sortDataKeys: true } as const;
  return { held: hashAll(u.follower.sim.state(), semantic), fresh: hashAll(fresh.sim.state(), semantic) };
}
