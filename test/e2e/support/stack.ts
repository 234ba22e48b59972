import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { startServe, type ServeHandle, type ServeOptions } from '../../../src/cli/commands/serve.ts';
import type { ActionMessageV09, ClientSim, ClientSimV09, UserActionMessage } from '../../../src/clientsim/index.ts';
import type { AppDefinition, Logger } from '../../../src/conversation/index.ts';
import type { A2uiHub } from '../../../src/host-a2ui/index.ts';
import type { Planner } from '../../../src/planner/types.ts';
import { HttpClient } from '../../support/http-client.ts';
import { openSse, type SseConnection } from '../../support/sse-client.ts';

/**
 * The product exactly as `npm start` composes it (src/cli/commands/serve.ts startServe: demo
 * app, offline planner, JSONL store, htmx host + A2UI host on one port), on port 0 with a
 * throwaway data directory. With `redis`, one of several instances sharing that Redis (as
 * `--redis URL` with SURFACER_REDIS_PREFIX): same session secret, own port, the data directory unused.
 */
export interface E2eServer {
  url: string;
  handle: ServeHandle;
  /** Errors the server logged (a test that expects none asserts it is empty). */
  errors: string[];
  client(): HttpClient;
  close(): Promise<void>;
}

export interface E2eOptions {
  redis?: { url: string; prefix: string };
  /** Instead of the demo app's offline planner (e.g. one that can hold a turn until it is cancelled). */
  planner?: Planner;
  /** Instead of the demo app (e.g. an app of examples/, written on the public API). */
  app?: AppDefinition;
  /** More environment settings (e.g. SURFACER_REDIS_COMMAND_TIMEOUT_MS). */
  env?: NodeJS.ProcessEnv;
  /** htmx host limits (e.g. a short SSE heartbeat). */
  hostLimits?: ServeOptions['hostLimits'];
}

/** Every instance a test starts signs sessions with this: a session made on one is valid on all. */
export const E2E_SESSION_SECRET = 'e2e-session-secret-0123456789';

export async function startE2e(a2ui: ServeOptions['a2ui'] = {}, options: E2eOptions = {}): Promise<E2eServer> {
  const dir = mkdtempSync(join(tmpdir(), 'surfacer-e2e-'));
  const errors: string[] = [];
  const logger: Logger = {
    info() {},
    warn() {},
    error(message, fields) { errors.push(`${message} ${JSON.stringify(fields ?? {})}`); },
  };
  const handle = await startServe({
    port: 0, hostname: '127.0.0.1', planner: options.planner ?? 'offline', dataDir: dir, logger, fsync: false,
    env: { SURFACER_SESSION_SECRET: E2E_SESSION_SECRET, ...(options.redis ? { SURFACER_REDIS_PREFIX: options.redis.prefix } : {}), ...options.env },
    ...(options.hostLimits ? { hostLimits: options.hostLimits } : {}),
    ...(options.redis ? { redisUrl: options.redis.url } : {}),
    a2ui: { heartbeatMs: 60_000, ...a2ui },
  }, options.app);
  return {
    url: handle.url,
    handle,
    errors,
    client: () => new HttpClient(handle.url),
    async close() {
      await handle.close(1000);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface Conversation {
  cid: string;
  /** `/c/{cid}` */
  base: string;
  /** `/a2ui/c/{cid}` */
  a2ui: string;
  csrf: string;
  token: string;
}

/** GET / (new session + conversation) → the htmx page; optionally one planner turn. */
export async function newConversation(s: E2eServer, client: HttpClient, text?: string): Promise<Conversation> {
  const first = await client.get('/');
  expect(first.status).toBe(303);
  const base = first.headers.get('location')!;
  const page = await client.get(base);
  const html = await page.text();
  const csrf = /name="_csrf" value="([^"]+)"/.exec(html)?.[1];
  expect(csrf).toBeTruthy();
  const cid = base.slice(3);
  const conversation = await s.handle.conversations.get(cid);
  const c: Conversation = { cid, base, a2ui: `/a2ui/c/${cid}`, csrf: csrf!, token: conversation!.a2uiToken };
  if (text !== undefined) await say(client, c, text);
  return c;
}

/** One planner turn through the htmx route, as the page's message form sends it. */
export async function say(client: HttpClient, c: Conversation, text: string): Promise<void> {
  const turn = await client.post(`${c.base}/messages`, { _csrf: c.csrf, text }, { as: 'json' });
  expect(turn.status).toBe(200);
  await turn.arrayBuffer();
}

/** The conversation's A2UI stream as an external client reads it; `query` picks the wire version (`?v=0.9`). */
export function stream(
  s: Pick<E2eServer, 'url'>, c: Conversation, headers: Record<string, string> = {}, query = '', options: { answerWithinMs?: number } = {},
): Promise<SseConnection> {
  return openSse(`${s.url}${c.a2ui}/stream${query}`, { headers: { Authorization: `Bearer ${c.token}`, ...headers }, ...options });
}

export async function postEvent(
  s: Pick<E2eServer, 'url'>, c: Conversation, body: unknown, headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const res = await fetch(`${s.url}${c.a2ui}/events`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${c.token}`, 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? {} : parseJson(text), headers: res.headers };
}

/** A body that is not JSON (e.g. an HTML error page) shows up in the test's failure message. */
function parseJson(text: string): Record<string, unknown> {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return { notJson: text.slice(0, 300) };
  }
}

/** Resolves once `conn` has received the event whose id is `id` (e.g. the hub's checkpoint). */
export async function until(conn: SseConnection, id: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (conn.parser.lastEventId !== id) {
    if (Date.now() > deadline) throw new Error(`stream did not reach ${id} (at ${conn.parser.lastEventId})`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/**
 * True when a client whose last event id is `lastEventId` holds everything `hub` published for
 * `cid` (resuming there would send nothing). Asked of the hub itself because a log version whose
 * change sent no A2UI message (a turn that only answered in the transcript or a toast) has no
 * event id a client could hold: the checkpoint's id may never arrive.
 */
export function holdsEverything(hub: A2uiHub, cid: string, lastEventId: string): boolean {
  const probe = hub.subscribe(cid, lastEventId, { notify() {}, dropped() {} });
  probe.subscription.close();
  return probe.mode === 'resume' && probe.missed.length === 0;
}

/** Resolves once the client whose last event id `lastEventId()` tells holds everything `s` published for `cid`. */
export async function caughtUpWith(s: E2eServer, cid: string, lastEventId: () => string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!holdsEverything(s.handle.a2ui.hub, cid, lastEventId())) {
    if (Date.now() > deadline) throw new Error(`stream did not catch up with ${s.handle.a2ui.hub.checkpoint(cid).id} (at ${lastEventId()})`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** A ClientSim fed with every message a stream delivered so far (from `from` on). */
export function feed(sim: ClientSim, conn: SseConnection, from = 0): number {
  for (const event of conn.events.slice(from)) {
    // Warnings are expected (e.g. a multiselect's JSON-string value parsed into an array).
    const errors = sim.apply(JSON.parse(event.data) as unknown).filter((v) => v.severity !== 'warning');
    expect(errors, event.data.slice(0, 200)).toEqual([]);
  }
  return conn.events.length;
}

/** A ClientSim v0.9 fed with every message a `?v=0.9` stream delivered so far (from `from` on). */
export function feedV09(sim: ClientSimV09, conn: SseConnection, from = 0): number {
  for (const event of conn.events.slice(from)) {
    const errors = sim.apply(JSON.parse(event.data) as unknown).filter((v) => v.severity !== 'warning');
    expect(errors, event.data.slice(0, 200)).toEqual([]);
  }
  return conn.events.length;
}

/** The user of a v0.9 renderer: types `values` into the card's TextFields and presses its submit Button. */
export function fillAndSubmitV09(sim: ClientSimV09, surfaceId: string, values: Record<string, string>, button = 'main.a0-form_submit.Button'): ActionMessageV09 {
  for (const [name, value] of Object.entries(values)) {
    expect(sim.input(surfaceId, `main.f-${name}.TextField`, value)).toEqual([]);
  }
  const click = sim.click(surfaceId, button);
  if (!click.ok) throw new Error(`click failed: ${click.violation.code} ${click.violation.detail}`);
  return click.message;
}

/** The user of a renderer: types `values` into the form's TextFields and presses its submit Button. */
export function fillAndSubmit(sim: ClientSim, surfaceId: string, values: Record<string, string>, button = 'main.a0-form_submit.Button'): UserActionMessage {
  for (const [name, value] of Object.entries(values)) {
    expect(sim.input(surfaceId, `main.f-${name}.TextField`, value)).toEqual([]);
  }
  const click = sim.click(surfaceId, button);
  if (!click.ok) throw new Error(`click failed: ${click.violation.code} ${click.violation.detail}`);
  return click.message;
}

export const CHARACTER = { name: 'Aria', personality: 'Brave and kind.', tags: 'brave, kind' } as const;
