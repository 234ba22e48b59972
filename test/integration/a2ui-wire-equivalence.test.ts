import fc from 'fast-check';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { createDemoApp } from '../../src/app/index.ts';
import {
  buildTree, createClientSim, createClientSimV09, type ClientSim, type ClientSimV09,
} from '../../src/clientsim/index.ts';
import type { A2uiVersion } from '../../src/compiler/index.ts';
import { createMemoryStore, type ConversationService } from '../../src/conversation/index.ts';
import { createA2uiHost, type A2uiHost } from '../../src/host-a2ui/index.ts';
import { createConversationStack } from '../../src/host-html/index.ts';
import { createSeededSource } from '../../src/ui-ir/index.ts';
import { holdsEverything } from '../e2e/support/stack.ts';
import { comparable08, wireState08, wireState09 } from '../support/a2ui-equivalence.ts';
import { SseParser, type SseEvent } from '../support/sse-client.ts';

/*
 * Issue 13 phase 2: one conversation, a v0.8 client and a v0.9 client (ClientSim of each
 * version, fed by the host's real routes: `GET …/stream` and `…/stream?v=0.9`, `POST …/events`),
 * driven through random steps — planner turns, submits through either client with arbitrary
 * text, stale submits from an old rendering, epoch resets, client error reports, reconnects
 * with Last-Event-ID (resumed from the buffer, or caught up after the channel was dropped).
 * After every step both clients hold equivalent states (test/support/a2ui-equivalence.ts says
 * exactly what that means) and neither saw a message it had to refuse.
 */
const PROMPTS = [
  'create a character card', 'a character named Eve', 'open my persona', 'scene settings please', 'hello', 'thanks',
  'close it', 'upload a picture',
];

/** Text a user might type, JSON-looking and id-looking text included (v0.8 guards those). */
const arbText = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom('{"a": [1]}', '[1, 2]', 'true', '42', 'main.f-name.TextField', 'main--e0', ' spaced ', 'x\u2060', 'Émile', '**bold**'),
);

type Via = '0.8' | '0.9';
type Step =
  | { kind: 'turn'; text: string }
  | { kind: 'submit'; via: Via; texts: string[]; checks: boolean[]; button: number }
  | { kind: 'stale'; via: Via; button: number }
  | { kind: 'reset' }
  | { kind: 'report'; via: Via }
  | { kind: 'reconnect'; via: Via; dropChannel: boolean };

const arbVia = fc.constantFrom<Via>('0.8', '0.9');
const arbStep: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('turn' as const), text: fc.constantFrom(...PROMPTS) }) },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('submit' as const), via: arbVia, texts: fc.array(arbText, { maxLength: 6 }), checks: fc.array(fc.boolean(), { maxLength: 3 }),
      button: fc.nat(5),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('stale' as const), via: arbVia, button: fc.nat(5) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reset' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('report' as const), via: arbVia }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('reconnect' as const), via: arbVia, dropChannel: fc.boolean() }) },
);

/** One client of the conversation: its SSE stream read through the host's route into a ClientSim of its version. */
interface Client<Sim> {
  readonly version: A2uiVersion;
  readonly sim: Sim;
  lastEventId: string;
  /** The state before the previous step (a rendering that may be stale now, to click from). */
  previous: Sim | undefined;
  connect(lastEventId?: string): Promise<void>;
  close(): void;
}

interface Rig {
  service: ConversationService;
  host: A2uiHost;
  app: Hono;
  cid: string;
  token: string;
}

async function rig(seed: string): Promise<Rig> {
  const service = createConversationStack({ app: createDemoApp(), store: createMemoryStore(), entropy: createSeededSource(seed) });
  const host = createA2uiHost({ service, sessionOwner: () => undefined, heartbeatMs: 60_000 });
  const app = new Hono();
  host.mount(app);
  const { id: cid } = await service.create('owner');
  const token = (await service.get(cid))!.a2uiToken;
  return { service, host, app, cid, token };
}

function client<Sim extends { apply(message: unknown): Array<{ severity: string; code: string; detail: string }> }>(
  r: Rig, version: A2uiVersion, make: () => Sim,
): Client<Sim> {
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  const refused: string[] = [];
  const c: Client<Sim> = {
    version, sim: make(), lastEventId: '', previous: undefined,
    async connect(lastEventId) {
      const query = version === '0.8' ? '' : `?v=${version}`;
      const headers: Record<string, string> = { Authorization: `Bearer ${r.token}` };
      if (lastEventId) headers['Last-Event-ID'] = lastEventId;
      const res = await r.app.request(`/a2ui/c/${r.cid}/stream${query}`, { headers });
      expect(res.status).toBe(200);
      const parser = new SseParser({
        onEvent: (event: SseEvent) => {
          c.lastEventId = event.lastEventId;
          const errors = c.sim.apply(JSON.parse(event.data) as unknown).filter((v) => v.severity === 'error');
          for (const e of errors) refused.push(`${version} ${e.code}: ${e.detail}`);
        },
      });
      parser.lastEventId = lastEventId ?? '';
      reader = res.body!.getReader();
      const decoder = new TextDecoder();
      const current = reader;
      void (async () => {
        for (;;) {
          const chunk = await current.read().catch(() => ({ done: true as const, value: undefined }));
          if (chunk.done) return;
          parser.feed(decoder.decode(chunk.value, { stream: true }));
          // An id-only event (an empty init) moves the id without dispatching.
          c.lastEventId = parser.lastEventId;
        }
      })();
    },
    close() {
      void reader?.cancel().catch(() => undefined);
      reader = undefined;
    },
  };
  Object.defineProperty(c, 'refused', { value: refused });
  return c;
}

const refusedBy = (c: Client<unknown>): string[] => (c as unknown as { refused: string[] }).refused;

/**
 * Resolves once the client holds everything its version's hub published. Bridges publish a
 * change in the same tick the service reports it (bridge.ts), so once a step's request has been
 * answered, what the hub holds is that step's outcome (a version whose change sent nothing moves
 * no event id).
 */
async function caughtUp(r: Rig, c: Client<unknown>): Promise<void> {
  const { hub } = r.host.wire(c.version);
  await expect.poll(() => c.lastEventId !== '' && holdsEverything(hub, r.cid, c.lastEventId), { timeout: 5_000, interval: 2 }).toBe(true)
    .catch((e: unknown) => { throw new Error(`${c.version}: hub at ${hub.checkpoint(r.cid).id}, client at ${c.lastEventId}: ${String(e)}`); });
}

/** What the steps got, across runs: the property must have exercised what it claims to. */
const seen = new Map<string, number>();
const count = (what: string): void => { seen.set(what, (seen.get(what) ?? 0) + 1); };

async function post(r: Rig, body: unknown): Promise<number> {
  const res = await r.app.request(`/a2ui/c/${r.cid}/events`, {
    method: 'POST', body: JSON.stringify(body),
    headers: { Authorization: `Bearer ${r.token}`, 'Content-Type': 'application/json' },
  });
  await res.arrayBuffer();
  const version = (body as { version?: string }).version ?? 'v0.8';
  count(`${Object.keys(body as object).filter((k) => k !== 'version').join()} ${version} ${res.status}`);
  return res.status;
}

/** Rendered nodes of a type, surface by surface, in document order. */
function nodes08(sim: ClientSim, types: readonly string[]): Array<{ surfaceId: string; id: string; type: string }> {
  return [...sim.state().surfaces].flatMap(([surfaceId, s]) => {
    const tree = buildTree(s);
    return (tree.ok ? tree.nodes : []).filter((n) => n.type !== undefined && types.includes(n.type)).map((n) => ({ surfaceId, id: n.id, type: n.type! }));
  });
}
function nodes09(sim: ClientSimV09, types: readonly string[]): Array<{ surfaceId: string; id: string; type: string }> {
  return [...sim.surfaces()].flatMap(([surfaceId, s]) => s.tree.nodes.filter((n) => n.state === 'resolved' && types.includes(n.type))
    .map((n) => ({ surfaceId, id: n.id, type: n.type })));
}

interface Renderer {
  input(surfaceId: string, componentId: string, value: unknown): unknown;
  click(surfaceId: string, componentId: string): { ok: true; message: unknown } | { ok: false };
}

/** The user types into `fork` (a copy of the renderer's state) and presses a Button: the message it sends, if any. */
function userMessage<R extends Renderer>(fork: R, nodes: (sim: R, types: readonly string[]) => ReturnType<typeof nodes09>,
  step: { texts: string[]; checks: boolean[]; button: number }): unknown {
  nodes(fork, ['TextField']).forEach((n, i) => { if (i < step.texts.length) fork.input(n.surfaceId, n.id, step.texts[i]!); });
  nodes(fork, ['CheckBox']).forEach((n, i) => { if (i < step.checks.length) fork.input(n.surfaceId, n.id, step.checks[i]!); });
  const buttons = nodes(fork, ['Button']);
  if (buttons.length === 0) return undefined;
  const b = buttons[step.button % buttons.length]!;
  const click = fork.click(b.surfaceId, b.id);
  return click.ok ? click.message : undefined;
}
const userMessage08 = (state: ReturnType<ClientSim['state']>, step: Parameters<typeof userMessage>[2]): unknown =>
  userMessage(createClientSim({ state }), nodes08, step);
const userMessage09 = (state: ReturnType<ClientSimV09['state']>, step: Parameters<typeof userMessage>[2]): unknown =>
  userMessage(createClientSimV09({ state }), nodes09, step);

async function run(r: Rig, c08: Client<ClientSim>, c09: Client<ClientSimV09>, step: Step): Promise<void> {
  switch (step.kind) {
    case 'turn':
      await r.service.runTurn(r.cid, step.text);
      return;
    case 'submit': {
      const message = step.via === '0.8' ? userMessage08(c08.sim.state(), step) : userMessage09(c09.sim.state(), step);
      if (message !== undefined) expect([200, 400, 403, 409, 422]).toContain(await post(r, message));
      return;
    }
    case 'stale': {
      const empty = { texts: [], checks: [], button: step.button };
      const message = step.via === '0.8'
        ? c08.previous && userMessage08(c08.previous.state(), empty)
        : c09.previous && userMessage09(c09.previous.state(), empty);
      if (message !== undefined) expect([200, 403, 409, 422]).toContain(await post(r, message));
      return;
    }
    case 'reset': {
      const surface = (await r.service.get(r.cid))!.ir.surfaces.find((s) => s.lifecycle !== 'deleted');
      if (surface !== undefined) await r.service.resetSurfaceEpoch(r.cid, surface.id, { reason: 'test' });
      return;
    }
    case 'report': {
      const surfaceId = [...(step.via === '0.8' ? c08.sim.surfaces() : c09.sim.surfaces()).keys()][0];
      if (surfaceId === undefined) return;
      const error = { code: 'VALIDATION_FAILED', surfaceId, path: '/components/0', message: 'refused' };
      expect([202, 409]).toContain(await post(r, step.via === '0.8' ? { error } : { version: 'v0.9', error }));
      return;
    }
    case 'reconnect': {
      const c = step.via === '0.8' ? c08 : c09;
      c.close();
      if (step.dropChannel) r.host.wire(c.version).hub.forget(r.cid);
      await c.connect(c.lastEventId);
      count(`reconnect ${c.version}${step.dropChannel ? ' after the channel was dropped' : ''}`);
      return;
    }
  }
}

describe('v0.8 and v0.9 clients of one conversation stay equivalent', () => {
  it('through random turns, submits from either client, stale submits, resets, error reports and reconnects', async () => {
    let runs = 0;
    await fc.assert(fc.asyncProperty(fc.string({ minLength: 1, maxLength: 8 }), fc.array(arbStep, { minLength: 1, maxLength: 8 }), async (seed, steps) => {
      const r = await rig(seed);
      const c08 = client(r, '0.8', () => createClientSim());
      const c09 = client(r, '0.9', () => createClientSimV09());
      try {
        await r.service.runTurn(r.cid, 'create a character card');
        await c08.connect();
        await c09.connect();
        let before = { v08: c08.sim.state(), v09: c09.sim.state() };
        for (const step of [{ kind: 'turn', text: 'hello' } as Step, ...steps]) {
          c08.previous = createClientSim({ state: before.v08 });
          c09.previous = createClientSimV09({ state: before.v09 });
          before = { v08: c08.sim.state(), v09: c09.sim.state() };
          await run(r, c08, c09, step);
          await caughtUp(r, c08);
          await caughtUp(r, c09);
          expect(refusedBy(c08), JSON.stringify(step)).toEqual([]);
          expect(refusedBy(c09), JSON.stringify(step)).toEqual([]);
          const v09 = wireState09(c09.sim);
          expect(comparable08(wireState08(c08.sim), v09), JSON.stringify(step)).toEqual(v09);
        }
        runs += 1;
      } finally {
        c08.close();
        c09.close();
        r.host.close();
      }
    }), {
      numRuns: 100,
      // Each kind of step at least once, whatever the draws: per client, a fresh conversation, a
      // submit of the card, the same panel sent again from before it (stale), an error report.
      // One text every field of the card takes (its link field included), in whatever order.
      examples: (['0.8', '0.9'] as const).map((via) => [`fixed ${via}`, [
        { kind: 'submit', via, texts: Array.from({ length: 6 }, () => 'https://example.com/a'), checks: [], button: 0 },
        { kind: 'stale', via, button: 0 },
        { kind: 'report', via },
      ]] as [string, Step[]]),
    });
    expect(runs).toBe(100);
    // Accepted submits from either client, stale ones refused, reports and resets all happened.
    for (const what of ['userAction v0.8 200', 'action v0.9 200', 'userAction v0.8 409', 'action v0.9 409', 'error v0.8 202', 'error v0.9 202']) {
      expect(seen.get(what) ?? 0, `${what} (seen: ${JSON.stringify([...seen])})`).toBeGreaterThan(0);
    }
  }, 240_000);
});
