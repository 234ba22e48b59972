import { performance } from 'node:perf_hooks';
import { Role, type Message, type Task } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import { BASIC_CATALOG_ID } from '../src/a2ui-v0_9-protocol/index.ts';
import { createDemoApp } from '../src/app/index.ts';
import { createClientSimV09, type ClientSimV09 } from '../src/clientsim/index.ts';
import { silentLogger } from '../src/conversation/index.ts';
import { A2UI_MIME_LEGACY } from '../src/host-a2a/index.ts';
import { createSurfacer } from '../src/server/index.ts';
import { HttpClient } from '../test/support/http-client.ts';
import { openSse, type SseConnection } from '../test/support/sse-client.ts';

/**
 * The same turn and the same action over A2A (the official @a2a-js/sdk client, `message/send`,
 * v0.9 capabilities) and over the native A2UI path (the turn posted by the htmx page, the action
 * POSTed to `/a2ui/c/{cid}/events`, both read back from the `?v=0.9` stream), against one
 * in-process server (createSurfacer, demo app, offline planner, memory store), interleaved round
 * by round so both see the same machine.
 *
 * Timed: from sending the request until the client holds the resulting UI — the A2A answer
 * (it carries the UI), or the POST's answer and the stream's events up to the hub's checkpoint.
 * A round is a turn ("create a character card": the form, new nonce) then its submit.
 * BENCH_A2A_ROUNDS (default 200) after 20 warm-up rounds.
 */
const ROUNDS = Number(process.env.BENCH_A2A_ROUNDS ?? 200);
const WARMUP = 20;
const CAPS = { a2uiClientCapabilities: { 'v0.9': { supportedCatalogIds: [BASIC_CATALOG_ID] } } };
const TURN = 'create a character card';

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

function submit(sim: ClientSimV09, name: string): unknown {
  const surface = [...sim.state().surfaces.keys()].find((id) => id.startsWith('main--'));
  if (surface === undefined) throw new Error('no main surface');
  for (const [field, value] of Object.entries({ name, personality: 'Brave and kind.', tags: 'brave' })) {
    const problems = sim.input(surface, `main.f-${field}.TextField`, value);
    if (problems.length > 0) throw new Error(`input ${field}: ${problems[0]!.code}`);
  }
  const click = sim.click(surface, 'main.a0-form_submit.Button');
  if (!click.ok) throw new Error(`click: ${click.violation.code}`);
  return click.message;
}

function feed(sim: ClientSimV09, messages: readonly unknown[]): void {
  const errors = sim.applyAll(messages).filter((v) => v.severity === 'error');
  if (errors.length > 0) throw new Error(`ClientSim refused: ${errors[0]!.code} ${errors[0]!.detail}`);
}

function message(parts: Message['parts'], contextId = ''): Message {
  return { messageId: crypto.randomUUID(), contextId, taskId: '', role: Role.ROLE_USER, parts, metadata: CAPS, extensions: [], referenceTaskIds: [] };
}

function a2uiOf(task: Task): unknown[] {
  return (task.status?.message?.parts ?? []).flatMap((p) => (p.content?.$case === 'data' && p.metadata?.mimeType === A2UI_MIME_LEGACY ? (p.content.value as unknown[]) : []));
}

async function sendTask(client: Client, m: Message): Promise<Task> {
  const result = await client.sendMessage({ tenant: '', message: m, configuration: undefined, metadata: undefined });
  if (!('status' in result) || result.status?.state !== 3) throw new Error(`A2A task did not complete: ${JSON.stringify(result).slice(0, 300)}`);
  return result;
}

export async function run(): Promise<void> {
  const surfacer = createSurfacer({ app: createDemoApp(), logger: silentLogger, sessionSecret: 'bench-a2a-session-secret-0123' });
  const server = await surfacer.listen({ port: 0 });
  try {
    // A2A: one client, one conversation.
    const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory()], cardResolver: new DefaultAgentCardResolver(),
    }));
    const a2a = await factory.createFromUrl(server.url);
    const a2aSim = createClientSimV09();
    const opened = await sendTask(a2a, message([{ content: { $case: 'text', value: 'hello' }, mediaType: 'text/plain', filename: '', metadata: undefined }]));
    const a2aCid = opened.contextId;
    let a2aBytes = 0;

    // Native: an htmx session owns the conversation; the A2UI client follows its v0.9 stream.
    const browser = new HttpClient(server.url);
    const base = (await browser.get('/')).headers.get('location')!;
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await (await browser.get(base)).text())![1]!;
    const cid = base.slice(3);
    const token = (await surfacer.conversations.get(cid))!.a2uiToken;
    const hub = surfacer.a2ui.wire('0.9').hub;
    const stream: SseConnection = await openSse(`${server.url}/a2ui/c/${cid}/stream?v=0.9`, { headers: { Authorization: `Bearer ${token}` } });
    const nativeSim = createClientSimV09();
    let seen = 0;
    // The stream has delivered everything up to the hub's checkpoint (timed), then the renderer
    // applies it (not timed, as the A2A answer's messages are applied after its clock stops).
    const caughtUp = async (): Promise<void> => {
      const id = hub.checkpoint(cid).id;
      while (stream.parser.lastEventId !== id) await new Promise((r) => setImmediate(r));
    };
    const apply = (): void => {
      feed(nativeSim, stream.events.slice(seen).map((e) => JSON.parse(e.data) as unknown));
      seen = stream.events.length;
    };
    await caughtUp();
    apply();

    const times = { a2aTurn: [] as number[], a2aAction: [] as number[], nativeTurn: [] as number[], nativeAction: [] as number[] };
    for (let round = 0; round < WARMUP + ROUNDS; round += 1) {
      const keep = round >= WARMUP;
      // A2A turn, then its submit.
      let t0 = performance.now();
      const turn = await sendTask(a2a, message([{ content: { $case: 'text', value: TURN }, mediaType: 'text/plain', filename: '', metadata: undefined }], a2aCid));
      let t1 = performance.now();
      feed(a2aSim, a2uiOf(turn));
      if (keep) times.a2aTurn.push(t1 - t0);
      const action = submit(a2aSim, `A${round}`);
      t0 = performance.now();
      const applied = await sendTask(a2a, message([{ content: { $case: 'data', value: [action] }, mediaType: A2UI_MIME_LEGACY, filename: '', metadata: { mimeType: A2UI_MIME_LEGACY } }], a2aCid));
      t1 = performance.now();
      feed(a2aSim, a2uiOf(applied));
      if (keep) {
        times.a2aAction.push(t1 - t0);
        a2aBytes += JSON.stringify(a2uiOf(applied)).length;
      }

      // Native turn (htmx), then the submit from the A2UI client.
      t0 = performance.now();
      const posted = await browser.post(`${base}/messages`, { _csrf: csrf, text: TURN }, { as: 'json' });
      if (posted.status !== 200) throw new Error(`native turn ${posted.status}`);
      await posted.arrayBuffer();
      await caughtUp();
      t1 = performance.now();
      apply();
      if (keep) times.nativeTurn.push(t1 - t0);
      const body = JSON.stringify(submit(nativeSim, `N${round}`));
      t0 = performance.now();
      const res = await fetch(`${server.url}/a2ui/c/${cid}/events`, { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body });
      if (res.status !== 200) throw new Error(`native action ${res.status}: ${await res.text()}`);
      await res.arrayBuffer();
      await caughtUp();
      t1 = performance.now();
      apply();
      if (keep) times.nativeAction.push(t1 - t0);
    }
    stream.close();

    const row = (label: string, a2a: number[], native: number[]): string => {
      const [a50, a99, n50, n99] = [quantile(a2a, 0.5), quantile(a2a, 0.99), quantile(native, 0.5), quantile(native, 0.99)];
      return `| ${label} | ${n50.toFixed(2)} | ${n99.toFixed(2)} | ${a50.toFixed(2)} | ${a99.toFixed(2)} | ${(a50 / n50).toFixed(2)}× | ${(a99 / n99).toFixed(2)}× |`;
    };
    console.log(`${ROUNDS} rounds (after ${WARMUP} warm-up), one process, node ${process.version}`);
    console.log('| step | native p50 ms | native p99 ms | A2A p50 ms | A2A p99 ms | p50 ratio | p99 ratio |');
    console.log('|---|---:|---:|---:|---:|---:|---:|');
    console.log(row('turn (create a character card)', times.a2aTurn, times.nativeTurn));
    console.log(row('action (form submit)', times.a2aAction, times.nativeAction));
    console.log(`A2A answer to the submit carries ${Math.round(a2aBytes / ROUNDS)} bytes of A2UI on average (a full re-initialisation).`);
  } finally {
    await server.close(1000);
  }
}
