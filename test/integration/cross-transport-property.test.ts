import { createHash } from 'node:crypto';
import { TaskState, type Message, type Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisBackend } from '../../src/backend/index.ts';
import type { LogEntry } from '../../src/conversation/index.ts';
import type { ServeHandle } from '../../src/cli/commands/serve.ts';
import { createClientSimV09, type ClientSim, type ClientSimV09 } from '../../src/clientsim/index.ts';
import { hashAll } from '../../src/clientsim/snapshot.ts';
import { errorIndexes, expectSameStateV09, runBothV09 } from '../clientsim/v0_9/compare.ts';
import { fillAndSubmitV09, newConversation, type Conversation, type E2eServer } from '../e2e/support/stack.ts';
import { a2aClient, a2uiData, a2uiOf, CAPS_V09, errorOf, isTask, send, text, userMessage } from '../host-a2a/support.ts';
import { AguiClient, startAgui, type AguiStack } from '../host-agui/support.ts';
import { comparable08, wireState08, wireState09 } from '../support/a2ui-equivalence.ts';
import { startRedis, type TestRedis } from '../support/redis-server.ts';
import { SessionClient, Traffic } from '../scale/support/cluster.ts';
import { caughtUp, followA2ui, followA2uiV09, fromSnapshot, fromSnapshotV09, type A2uiFollower } from '../scale/support/followers.ts';
import { actionKeyCounts, readRedisLog } from '../scale/support/redis-log.ts';
import type { Client as McpClient } from '@modelcontextprotocol/client';
import { READ_TOOL, VIEW_ACTION_TOOL } from '../../src/host-mcp/index.ts';
import { call as mcpCall, mcpClient, McpView, textOf, type ToolResult } from '../host-mcp/support.ts';
import { characterAction, formOnPage, htmlSubmit, turn } from '../scale/support/user.ts';

/*
 * Issue 19, "Done when": one conversation (a browser session's) driven through every transport
 * at once, on two instances over one real redis-server: AG-UI runs (official HttpAgent), A2A
 * messages (official @a2a-js/sdk client), A2UI-stream actions (POST /a2ui/c/{cid}/events by
 * clients following the v0.8 stream on instance A and the v0.9 stream on instance B) and htmx
 * submits (the page's form as the instance renders it), and MCP (issue 30: the host's model
 * calling directive tools, the MCP App view pressing save through its action tool; the 2026-07-28
 * protocol to instance A, 2025-11-25 to B). fast-check interleaves:
 * - turns (AG-UI, A2A, htmx, MCP directive calls) on either instance;
 * - submits of the current form through any transport and instance, or of an old form (stale:
 *   refused with the stale code when an accepted submit came since);
 * - retries of earlier submits, same idempotency key and body, either instance (replayed, never
 *   re-applied);
 * - races: two transports press save on the same current form at once, one on each instance
 *   (exactly one applied, the other refused as stale);
 * - echoes: one submit sent through both instances at once under one key, as a client that gave
 *   up waiting does (applied once, both answered as applied).
 * The A2A client speaks v1.0 to instance A and v0.3 (the SDK's compat layer) to instance B.
 *
 * - resends: a new AG-UI or A2A message sent to both instances at once (same message id), as a
 *   client that gave up waiting does (one turn; issue 34).
 * After each interleaving: every message is one turn in the log, every accepted submit is in the log (read from Redis with a connection
 * of the test's own) exactly once, refused ones and retries never; and every client ends on the
 * same state: v0.8 stream client (A) = fresh v0.8 snapshot, v0.9 stream client (B) = AG-UI
 * client = A2A client = MCP view = fresh v0.9 snapshot (ClientSim hashes), and the v0.8 and v0.9 states
 * equivalent (test/support/a2ui-equivalence.ts).
 *
 * Budget: RUNS interleavings of MIN_STEPS..MAX_STEPS steps: 20 about 5 s of test time on the
 * shared 2-core machine, CI's 40 about 11 s (a whole CI run is ~13 min of its 40); raise RUNS for a
 * longer soak.
 */
const RUNS = process.env.CI ? 40 : 20;
const MIN_STEPS = 4;
const MAX_STEPS = 10;
const PREFIX = `xprop-${Date.now()}:`;
const AGENT_TOKEN = 'xprop-agent-token-0123456789';
const SEMANTIC = { reachableOnly: true, sortDataKeys: true } as const;
const STALE = 'A2UI_C2S_SURFACE_STALE';

const TRANSPORTS = ['agui', 'a2a', 'a2ui08', 'a2ui09', 'htmx', 'mcp'] as const;
type Transport = typeof TRANSPORTS[number];
type Step =
  | { kind: 'turn'; via: 'agui' | 'a2a' | 'htmx' | 'mcp'; instance: 0 | 1; text: string }
  | { kind: 'submit'; via: Transport; instance: 0 | 1; old: boolean }
  | { kind: 'retry'; pick: number; instance: 0 | 1 }
  | { kind: 'race'; vias: [Transport, Transport] }
  | { kind: 'echo'; via: Exclude<Transport, 'agui'> }
  | { kind: 'resend'; via: 'agui' | 'a2a' };
const STEP_KINDS = ['turn', 'submit', 'retry', 'race', 'echo', 'resend'] as const satisfies ReadonlyArray<Step['kind']>;

/**
 * Run first, beside the random interleavings: every kind of step, and a fresh submit through every
 * transport, so the coverage the test asserts never rests on the draw (20 random runs once drew no
 * accepted AG-UI submit; in others it was 2 to 8).
 */
const COVERING_PLAN: Step[] = [
  ...TRANSPORTS.map((via, i): Step => ({ kind: 'submit', via, instance: (i % 2) as 0 | 1, old: false })),
  { kind: 'retry', pick: 0, instance: 1 },
  { kind: 'race', vias: ['htmx', 'a2a'] },
  { kind: 'echo', via: 'a2ui09' },
  { kind: 'resend', via: 'agui' },
  { kind: 'turn', via: 'a2a', instance: 0, text: 'thanks' },
];

const instanceArb = fc.constantFrom<0 | 1>(0, 1);
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('turn' as const), via: fc.constantFrom('agui' as const, 'a2a' as const, 'htmx' as const, 'mcp' as const), instance: instanceArb, text: fc.constantFrom('create a character card', 'thanks') }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('submit' as const), via: fc.constantFrom<Transport>(...TRANSPORTS), instance: instanceArb, old: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('retry' as const), pick: fc.nat(), instance: instanceArb }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('echo' as const), via: fc.constantFrom('a2a' as const, 'a2ui08' as const, 'a2ui09' as const, 'htmx' as const, 'mcp' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('resend' as const), via: fc.constantFrom('agui' as const, 'a2a' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('race' as const), vias: fc.uniqueArray(fc.constantFrom<Transport>(...TRANSPORTS), { minLength: 2, maxLength: 2 }) as fc.Arbitrary<[Transport, Transport]> }) },
);

/** A submit as the client sent it: enough to send it again, byte for byte, under the same key. */
interface Sent {
  via: Transport;
  /** The key the ingress logs for it (after clientKey for htmx). */
  logKey: string;
  accepted: boolean;
  resend(instance: 0 | 1): Promise<Outcome>;
}
type Outcome = { accepted: boolean; replayed: boolean; code?: string | undefined };

/** A form body built at some point, to be submitted later (stale once a submit was accepted since). */
interface Built<T> { body: T; acceptedBefore: number }

let redis: TestRedis;
const stacks: AguiStack[] = [];
const servers: E2eServer[] = [];
let owner: string | undefined;

beforeAll(async () => {
  redis = await startRedis();
  for (let i = 0; i < 2; i += 1) {
    const stack = await startAgui({
      backend: createRedisBackend({ url: redis.url, prefix: PREFIX }),
      sessionSecret: 'xprop-session-secret-0123456789',
      // The agent clients act as the browser session's owner (as an app that signs its users in would map them).
      authenticate: (request) => (request.headers.get('authorization') === `Bearer ${AGENT_TOKEN}` && owner !== undefined
        ? { id: 'xprop-agent', owner } : undefined),
    });
    stacks.push(stack);
    servers.push({
      url: stack.url, errors: stack.errors, client: () => { throw new Error('use a SessionClient'); }, close: stack.close,
      handle: { conversations: stack.surfacer.conversations, a2ui: stack.surfacer.a2ui } as unknown as ServeHandle,
    });
  }
}, 60_000);
afterAll(async () => {
  for (const s of stacks) await s.close();
  await redis?.stop();
});

function holdsCard(sim: ClientSimV09): boolean {
  return [...sim.state().surfaces.values()].some((s) => s.components.has('main.f-name.TextField'));
}

function surfaceOf09(sim: ClientSimV09): string {
  const id = [...sim.state().surfaces].find(([, s]) => s.components.has('main.f-name.TextField'))?.[0];
  if (id === undefined) throw new Error(`no character card (surfaces: ${[...sim.state().surfaces.keys()].join(', ')})`);
  return id;
}

/** The user of a v0.9 client fills the card and presses save, on a copy of what the client holds. */
function action09(sim: ClientSimV09, values: Record<string, string>): { version: string; action: Record<string, unknown> } {
  const fork = createClientSimV09({ state: sim.state() });
  return JSON.parse(JSON.stringify(fillAndSubmitV09(fork, surfaceOf09(fork), values))) as { version: string; action: Record<string, unknown> };
}

/**
 * The canonical error's code in a failed task's status message. A v1.0 part says
 * `application/json` in its media type; a v0.3 part has no media type (the compat layer leaves it
 * empty), so the error is the data part that is not A2UI and holds a registered code.
 */
function canonicalCode(task: Task): string | undefined {
  const found = errorOf(task)?.code;
  if (found !== undefined) return found;
  for (const part of task.status?.message?.parts ?? []) {
    if (part.content?.$case !== 'data' || part.metadata?.mimeType !== undefined) continue;
    const value = part.content.value as { code?: unknown; category?: unknown };
    if (typeof value.code === 'string' && typeof value.category === 'string') return value.code;
  }
  return undefined;
}

/** Turns the log holds for messages (a continuation answers an action, not a message). */
const turnsIn = (entries: readonly LogEntry[]): number => entries.filter((e) => e.type === 'turn' && e.continuation === undefined).length;

const a2aKey = (messageId: string): string => `a2a-${createHash('sha256').update(`${messageId}\n0`).digest('base64url').slice(0, 32)}`;

class Run {
  readonly jar = new Map<string, string>();
  readonly traffic = new Traffic();
  readonly htmx = servers.map((s, i) => new SessionClient(s.url, `i${i}`, this.jar, this.traffic));
  c!: Conversation;
  v08!: A2uiFollower<ClientSim>;
  v09!: A2uiFollower<ClientSimV09>;
  agui!: AguiClient;
  a2a: Client[] = [];
  /** Every A2UI message the A2A client received, in order (its renderer's input). */
  readonly a2aReceived: unknown[] = [];
  a2aSim = createClientSimV09();
  /** The A2UI messages of the A2A client's last answer (each answer re-initialises every surface). */
  a2aLast: unknown[] = [];
  /** The host's MCP client on each instance, and the MCP App view they feed (what the person sees in the chat). */
  mcp: McpClient[] = [];
  readonly mcpView = new McpView();
  readonly sent: Sent[] = [];
  /** User messages and host directive calls sent, each of which must be exactly one turn in the log. */
  turnsSent = 0;
  accepted = 0;
  n = 0;
  readonly old08: Array<Built<ReturnType<typeof characterAction>>> = [];
  readonly old09: Array<Built<ReturnType<typeof action09>>> = [];
  readonly oldForm: Array<Built<Record<string, string>>> = [];
  /** The MCP App view's Save as it rendered it then (a view only ever sends what it shows). */
  readonly oldMcp: Array<Built<ReturnType<typeof action09>>> = [];

  async start(): Promise<void> {
    this.c = await newConversation(servers[0]!, this.htmx[0]!);
    owner = (await servers[0]!.handle.conversations.get(this.c.cid))!.ownerSessionId;
    expect(await turn(this.htmx[0]!, this.c, 'create a character card')).toMatchObject({ status: 200 });
    this.turnsSent += 1;
    this.v08 = await followA2ui(servers[0]!.url, this.c);
    this.v09 = await followA2uiV09(servers[1]!.url, this.c);
    this.agui = new AguiClient(servers[0]!.url, AGENT_TOKEN, this.c.cid);
    this.a2a = await Promise.all(servers.map((s, i) => a2aClient(s.url, { token: AGENT_TOKEN, legacy: i === 1 })));
    this.mcp = await Promise.all(servers.map((s, i) => mcpClient(s.url, AGENT_TOKEN, { era: i === 0 ? 'modern' : 'legacy' })));
    await this.settle();
  }

  close(): void {
    this.v08?.close();
    this.v09?.close();
    for (const client of this.mcp) void client.close();
  }

  /** An MCP tool call on `instance`; its UI goes to the view as the MCP App shows it (and through the official processor). */
  async mcpTool(instance: 0 | 1, name: string, args: Record<string, unknown>): Promise<ToolResult> {
    const result = await mcpCall(this.mcp[instance]!, name, { conversationId: this.c.cid, ...args });
    // The view applies it (and the official processor beside ClientSim takes every message).
    if (result.structuredContent?.a2ui !== undefined) this.mcpView.show(result.structuredContent);
    return result;
  }

  /** Both instances have folded the log to its end and both stream clients hold all of it. */
  async settle(): Promise<number> {
    const length = (await readRedisLog(redis.url, PREFIX, this.c.cid)).length;
    for (const s of servers) {
      await expect.poll(async () => (await s.handle.conversations.get(this.c.cid))!.version, { timeout: 10_000, interval: 5 }).toBe(length);
    }
    await caughtUp(servers[0]!, this.c.cid, this.v08);
    await caughtUp(servers[1]!, this.c.cid, this.v09);
    return length;
  }

  values(): Record<string, string> {
    this.n += 1;
    return { name: `Name ${this.n}`, personality: `Take ${this.n}.` };
  }

  /** Bodies of the current forms, kept to be sent late (stale) by a later step. */
  async remember(): Promise<void> {
    this.old08.push({ body: characterAction(this.v08.sim, this.values()), acceptedBefore: this.accepted });
    this.old09.push({ body: action09(this.v09.sim, this.values()), acceptedBefore: this.accepted });
    this.oldForm.push({ body: await formOnPage(this.htmx[0]!, this.c), acceptedBefore: this.accepted });
    if (holdsCard(this.mcpView.sim)) this.oldMcp.push({ body: action09(this.mcpView.sim, this.values()), acceptedBefore: this.accepted });
  }

  async aguiRun(instance: 0 | 1, params: Parameters<AguiClient['run']>[0]): Promise<Outcome> {
    this.agui.agent.url = `${servers[instance]!.url}/ag-ui`;
    const { events, error } = await this.agui.run(params);
    expect(error === undefined || events.at(-1)?.type === 'RUN_ERROR', String(error)).toBe(true);
    const last = events.at(-1) as { type: string; code?: string } | undefined;
    return { accepted: last?.type === 'RUN_FINISHED', replayed: false, code: last?.code };
  }

  async a2aSend(instance: 0 | 1, message: Message): Promise<Outcome> {
    const result = await send(this.a2a[instance]!, message);
    expect(isTask(result)).toBe(true);
    const task = result as Task;
    const ui = a2uiOf(task.status?.message).messages;
    this.a2aReceived.push(...ui);
    this.a2aLast = ui;
    expect(this.a2aSim.applyAll(ui).filter((v) => v.severity === 'error')).toEqual([]);
    const ok = task.status?.state === TaskState.TASK_STATE_COMPLETED;
    if (!ok) expect(task.status?.state, JSON.stringify(errorOf(task))).toBe(TaskState.TASK_STATE_FAILED);
    return { accepted: ok, replayed: false, code: canonicalCode(task) };
  }

  async turnStep(step: Extract<Step, { kind: 'turn' }>): Promise<void> {
    this.turnsSent += 1;
    if (step.via === 'htmx') {
      expect(await turn(this.htmx[step.instance]!, this.c, step.text)).toMatchObject({ status: 200 });
    } else if (step.via === 'agui') {
      this.agui.say(step.text);
      expect(await this.aguiRun(step.instance, {})).toMatchObject({ accepted: true });
    } else if (step.via === 'mcp') {
      // The host's model writes the directive itself.
      const [tool, payload] = step.text === 'thanks' ? ['toast', { level: 'info', text: 'You are welcome.' }] : ['show_form', { template: 'character_card' }];
      const result = await this.mcpTool(step.instance, tool, { payload });
      expect(result.isError ?? false, textOf(result)).toBe(false);
    } else {
      expect(await this.a2aSend(step.instance, userMessage([text(step.text)], { contextId: this.c.cid, metadata: CAPS_V09 }))).toMatchObject({ accepted: true });
    }
  }

  /** What the client will send for `step`, built now (the current form, or an old one kept from before). */
  async prepare(step: Extract<Step, { kind: 'submit' }>): Promise<{ post(instance: 0 | 1): Promise<Outcome>; logKey: string; old: Built<unknown> | undefined }> {
    const pool: Array<Built<unknown>> = step.via === 'a2ui08' ? this.old08 : step.via === 'htmx' ? this.oldForm : step.via === 'mcp' ? this.oldMcp : this.old09;
    const old = step.old && pool.length > 0 ? pool.shift()! : undefined;
    const oldBody = old?.body as never;
    const key = `k${this.sent.length}-${Math.random().toString(36).slice(2, 8)}`;
    const v = this.values();
    let post: (instance: 0 | 1) => Promise<Outcome>;
    let logKey = key;
    switch (step.via) {
      case 'a2ui08': {
        const body = oldBody ?? characterAction(this.v08.sim, v);
        post = async (i) => {
          const a = await this.htmx[i]!.a2uiEvent(this.c, body, key);
          expect([200, 409], JSON.stringify(a.body)).toContain(a.status);
          return { accepted: a.status === 200, replayed: a.body.replayed === true, code: a.body.code as string | undefined };
        };
        break;
      }
      case 'a2ui09': {
        const body = (oldBody as ReturnType<typeof action09> | undefined) ?? action09(this.v09.sim, v);
        post = async (i) => {
          const a = await this.htmx[i]!.a2uiEvent(this.c, body, key);
          expect([200, 409], JSON.stringify(a.body)).toContain(a.status);
          return { accepted: a.status === 200, replayed: a.body.replayed === true, code: a.body.code as string | undefined };
        };
        break;
      }
      case 'htmx': {
        const form = (oldBody as Record<string, string> | undefined) ?? await formOnPage(this.htmx[step.instance]!, this.c);
        post = async (i) => {
          const a = await htmlSubmit(this.htmx[i]!, this.c, form, key, v);
          expect([200, 409], JSON.stringify(a.body)).toContain(a.status);
          return { accepted: a.status === 200, replayed: a.body.replayed === true, code: a.body.code as string | undefined };
        };
        break;
      }
      case 'agui': {
        // The AG-UI client presses save on what it shows; for a current form it first re-runs the
        // thread (the history again: no new turn, the surfaces as they are now).
        if (old === undefined) expect(await this.aguiRun(step.instance, {})).toMatchObject({ accepted: true });
        const userAction = ((oldBody as ReturnType<typeof action09> | undefined) ?? action09(this.agui.sim, v)).action;
        post = (i) => this.aguiRun(i, { runId: key, forwardedProps: { a2uiAction: { userAction } } });
        break;
      }
      case 'mcp': {
        // The MCP App view presses save on what it shows; for a current form it first reads the surfaces (surfacer_read).
        if (old === undefined) expect((await this.mcpTool(step.instance, READ_TOOL, {})).isError ?? false).toBe(false);
        const message = (oldBody as ReturnType<typeof action09> | undefined) ?? action09(this.mcpView.sim, v);
        post = async (i) => {
          const result = await this.mcpTool(i, VIEW_ACTION_TOOL, { message, idempotencyKey: key });
          const outcome = result.structuredContent?.outcome;
          expect(['applied', 'replayed', 'stale'], textOf(result)).toContain(outcome);
          return { accepted: outcome !== 'stale', replayed: outcome === 'replayed', code: result.structuredContent?.error?.code };
        };
        break;
      }
      case 'a2a': {
        // The A2A client's view is its last answer's UI; a current form is the one a v0.9 client sees now.
        const body = (oldBody as ReturnType<typeof action09> | undefined) ?? action09(this.v09.sim, v);
        const message = userMessage([a2uiData([body])], { contextId: this.c.cid, metadata: CAPS_V09, messageId: key });
        logKey = a2aKey(key);
        post = (i) => this.a2aSend(i, { ...message });
        break;
      }
    }
    return { post, logKey, old };
  }

  record(via: Transport, logKey: string, outcome: Outcome, resend: Sent['resend']): void {
    this.sent.push({ via, logKey, accepted: outcome.accepted, resend });
    if (outcome.accepted) this.accepted += 1;
  }

  async submitStep(step: Extract<Step, { kind: 'submit' }>): Promise<void> {
    const { post, logKey, old } = await this.prepare(step);
    const before = this.accepted;
    const outcome = await post(step.instance);
    this.record(step.via, logKey, outcome, post);
    const what = `${step.via} ${old ? 'old' : 'current'} form on instance ${step.instance}: ${JSON.stringify(outcome)}`;
    expect(outcome.replayed, what).toBe(false);
    if (old === undefined) expect(outcome.accepted, what).toBe(true);
    else if (old.acceptedBefore < before) expect(outcome, what).toMatchObject({ accepted: false, code: STALE });
  }

  /**
   * Two clients press save on the same current form at the same moment, through two transports
   * on the two instances: one is applied, the other refused as stale (never both, never neither).
   */
  async raceStep(step: Extract<Step, { kind: 'race' }>): Promise<void> {
    const first = await this.prepare({ kind: 'submit', via: step.vias[0], instance: 0, old: false });
    const second = await this.prepare({ kind: 'submit', via: step.vias[1], instance: 1, old: false });
    const outcomes = await Promise.all([first.post(0), second.post(1)]);
    this.record(step.vias[0], first.logKey, outcomes[0], first.post);
    this.record(step.vias[1], second.logKey, outcomes[1], second.post);
    const what = `race ${step.vias.join(' vs ')}: ${JSON.stringify(outcomes)}`;
    expect(outcomes.filter((o) => o.accepted).length, what).toBe(1);
    expect(outcomes.find((o) => !o.accepted), what).toMatchObject({ code: STALE, replayed: false });
  }

  /**
   * A client that gave up waiting sends the same submit again (same key, same body) while the
   * first is still on its way, through the other instance: applied once, both answered as applied.
   */
  async echoStep(step: Extract<Step, { kind: 'echo' }>): Promise<void> {
    const { post, logKey } = await this.prepare({ kind: 'submit', via: step.via, instance: 0, old: false });
    const version = (await readRedisLog(redis.url, PREFIX, this.c.cid)).length;
    const outcomes = await Promise.all([post(0), post(1)]);
    const what = `echo ${step.via}: ${JSON.stringify(outcomes)}`;
    expect(outcomes.map((o) => o.accepted), what).toEqual([true, true]);
    if (step.via !== 'a2a') expect(outcomes.map((o) => o.replayed).sort(), what).toEqual([false, true]);
    this.record(step.via, logKey, outcomes[0]!, post);
    expect((await readRedisLog(redis.url, PREFIX, this.c.cid)).length, what).toBe(version + 1);
  }

  async retryStep(step: Extract<Step, { kind: 'retry' }>): Promise<void> {
    if (this.sent.length === 0) return;
    const original = this.sent[step.pick % this.sent.length]!;
    const version = (await readRedisLog(redis.url, PREFIX, this.c.cid)).length;
    const outcome = await original.resend(step.instance);
    const what = `retry of ${original.via} ${original.logKey} on instance ${step.instance}: ${JSON.stringify(outcome)}`;
    if (original.accepted) {
      expect(outcome.accepted, what).toBe(true);
      if (original.via !== 'agui' && original.via !== 'a2a') expect(outcome.replayed, what).toBe(true);
    }
    // Nothing applied again, whatever the answer.
    expect((await readRedisLog(redis.url, PREFIX, this.c.cid)).length, what).toBe(version);
  }

  /**
   * A client that gave up waiting sends its new message again through the other instance while
   * the first is on its way (the same AG-UI history and message id; the same A2A messageId):
   * one turn, both answered.
   */
  async resendStep(step: Extract<Step, { kind: 'resend' }>): Promise<void> {
    const turnsBefore = turnsIn(await readRedisLog(redis.url, PREFIX, this.c.cid));
    const id = `m-${this.n += 1}-${Math.random().toString(36).slice(2, 8)}`;
    this.turnsSent += 1;
    if (step.via === 'agui') {
      this.agui.say('thanks', id);
      const twin = new AguiClient(servers[1]!.url, AGENT_TOKEN, this.c.cid);
      twin.say('thanks', id);
      const [first, second] = await Promise.all([this.aguiRun(0, {}), twin.run()]);
      expect(first, 'AG-UI run').toMatchObject({ accepted: true });
      expect(second.error, 'AG-UI resend').toBeUndefined();
    } else {
      const message = userMessage([text('thanks')], { contextId: this.c.cid, metadata: CAPS_V09, messageId: id });
      const [first, second] = await Promise.all([this.a2aSend(0, { ...message }), send(this.a2a[1]!, { ...message })]);
      expect(first, 'A2A send').toMatchObject({ accepted: true });
      expect(isTask(second) && (second as Task).status?.state, 'A2A resend').toBe(TaskState.TASK_STATE_COMPLETED);
    }
    expect(turnsIn(await readRedisLog(redis.url, PREFIX, this.c.cid)) - turnsBefore, `${step.via} message ${id} sent to both instances at once`).toBe(1);
  }

  async step(step: Step): Promise<void> {
    await this.settle();
    await this.remember();
    if (step.kind === 'turn') await this.turnStep(step);
    else if (step.kind === 'submit') await this.submitStep(step);
    else if (step.kind === 'race') await this.raceStep(step);
    else if (step.kind === 'echo') await this.echoStep(step);
    else if (step.kind === 'resend') await this.resendStep(step);
    else await this.retryStep(step);
  }

  /** The end: every client in step, every accepted submit in the log once. */
  async check(): Promise<void> {
    // The A2A client's last answer brings it to the current UI: a retry of its first submit, or a turn.
    const a2aSent = this.sent.find((s) => s.via === 'a2a');
    if (a2aSent !== undefined) await a2aSent.resend(0);
    else await this.turnStep({ kind: 'turn', via: 'a2a', instance: 0, text: 'thanks' });
    // The AG-UI client's last run: the thread's history again (no new turn), the surfaces as they are.
    expect(await this.aguiRun(1, {})).toMatchObject({ accepted: true });
    // The MCP App view catches up as a re-opened one does: surfacer_read.
    expect((await this.mcpTool(1, READ_TOOL, {})).isError ?? false).toBe(false);
    await this.settle();

    const entries = await readRedisLog(redis.url, PREFIX, this.c.cid);
    // Every message (and host directive call) is one turn, whatever transport, instance or resend.
    expect(turnsIn(entries), 'turns in the log').toBe(this.turnsSent);
    const counts = actionKeyCounts(entries);
    const expected = new Map(this.sent.filter((s) => s.accepted).map((s) => [s.logKey, 1]));
    expect(Object.fromEntries(counts)).toEqual(Object.fromEntries(expected));

    const fresh08 = (await fromSnapshot(servers[1]!.url, this.c)).sim;
    const fresh09 = (await fromSnapshotV09(servers[0]!.url, this.c)).sim;
    expect(hashAll(this.v08.sim.state(), SEMANTIC)).toEqual(hashAll(fresh08.state(), SEMANTIC));
    const h09 = (sim: ClientSimV09): Record<string, string> => Object.fromEntries(sim.hashes(SEMANTIC));
    expect(h09(this.v09.sim), 'v0.9 stream').toEqual(h09(fresh09));
    expect(h09(this.agui.sim), 'AG-UI').toEqual(h09(fresh09));
    expect(h09(this.a2aSim), 'A2A').toEqual(h09(fresh09));
    expect(h09(this.mcpView.sim), 'MCP App view').toEqual(h09(fresh09));
    expect(this.mcpView.violations).toEqual([]);
    expectSameStateV09(this.mcpView.sim, this.mcpView.oracle);
    const lastOnly = createClientSimV09();
    expect(lastOnly.applyAll(this.a2aLast).filter((v) => v.severity === 'error')).toEqual([]);
    expect(h09(lastOnly), 'A2A, its last answer alone').toEqual(h09(fresh09));
    expect(comparable08(wireState08(this.v08.sim), wireState09(fresh09))).toEqual(wireState09(fresh09));
    // Everything the agent clients received, through the official v0.9 processor too (ClientSim agrees).
    const a2a = runBothV09(this.a2aReceived);
    expect(a2a.refused).toEqual([]);
    expect(errorIndexes(a2a.violations)).toEqual([]);
    expectSameStateV09(a2a.sim, a2a.oracle);
    expect(this.agui.refused).toEqual([]);
    expect(this.agui.violations).toEqual([]);
    expectSameStateV09(this.agui.sim, this.agui.oracle);
    expect(this.traffic.serverErrors()).toEqual([]);
  }
}

describe('one conversation through every transport, two instances over Redis', () => {
  it(`${RUNS} random interleavings: every client ends on the same ClientSim hash; each accepted submit applied exactly once, each message one turn`, async () => {
    let runs = 0;
    let steps = 0;
    const tally = { accepted: 0, refused: 0, retries: 0, races: 0, echoes: 0 };
    const byTransport = new Map<Transport, number>();
    const kinds = new Map<Step['kind'], number>();
    await fc.assert(fc.asyncProperty(fc.array(stepArb, { minLength: MIN_STEPS, maxLength: MAX_STEPS }), async (plan) => {
      const run = new Run();
      try {
        await run.start();
        for (const step of plan) await run.step(step);
        await run.check();
        runs += 1;
        steps += plan.length;
        tally.accepted += run.sent.filter((s) => s.accepted).length;
        tally.refused += run.sent.filter((s) => !s.accepted).length;
        tally.retries += plan.filter((s) => s.kind === 'retry').length;
        tally.races += plan.filter((s) => s.kind === 'race').length;
        tally.echoes += plan.filter((s) => s.kind === 'echo').length;
        for (const s of run.sent) if (s.accepted) byTransport.set(s.via, (byTransport.get(s.via) ?? 0) + 1);
        for (const s of plan) kinds.set(s.kind, (kinds.get(s.kind) ?? 0) + 1);
      } finally {
        run.close();
      }
    }), { numRuns: RUNS + 1, examples: [[COVERING_PLAN]], endOnFailure: true });
    console.log(`cross-transport property: ${runs} runs, ${steps} steps, ${tally.accepted} submits accepted, ${tally.refused} refused, ${tally.retries} retries, ${tally.races} races, ${tally.echoes} echoes; steps per kind ${JSON.stringify(Object.fromEntries(kinds))}; accepted per transport ${JSON.stringify(Object.fromEntries(byTransport))}`);
    expect(tally.accepted).toBeGreaterThan(0);
    expect(tally.refused).toBeGreaterThan(0);
    // Every kind of step, and an accepted submit through every transport, happened in the runs that passed.
    for (const kind of STEP_KINDS) expect(kinds.get(kind) ?? 0, `${kind} steps`).toBeGreaterThan(0);
    for (const transport of TRANSPORTS) expect(byTransport.get(transport) ?? 0, `accepted ${transport} submits`).toBeGreaterThan(0);
    for (const s of servers) expect(s.errors).toEqual([]);
  }, 180_000);
});
