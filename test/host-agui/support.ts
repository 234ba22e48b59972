import { HttpAgent } from '@ag-ui/client';
import type { BaseEvent, Message } from '@ag-ui/core';
import { EventSchemas } from '@ag-ui/core/schemas';
import { createDemoApp } from '../../src/app/index.ts';
import { createClientSimV09, type ClientSimV09, type ViolationV09 } from '../../src/clientsim/index.ts';
import type { Logger } from '../../src/conversation/index.ts';
import type { RunningServer } from '../../src/host-html/index.ts';
import { createSurfacer, type Surfacer, type SurfacerOptions } from '../../src/server/index.ts';
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
 * One AG-UI client as CopilotKit's A2UI renderer is one: the official HttpAgent, and every A2UI
 * operation of every a2ui-surface activity fed, in order, to the official v0.9 MessageProcessor
 * and to ClientSim v0.9 (which must agree with it).
 */
export class AguiClient {
  readonly agent: HttpAgent;
  readonly oracle: Oracle = newOracle();
  readonly sim: ClientSimV09 = createClientSimV09();
  readonly refused: string[] = [];
  readonly violations: ViolationV09[] = [];
  /** Every event of every run, in order. */
  readonly events: BaseEvent[] = [];
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

  private take(event: BaseEvent): void {
    if (event.type !== 'ACTIVITY_SNAPSHOT') return;
    const e = event as BaseEvent & { activityType: string; content: { a2ui_operations?: unknown[] } };
    if (e.activityType !== 'a2ui-surface') return;
    for (const op of e.content.a2ui_operations ?? []) {
      const outcome = offer(this.oracle, op);
      if (!outcome.ok) this.refused.push(`${outcome.why}: ${JSON.stringify(op).slice(0, 300)}`);
      this.violations.push(...this.sim.apply(JSON.parse(JSON.stringify(op))).filter((v) => v.severity === 'error'));
    }
  }
}

export const types = (events: readonly BaseEvent[]): string[] => events.map((e) => e.type);
