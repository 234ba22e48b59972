import type { UserActionMessage } from '../../../src/clientsim/index.ts';
import type { Conversation, E2eServer } from '../../e2e/support/stack.ts';
import type { SessionClient } from './cluster.ts';
import type { A2uiFollower } from './followers.ts';
import { characterAction, formIn, htmlSubmit } from './user.ts';

/*
 * The load of the fault-injection suite: clients that submit through every instance (retrying
 * what was refused with the same idempotency key and body, as real clients do), probers that
 * call every endpoint of every instance, and a recorder of how long each answer took.
 */

export const ENDPOINTS = ['healthz', 'readyz', 'page', 'message', 'action', 'stream open'] as const;
export type Endpoint = typeof ENDPOINTS[number];

export interface Sample {
  endpoint: Endpoint;
  instance: number;
  /** performance.now() when sent and when the whole answer was in. */
  sentAt: number;
  ms: number;
  /** 0: no HTTP answer at all (connection refused or reset). */
  status: number;
  retryAfter: string | null;
  code?: string;
}

export class Recorder {
  readonly samples: Sample[] = [];

  async time<T extends { status: number; headers?: Headers; body?: unknown }>(
    endpoint: Endpoint, instance: number, run: () => Promise<T>,
  ): Promise<T | undefined> {
    const sentAt = performance.now();
    let answer: T | undefined;
    try {
      answer = await run();
    } catch {
      answer = undefined;
    }
    const body = answer?.body as { code?: unknown } | undefined;
    this.samples.push({
      endpoint, instance, sentAt, ms: performance.now() - sentAt, status: answer?.status ?? 0,
      retryAfter: answer?.headers?.get('retry-after') ?? null,
      ...(typeof body?.code === 'string' ? { code: body.code } : {}),
    });
    return answer;
  }

}

/** The longest answer of `endpoint` among `samples` sent from `from` on. */
export function longest(samples: readonly Sample[], endpoint: Endpoint, from = 0): number {
  return Math.max(0, ...samples.filter((s) => s.endpoint === endpoint && s.sentAt >= from).map((s) => s.ms));
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** An HTTP answer with its body read (JSON when it is JSON). */
export async function answer(res: Response): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const text = await res.text();
  let body: Record<string, unknown>;
  try { body = JSON.parse(text) as Record<string, unknown>; } catch { body = { text: text.slice(0, 200) }; }
  return { status: res.status, headers: res.headers, body };
}

export interface Write {
  key: string;
  cid: string;
  /** Every answer this key got, in order (a 503 is retried with the same key and body). */
  statuses: number[];
  /** The final answer: 200 (acknowledged) or another non-503 status. */
  final?: number;
  replayed?: boolean;
  /** performance.now() when the final answer was sent and when it arrived. */
  sentAt?: number;
  answeredAt?: number;
}

export interface Writer {
  readonly name: string;
  readonly writes: Write[];
  /** Asks the writer to stop after its current key is answered other than 503; resolves then. */
  stop(): Promise<void>;
  /** True when it holds no key still waiting for a non-503 answer. */
  readonly settled: boolean;
}

interface Attempt<P> {
  /** Prepares the next submission through instance `i` (undefined: not possible now, try again). */
  prepare(i: number, n: number): Promise<P | undefined>;
  send(i: number, prepared: P, key: string): Promise<{ status: number; body: Record<string, unknown>; headers: Headers } | undefined>;
}

/**
 * Submits one key at a time, alternating instances per attempt as a load balancer would; a key
 * refused with 503 (or without an answer) goes again, unchanged, until it gets another answer.
 */
function runWriter<P>(name: string, cid: string, instances: number, rec: Recorder, attempt: Attempt<P>, pauseMs = 40): Writer {
  const writes: Write[] = [];
  let stopping = false;
  let pending: { write: Write; prepared: P } | undefined;
  const done = (async () => {
    for (let n = 0, i = 0; !(stopping && pending === undefined); i += 1) {
      const via = i % instances;
      if (pending === undefined) {
        const prepared = await attempt.prepare(via, n).catch(() => undefined);
        if (prepared === undefined) { await sleep(pauseMs); continue; }
        const write: Write = { key: `${name}-${n}`, cid, statuses: [] };
        n += 1;
        writes.push(write);
        pending = { write, prepared };
      }
      const { write, prepared } = pending;
      const sentAt = performance.now();
      const got = await rec.time('action', via, () => attempt.send(via, prepared, write.key).then((a) => a ?? { status: 0 }));
      const status = got?.status ?? 0;
      write.statuses.push(status);
      if (status === 503 || status === 0) { await sleep(pauseMs); continue; }
      write.final = status;
      write.sentAt = sentAt;
      write.answeredAt = performance.now();
      if (got !== undefined && 'body' in got && typeof got.body?.['replayed'] === 'boolean') write.replayed = got.body['replayed'] as boolean;
      pending = undefined;
      await sleep(pauseMs);
    }
  })();
  return {
    name, writes,
    get settled() { return pending === undefined; },
    async stop() { stopping = true; await done; },
  };
}

/**
 * A renderer's user: fills the character card on the renderer following instance `i` and submits
 * it there. `current(i)`: whether that renderer shows what instance `i` holds of the conversation
 * now (undefined while the instance cannot tell).
 */
export function a2uiWriter(
  name: string, c: Conversation, current: (i: number) => Promise<boolean | undefined>, clients: SessionClient[], followers: A2uiFollower[], rec: Recorder,
): Writer {
  return runWriter<UserActionMessage>(name, c.cid, clients.length, rec, {
    async prepare(i, n) {
      const follower = followers[i]!;
      // While the instance cannot tell (its Redis is away), the user submits what the renderer
      // shows, as a real one would: the submit itself meets the fault.
      if ((await current(i).catch(() => undefined)) === false) return undefined;
      follower.sync();
      return characterAction(follower.sim, { name: `${name} ${n}`, personality: `Take ${n}.` });
    },
    send: (i, action, key) => clients[i]!.a2uiEvent(c, action, key),
  });
}

/** An htmx page's user: loads the page from instance `i` and submits its character form there. */
export function htmxWriter(name: string, c: Conversation, clients: SessionClient[], rec: Recorder): Writer {
  return runWriter<{ form: Record<string, string>; values: Record<string, string> }>(name, c.cid, clients.length, rec, {
    async prepare(i, n) {
      const page = await rec.time('page', i, async () => {
        const res = await clients[i]!.get(c.base);
        return { status: res.status, headers: res.headers, html: await res.text() };
      });
      if (page?.status !== 200) return undefined;
      return { form: formIn(page.html), values: { name: `${name} ${n}`, personality: `Take ${n}.`, tags: '' } };
    },
    send: (i, { form, values }, key) => htmlSubmit(clients[i]!, c, form, key, values),
  });
}

export interface Prober { stop(): Promise<void> }

/**
 * Calls every endpoint of instance `i` but the probes (see the suite's prober) in loops of their own until stopped: a page,
 * a planner turn, and the opening of an A2UI and an htmx stream (answered once the status is in).
 * `c` is a conversation of its own (turns on it are refused while another runs).
 */
export function probe(i: number, s: Pick<E2eServer, 'url'>, client: SessionClient, c: Conversation, rec: Recorder): Prober {
  let stopped = false;
  const loop = async (pauseMs: number, step: () => Promise<unknown>): Promise<void> => {
    while (!stopped) {
      await step();
      await sleep(pauseMs);
    }
  };
  const open = async (url: string, headers: Record<string, string>): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> => {
    const controller = new AbortController();
    const res = await fetch(url, { headers: { Accept: 'text/event-stream', ...headers }, signal: controller.signal });
    if (res.status === 200) {
      controller.abort();
      return { status: 200, headers: res.headers, body: {} };
    }
    return answer(res);
  };
  const loops = [
    loop(100, () => rec.time('page', i, async () => answer(await client.get(c.base, { as: 'json' })))),
    loop(150, () => rec.time('message', i, async () => answer(await client.post(`${c.base}/messages`, { _csrf: c.csrf, text: 'create a character card' }, { as: 'json' })))),
    loop(100, () => rec.time('stream open', i, () => open(`${s.url}${c.a2ui}/stream`, { Authorization: `Bearer ${c.token}` }))),
    loop(100, () => rec.time('stream open', i, () => open(`${s.url}${c.base}/events?page=probe-${i}&v=1`, { cookie: client.cookieHeader() }))),
  ];
  return {
    async stop() {
      stopped = true;
      await Promise.all(loops);
    },
  };
}
