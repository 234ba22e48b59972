import { performance } from 'node:perf_hooks';
import { Role, type Message, type Task } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import { BASIC_CATALOG_ID } from '../src/a2ui-v0_9-protocol/index.ts';
import { createClientSimV09, type ClientSimV09 } from '../src/clientsim/index.ts';
import { A2UI_MIME_LEGACY } from '../src/host-a2a/index.ts';
import { AGENT_BENCH_TOKEN, startAgentServer, type AgentBenchServer } from './_agent-server.ts';
import { HttpClient } from '../test/support/http-client.ts';
import { openSse, type SseConnection } from '../test/support/sse-client.ts';

/**
 * The same turn and the same action over A2A (the official @a2a-js/sdk client, `message/send`,
 * v0.9 capabilities) and over the native A2UI path (the turn posted by the htmx page, the action
 * POSTed to `/a2ui/c/{cid}/events`, both read back from the `?v=0.9` stream), against one
 * server (createSurfacer, demo app, offline planner, memory store), interleaved round by round so
 * both see the same machine: first with the server in the bench's process, then in a process of
 * its own (bench/_agent-server.ts), the clients in the bench's, as every real client is.
 *
 * Timed: from sending the request until the client holds the resulting UI — the A2A answer
 * (it carries the UI), or the POST's answer and the stream's events up to the hub's checkpoint
 * (the clock stops when that event arrived; asking for the checkpoint is not timed).
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

/** Types into the character card and clicks its Save: the card is on `main`, or beside a panel that already asks something (`main-2`, …). */
function submit(sim: ClientSimV09, name: string): unknown {
  const surface = [...sim.state().surfaces.keys()].findLast((id) => /^main(-\d+)?--/.test(id) && sim.input(id, `${id.split('--')[0]}.f-name.TextField`, name).length === 0);
  if (surface === undefined) throw new Error(`no surface shows the character card: ${[...sim.state().surfaces.keys()].join(', ')}`);
  const panel = surface.split('--')[0]!;
  for (const [field, value] of Object.entries({ personality: 'Brave and kind.', tags: 'brave' })) {
    const problems = sim.input(surface, `${panel}.f-${field}.TextField`, value);
    if (problems.length > 0) throw new Error(`input ${field}: ${problems[0]!.code}`);
  }
  const click = sim.click(surface, `${panel}.a0-form_submit.Button`);
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

interface Times { a2aTurn: number[]; a2aAction: number[]; nativeTurn: number[]; nativeAction: number[]; a2aBytes: number; a2aReinits: number }

async function measure(server: AgentBenchServer): Promise<Times> {
  // A2A: one client, one conversation, with the deployment's API token (as a real agent client).
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('Authorization', `Bearer ${AGENT_BENCH_TOKEN}`);
    return fetch(input, { ...init, headers });
  };
  const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [new JsonRpcTransportFactory({ fetchImpl })], cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
  }));
  const a2a = await factory.createFromUrl(server.url);
  const a2aSim = createClientSimV09();
  const opened = await sendTask(a2a, message([{ content: { $case: 'text', value: 'hello' }, mediaType: 'text/plain', filename: '', metadata: undefined }]));
  const a2aCid = opened.contextId;

  // Native: an htmx session owns the conversation; the A2UI client follows its v0.9 stream.
  const browser = new HttpClient(server.url);
  const base = (await browser.get('/')).headers.get('location')!;
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await (await browser.get(base)).text())![1]!;
  const cid = base.slice(3);
  const token = await server.a2uiToken(cid);
  const stream: SseConnection = await openSse(`${server.url}/a2ui/c/${cid}/stream?v=0.9`, { headers: { Authorization: `Bearer ${token}` } });
  const nativeSim = createClientSimV09();
  let seen = 0;
  // When the stream delivered everything up to the hub's checkpoint (the renderer then applies
  // it, untimed, as the A2A answer's messages are applied after its clock stops).
  const caughtUp = async (): Promise<number> => {
    const id = await server.checkpoint(cid);
    for (;;) {
      const at = stream.events.findLastIndex((e) => e.lastEventId === id);
      if (at >= 0) return stream.arrivals[at]!;
      // A checkpoint no event carries (a conversation with nothing published yet): nothing to wait for.
      if (stream.parser.lastEventId === id) return 0;
      await new Promise((r) => setImmediate(r));
    }
  };
  const apply = (): void => {
    feed(nativeSim, stream.events.slice(seen).map((e) => JSON.parse(e.data) as unknown));
    seen = stream.events.length;
  };
  await caughtUp();
  apply();

  const times: Times = { a2aTurn: [], a2aAction: [], nativeTurn: [], nativeAction: [], a2aBytes: 0, a2aReinits: 0 };
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
      times.a2aBytes += JSON.stringify(a2uiOf(applied)).length;
      if (JSON.stringify(a2uiOf(applied)).includes('"createSurface"')) times.a2aReinits += 1;
    }

    // Native turn (htmx), then the submit from the A2UI client.
    t0 = performance.now();
    const posted = await browser.post(`${base}/messages`, { _csrf: csrf, text: TURN }, { as: 'json' });
    if (posted.status !== 200) throw new Error(`native turn ${posted.status}`);
    await posted.arrayBuffer();
    t1 = Math.max(performance.now(), await caughtUp());
    apply();
    if (keep) times.nativeTurn.push(t1 - t0);
    const body = JSON.stringify(submit(nativeSim, `N${round}`));
    t0 = performance.now();
    const res = await fetch(`${server.url}/a2ui/c/${cid}/events`, { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body });
    if (res.status !== 200) throw new Error(`native action ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
    t1 = performance.now();
    t1 = Math.max(t1, await caughtUp());
    apply();
    if (keep) times.nativeAction.push(t1 - t0);
  }
  stream.close();
  return times;
}

export async function run(): Promise<void> {
  const row = (label: string, a2a: number[], native: number[]): string => {
    const [a50, a99, n50, n99] = [quantile(a2a, 0.5), quantile(a2a, 0.99), quantile(native, 0.5), quantile(native, 0.99)];
    return `| ${label} | ${n50.toFixed(2)} | ${n99.toFixed(2)} | ${a50.toFixed(2)} | ${a99.toFixed(2)} | ${(a50 / n50).toFixed(2)}× | ${(a99 / n99).toFixed(2)}× |`;
  };
  console.log(`${ROUNDS} rounds (after ${WARMUP} warm-up), node ${process.version}`);
  console.log('| server | step | native p50 ms | native p99 ms | A2A p50 ms | A2A p99 ms | p50 ratio | p99 ratio |');
  console.log('|---|---|---:|---:|---:|---:|---:|---:|');
  const notes: string[] = [];
  for (const where of ['in-process', 'own process'] as const) {
    const server = await startAgentServer(where);
    try {
      const times = await measure(server);
      console.log(`| ${where} ${row('turn (create a character card)', times.a2aTurn, times.nativeTurn)}`);
      console.log(`| ${where} ${row('action (form submit)', times.a2aAction, times.nativeAction)}`);
      notes.push(`${where}: the A2A answer to the submit carries ${Math.round(times.a2aBytes / ROUNDS)} bytes of A2UI on average; ${times.a2aReinits} of ${ROUNDS} re-initialised the surface (the rest: the update since the rev the action was sent from).`);
    } finally {
      await server.close();
    }
  }
  for (const n of notes) console.log(n);
}
