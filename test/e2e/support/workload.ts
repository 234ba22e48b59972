import { createClientSim, type ClientSim } from '../../../src/clientsim/index.ts';
import type { HttpClient } from '../../support/http-client.ts';
import type { SseConnection } from '../../support/sse-client.ts';
import { caughtUpWith, feed, postEvent, say, type Conversation, type E2eServer } from './stack.ts';

/**
 * A random but reproducible user session over both hosts: planner turns through the htmx route
 * (forms opened, replaced, closed), form submits and cancels through the A2UI events route
 * (built by a ClientSim from what the reference stream showed), client error reports (epoch
 * resets) and htmx regenerates. After each step the reference client has caught up, so the
 * next action is built on the current UI.
 */
const TEXTS = [
  'create a character card', 'open my persona', 'scene settings please', 'hello there', 'close it',
  'a character named Bran', 'thanks', 'edit the scene tone',
];
const VALUES = ['Aria', 'Bran the Bold', '[x]', 'Quiet, curious and kind.', 'main.title.Text', 'été ☕ naïve', '{"a": 1}', 'x'];

export interface Workload {
  readonly steps: number;
  /** Kinds of steps taken, with how often the server accepted them. */
  readonly tally: Record<string, { sent: number; accepted: number }>;
  step(): Promise<void>;
}

export function createWorkload(
  s: E2eServer, client: HttpClient, c: Conversation, reference: { sim: ClientSim; conn: SseConnection; seen: number }, rng: () => number,
): Workload {
  const tally: Record<string, { sent: number; accepted: number }> = {};
  let steps = 0;
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rng() * items.length)]!;
  const count = (kind: string, accepted: boolean): void => {
    tally[kind] ??= { sent: 0, accepted: 0 };
    tally[kind].sent += 1;
    if (accepted) tally[kind].accepted += 1;
  };

  function rendered(): string[] {
    return [...reference.sim.surfaces().values()].filter((x) => x.rendering).map((x) => x.surfaceId);
  }

  function typeOf(surfaceId: string, componentId: string): string | undefined {
    const component = reference.sim.surface(surfaceId)?.components[componentId]?.component;
    return component === undefined ? undefined : Object.keys(component)[0];
  }

  async function press(kind: 'submit' | 'cancel'): Promise<void> {
    for (const surfaceId of rendered()) {
      const ids = Object.keys(reference.sim.surface(surfaceId)!.components);
      // The user types into a fork: the reference must hold only what the stream sent.
      const user = createClientSim({ state: reference.sim.state() });
      if (kind === 'submit') {
        for (const id of ids) {
          if (typeOf(surfaceId, id) === 'TextField' && !id.includes('url') && rng() < 0.7) user.input(surfaceId, id, pick(VALUES));
        }
      }
      for (const id of ids.filter((i) => typeOf(surfaceId, i) === 'Button')) {
        const click = user.click(surfaceId, id);
        if (!click.ok || !click.message.userAction.name.endsWith(`.${kind}`)) continue;
        const res = await postEvent(s, c, click.message, { 'Idempotency-Key': `k${steps}-${id}` });
        count(kind, res.status === 200);
        return;
      }
    }
    count(`${kind} (nothing to press)`, false);
  }

  return {
    get steps() { return steps; },
    tally,
    async step() {
      steps += 1;
      const r = rng();
      const live = rendered();
      if (r < 0.3 || live.length === 0) {
        await say(client, c, pick(TEXTS));
        count('turn', true);
      } else if (r < 0.75) {
        await press('submit');
      } else if (r < 0.82) {
        await press('cancel');
      } else if (r < 0.92) {
        const res = await postEvent(s, c, { error: { code: 'VALIDATION_FAILED', surfaceId: pick(live), message: 'workload' } });
        count('client error', res.status === 202);
      } else {
        const res = await client.post(`${c.base}/surfaces/main/regenerate`, { _csrf: c.csrf }, { as: 'json' });
        await res.arrayBuffer();
        count('regenerate', res.status === 200);
      }
      await caughtUpWith(s, c.cid, () => reference.conn.parser.lastEventId);
      reference.seen = feed(reference.sim, reference.conn, reference.seen);
    },
  };
}
