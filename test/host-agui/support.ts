import { HttpAgent } from '@ag-ui/client';
import type { BaseEvent, Message } from '@ag-ui/core';
import { EventSchemas } from '@ag-ui/core/schemas';
import { createDemoApp } from '../../src/app/index.ts';
import { createClientSimV09, type ClientSimV09, type ViolationV09 } from '../../src/clientsim/index.ts';
import type { Logger } from '../../src/conversation/index.ts';
import type { RunningServer } from '../../src/host-html/index.ts';
import { createSurfacer, type Surfacer, type SurfacerOptions } from '../../src/server/index.ts';
import { expect } from 'vitest';
import { newOracle, offer, type Oracle } from '../support/a2ui-v0_9-oracle.ts';

/** A Surfacer over real HTTP on a loopback port, with the AG-UI endpoint and two tokens. */
export interface AguiStack {
  surfacer: Surfacer;
  server: RunningServer;
  url: string;
  errors: string[];
  close(): Promise<void>;
}

export const TOKEN_A = 'token-a-0123456789';
export const TOKEN_B = 'token-b-0123456789';

export async function startAgui(options: Partial<SurfacerOptions> = {}): Promise<AguiStack> {
  const errors: string[] = [];
  const logger: Logger = { info() {}, warn() {}, error(message, fields) { errors.push(`${message} ${JSON.stringify(fields ?? {})}`); } };
  const surfacer = createSurfacer({
    app: createDemoApp(), sessionSecret: 'agui-test-session-secret-0123', logger,
    env: { SURFACER_API_TOKENS: `${TOKEN_A},${TOKEN_B}` }, ...options,
  });
  const server = await surfacer.listen({ port: 0, hostname: '127.0.0.1' });
  return { surfacer, server, url: server.url, errors, close: () => server.close(1000) };
}

/**
 * One AG-UI client as CopilotKit's A2UI renderer is one: the official HttpAgent, and each
 * a2ui-surface activity's operations fed to the official v0.9 MessageProcessor and to ClientSim
 * v0.9 (which must agree with it) the way CopilotKit feeds them: the whole list again whenever
 * the activity changes, createSurface left out for a surface the processor holds.
 */
export class AguiClient {
  readonly agent: HttpAgent;
  readonly oracle: Oracle = newOracle();
  readonly sim: ClientSimV09 = createClientSimV09();
  readonly refused: string[] = [];
  readonly violations: ViolationV09[] = [];
  /** Every event of every run, in order. */
  readonly events: BaseEvent[] = [];
  /** When the HttpAgent handed each of `events` over (performance.now()). */
  readonly receivedAt: number[] = [];
  /** Events the official @ag-ui/core schema refuses (must stay empty). */
  readonly invalidEvents: string[] = [];

  constructor(url: string, token: string | undefined, threadId?: string) {
    this.agent = new HttpAgent({
      url: `${url}/ag-ui`, ...(token ? { headers: { Authorization: `Bearer ${token}` } } : {}), ...(threadId ? { threadId } : {}),
    });
  }

  get threadId(): string {
    return this.agent.threadId;
  }

  say(text: string, id = `u-${Math.random().toString(36).slice(2)}`): void {
    this.agent.addMessage({ id, role: 'user', content: text } as Message);
  }

  /** One run; its events (also appended to `events`). Rejections of the HttpAgent are returned, not thrown. */
  async run(params: Parameters<HttpAgent['runAgent']>[0] = {}): Promise<{ events: BaseEvent[]; error?: unknown }> {
    const events: BaseEvent[] = [];
    try {
      await this.agent.runAgent(params, {
        onEvent: ({ event }) => {
          events.push(event);
          this.events.push(event);
          this.receivedAt.push(performance.now());
          const checked = EventSchemas.safeParse(event);
          if (!checked.success) this.invalidEvents.push(`${event.type}: ${checked.error.message.slice(0, 300)}`);
          this.take(event);
        },
      });
      return { events };
    } catch (error) {
      return { events, error };
    }
  }

  /** What each a2ui-surface activity holds now (messageId → its operations), as the client patched it. */
  private readonly activities = new Map<string, unknown[]>();

  private take(event: BaseEvent): void {
    const e = event as BaseEvent & { messageId?: string; activityType?: string; content?: { a2ui_operations?: unknown[] }; patch?: Array<{ op: string; path: string; value?: unknown }> };
    if (e.activityType !== 'a2ui-surface' || e.messageId === undefined) return;
    if (event.type === 'ACTIVITY_SNAPSHOT') {
      this.activities.set(e.messageId, [...(e.content?.a2ui_operations ?? [])]);
    } else if (event.type === 'ACTIVITY_DELTA') {
      const list = this.activities.get(e.messageId);
      if (list === undefined) this.refused.push(`a delta for activity ${e.messageId}, which was never sent`);
      // Only appends of operations are expected (what @ag-ui/a2ui-middleware sends).
      for (const p of e.patch ?? []) {
        if (p.op !== 'add' || p.path !== '/a2ui_operations/-') this.refused.push(`unexpected patch ${JSON.stringify(p).slice(0, 200)}`);
        else list?.push(p.value);
      }
    } else {
      return;
    }
    // CopilotKit's SurfaceMessageProcessor: the activity's whole list, every time it changes,
    // createSurface left out once the surface exists.
    for (const op of this.activities.get(e.messageId) ?? []) {
      const created = (op as { createSurface?: { surfaceId?: string } }).createSurface?.surfaceId;
      if (created !== undefined && this.oracle.processor.model.getSurface(created) !== undefined) continue;
      this.feed(op);
    }
  }

  private feed(op: unknown): void {
    const outcome = offer(this.oracle, op);
    if (!outcome.ok) this.refused.push(`${outcome.why}: ${JSON.stringify(op).slice(0, 300)}`);
    this.violations.push(...this.sim.apply(JSON.parse(JSON.stringify(op))).filter((v) => v.severity === 'error'));
  }

  /**
   * The HttpAgent's own activity messages (snapshots with their deltas applied by the client),
   * replayed in order into a fresh official v0.9 processor and a fresh ClientSim: what a
   * renderer that reads the messages, not the events, would show.
   */
  replayActivities(): { oracle: Oracle; sim: ClientSimV09; refused: string[]; violations: ViolationV09[] } {
    const oracle = newOracle();
    const sim = createClientSimV09();
    const refused: string[] = [];
    const violations: ViolationV09[] = [];
    for (const m of this.agent.messages) {
      const activity = m as Message & { activityType?: string; content?: { a2ui_operations?: unknown[] } };
      if (m.role !== 'activity' || activity.activityType !== 'a2ui-surface') continue;
      for (const op of activity.content?.a2ui_operations ?? []) {
        const outcome = offer(oracle, op);
        if (!outcome.ok) refused.push(`${outcome.why}: ${JSON.stringify(op).slice(0, 300)}`);
        violations.push(...sim.apply(JSON.parse(JSON.stringify(op))).filter((v) => v.severity === 'error'));
      }
    }
    return { oracle, sim, refused, violations };
  }
}

export const types = (events: readonly BaseEvent[]): string[] => events.map((e) => e.type);

/** The hashes of what a client of the native v0.9 stream holds now (the snapshot it would be initialised with). */
export async function nativeHashesV09(s: Pick<AguiStack, 'surfacer' | 'url'>, cid: string): Promise<ReadonlyMap<string, string>> {
  const conversation = await s.surfacer.conversations.get(cid);
  const response = await fetch(`${s.url}/a2ui/c/${cid}/snapshot.jsonl?v=0.9`, { headers: { Authorization: `Bearer ${conversation!.a2uiToken}` } });
  expect(response.status).toBe(200);
  const sim = createClientSimV09();
  const lines = (await response.text()).split('\n').filter((l) => l !== '');
  expect(sim.applyAll(lines.map((l) => JSON.parse(l) as unknown)).filter((v) => v.severity === 'error')).toEqual([]);
  return sim.hashes();
}
