import { expect } from 'vitest';
import type { A2uiVersion } from '../../../src/compiler/index.ts';
import type { Conversation, E2eOptions, startE2e } from '../../e2e/support/stack.ts';
import type { HttpClient } from '../../support/http-client.ts';
import type { A2uiFollower } from '../support/followers.ts';
import { forkChild } from './child.ts';
import type { LoopReport } from './loop-watch.ts';

/*
 * The fault suite's instances, each in a process of its own (instance-process.ts): what the
 * suite times of them is theirs, not the event loop of the test process, where every client
 * runs. Their state (what a renderer's stream still lacks) is asked over the IPC channel.
 */
export interface InstanceConfig {
  a2ui: Parameters<typeof startE2e>[0];
  /** JSON only: no planner or app of the test's own. */
  options: Omit<E2eOptions, 'planner' | 'app'>;
}

/** What an instance holds of a conversation, for a renderer following it on one wire version. */
export interface View {
  /** The conversation's version as the instance reads it now; absent while it cannot (Redis away). */
  version?: number;
  /** The version its hub last published. */
  checkpoint: number;
  /** A renderer at the given last event id holds everything the hub published. */
  holds: boolean;
}

export type InstanceQuestion =
  | { op: 'token'; cid: string }
  | { op: 'view'; cid: string; wire: A2uiVersion; lastEventId: string }
  | { op: 'errors' | 'loop' | 'close' };

export interface FaultInstance {
  readonly url: string;
  view(cid: string, follower: A2uiFollower<unknown>): Promise<View>;
  /** The conversation's A2UI stream token (the instance's own record of it). */
  token(cid: string): Promise<string>;
  /** Errors it logged. */
  errors(): Promise<string[]>;
  /** Its event loop since the last call (loop-watch.ts). */
  loop(): Promise<LoopReport>;
  close(): Promise<void>;
}

export async function startFaultInstance(config: InstanceConfig): Promise<FaultInstance> {
  const { child, ready } = await forkChild(new URL('./instance-process.ts', import.meta.url), config);
  const url = ready as string;
  const ask = <T>(question: InstanceQuestion): Promise<T> => child.ask<T>(question);
  return {
    url,
    view: (cid, follower) => ask({ op: 'view', cid, wire: follower.version, lastEventId: follower.lastEventId }),
    async token(cid) {
      const token = await ask<string | null>({ op: 'token', cid });
      if (token === null) throw new Error(`instance at ${url} has no conversation ${cid}`);
      return token;
    },
    errors: () => ask({ op: 'errors' }),
    loop: () => ask({ op: 'loop' }),
    close: () => child.close(),
  };
}

/**
 * GET / (new session + conversation) on `s` → the conversation, its token from the instance. A
 * 503 (a Redis command past its short deadline on a loaded machine) is sent again, as a browser's
 * user would.
 */
export async function newConversationOn(s: FaultInstance, client: HttpClient): Promise<Conversation> {
  let first = await client.get('/');
  for (let tries = 1; first.status === 503 && tries < 5; tries += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    first = await client.get('/');
  }
  expect(first.status).toBe(303);
  const base = first.headers.get('location')!;
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await (await client.get(base)).text())?.[1];
  expect(csrf).toBeTruthy();
  const cid = base.slice(3);
  return { cid, base, a2ui: `/a2ui/c/${cid}`, csrf: csrf!, token: await s.token(cid) };
}

/** The renderer shows what `s` holds of `cid`: `s` has folded the log to its end and sent it all. */
export async function currentOn(s: FaultInstance, cid: string, follower: A2uiFollower<unknown>): Promise<boolean | undefined> {
  const view = await s.view(cid, follower);
  return view.version === undefined ? undefined : view.checkpoint >= view.version && view.holds;
}

/** Resolves once `follower` (connected to `s`) is current (see currentOn), then feeds its ClientSim. */
export async function caughtUpOn(s: FaultInstance, cid: string, follower: A2uiFollower<unknown>, timeoutMs = 10_000): Promise<void> {
  await expect.poll(() => currentOn(s, cid, follower), { timeout: timeoutMs, interval: 10 }).toBe(true);
  follower.sync();
}
