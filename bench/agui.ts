import { randomUUID } from 'node:crypto';
import { createClientSimV09 } from '../src/clientsim/index.ts';
import { AGENT_BENCH_TOKEN, startAgentServer, type AgentBenchServer } from './_agent-server.ts';

/**
 * AG-UI vs the native A2UI v0.9 path, the same work on both (issue 19's goal: AG-UI ≤ 1.2× native).
 *
 * - Turn ("create a character card" on an empty conversation): native = the htmx message POST
 *   timed until the conversation's open v0.9 stream (`GET /a2ui/c/{cid}/stream?v=0.9`) has the
 *   card; AG-UI = one `POST /ag-ui` run with that user message, timed until its stream has ended
 *   (RUN_FINISHED, after the card's ACTIVITY_SNAPSHOT).
 * - Action (form.submit of the card with a unique name, as ClientSim v0.9 clicks it): native =
 *   `POST /a2ui/c/{cid}/events` timed until the open stream has the name; AG-UI = one run with
 *   forwardedProps.a2uiAction, timed until RUN_FINISHED.
 *
 * Offline planner, in-memory log, samples of the two paths interleaved; first with the server in
 * the bench's process (server and clients share it alike), then in a process of its own
 * (bench/_agent-server.ts), the clients in the bench's, as every real client is. Untimed: creating conversations, opening streams, building the
 * action from the current snapshot. BENCH_AGUI_ROUNDS (default 200) samples per path and kind.
 */
const ROUNDS = Number(process.env.BENCH_AGUI_ROUNDS ?? 200);
const TOKEN = AGENT_BENCH_TOKEN;
const SAVE = 'main.a0-form_submit.Button';

function pct(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** A stream's text as it arrives; `until(marker)` resolves once it holds `marker` after the last `mark()`. */
class StreamText {
  private text = '';
  private waiter: { marker: string; resolve: () => void } | undefined;
  private readonly abort = new AbortController();
  private constructor() {}

  static async open(url: string, headers: Record<string, string>): Promise<StreamText> {
    const s = new StreamText();
    const response = await fetch(url, { headers, signal: s.abort.signal });
    if (response.status !== 200 || response.body === null) throw new Error(`stream answered ${response.status}`);
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    void (async () => {
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          s.text += value;
          if (s.waiter && s.text.includes(s.waiter.marker)) {
            const w = s.waiter;
            s.waiter = undefined;
            w.resolve();
          }
        }
      } catch {
        // closed by close()
      }
    })();
    return s;
  }

  mark(): void { this.text = ''; }

  until(marker: string, timeoutMs = 10_000): Promise<void> {
    if (this.text.includes(marker)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`stream did not show ${marker}`)), timeoutMs);
      this.waiter = { marker, resolve: () => { clearTimeout(timer); resolve(); } };
    });
  }

  close(): void { this.abort.abort(); }
}

type Samples = { nativeTurn: number[]; aguiTurn: number[]; nativeAction: number[]; aguiAction: number[] };

async function measure(server: AgentBenchServer): Promise<Samples> {
  const base = server.url;
  const agui = async (body: unknown): Promise<string> => {
    const response = await fetch(`${base}/ag-ui`, {
      method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream', Authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    if (response.status !== 200 || !text.includes('"RUN_FINISHED"')) throw new Error(`AG-UI run failed: ${response.status} ${text.slice(-300)}`);
    return text;
  };

  // One browser session for the native side (GET / makes a conversation per call).
  const first = await fetch(`${base}/`, { redirect: 'manual' });
  const cookie = first.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  async function nativeConversation(): Promise<{ cid: string; csrf: string; stream: StreamText }> {
    const created = await fetch(`${base}/`, { redirect: 'manual', headers: { cookie } });
    const path = created.headers.get('location')!;
    const page = await (await fetch(`${base}${path}`, { headers: { cookie } })).text();
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page)![1]!;
    const cid = path.slice(3);
    const token = await server.a2uiToken(cid);
    const stream = await StreamText.open(`${base}/a2ui/c/${cid}/stream?v=0.9`, { Authorization: `Bearer ${token}`, Accept: 'text/event-stream' });
    return { cid, csrf, stream };
  }
  async function nativeTurn(c: { cid: string; csrf: string; stream: StreamText }): Promise<number> {
    c.stream.mark();
    const t0 = performance.now();
    const response = await fetch(`${base}/c/${c.cid}/messages`, {
      method: 'POST', headers: { cookie, origin: base, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({ _csrf: c.csrf, text: 'create a character card' }),
    });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`native turn answered ${response.status}`);
    await c.stream.until('Character card');
    return performance.now() - t0;
  }
  async function aguiTurn(): Promise<{ ms: number; threadId: string }> {
    const threadId = randomUUID();
    await agui({ threadId, runId: randomUUID(), messages: [] });
    const t0 = performance.now();
    const text = await agui({ threadId, runId: randomUUID(), messages: [{ id: randomUUID(), role: 'user', content: 'create a character card' }] });
    const ms = performance.now() - t0;
    if (!text.includes('Character card')) throw new Error('AG-UI turn sent no card');
    return { ms, threadId };
  }
  /** The Save click of the card as it is now, with `name` typed in (ClientSim v0.9 over the v0.9 snapshot). */
  async function saveAction(cid: string, name: string): Promise<{ version: string; action: Record<string, unknown> }> {
    const token = await server.a2uiToken(cid);
    const lines = (await (await fetch(`${base}/a2ui/c/${cid}/snapshot.jsonl?v=0.9`, { headers: { Authorization: `Bearer ${token}` } })).text()).split('\n').filter((l) => l !== '');
    const sim = createClientSimV09();
    sim.applyAll(lines.map((l) => JSON.parse(l) as unknown));
    sim.input('main--e0', 'main.f-name.TextField', name);
    sim.input('main--e0', 'main.f-personality.TextField', 'Brave.');
    const click = sim.click('main--e0', SAVE);
    if (!click.ok) throw new Error(`click failed: ${JSON.stringify(click)}`);
    return JSON.parse(JSON.stringify(click.message)) as { version: string; action: Record<string, unknown> };
  }

  const samples = { nativeTurn: [] as number[], aguiTurn: [] as number[], nativeAction: [] as number[], aguiAction: [] as number[] };
  // Warm-up (JIT, first compiles), not counted.
  for (let i = 0; i < 20; i += 1) {
    const c = await nativeConversation();
    await nativeTurn(c);
    c.stream.close();
    await aguiTurn();
  }
  for (let i = 0; i < ROUNDS; i += 1) {
    const c = await nativeConversation();
    samples.nativeTurn.push(await nativeTurn(c));
    c.stream.close();
    samples.aguiTurn.push((await aguiTurn()).ms);
  }

  const native = await nativeConversation();
  await nativeTurn(native);
  const nativeToken = await server.a2uiToken(native.cid);
  const { threadId } = await aguiTurn();
  for (let i = 0; i < ROUNDS + 20; i += 1) {
    const marker = `Bench${i}x${randomUUID().slice(0, 8)}`;
    const message = await saveAction(native.cid, marker);
    native.stream.mark();
    let t0 = performance.now();
    const posted = await fetch(`${base}/a2ui/c/${native.cid}/events`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${nativeToken}`, 'idempotency-key': randomUUID() }, body: JSON.stringify(message),
    });
    await posted.arrayBuffer();
    if (posted.status !== 200) throw new Error(`native action answered ${posted.status}`);
    await native.stream.until(marker);
    if (i >= 20) samples.nativeAction.push(performance.now() - t0);

    const aguiMessage = await saveAction(threadId, marker);
    t0 = performance.now();
    const text = await agui({ threadId, runId: randomUUID(), messages: [], forwardedProps: { a2uiAction: { userAction: aguiMessage.action } } });
    if (i >= 20) samples.aguiAction.push(performance.now() - t0);
    if (!text.includes(marker)) throw new Error('AG-UI action run did not show the saved name');
  }
  native.stream.close();
  return samples;
}

export async function run(): Promise<void> {
  const row = (where: string, label: string, ours: number[], theirs: number[]): string => {
    const [p50, p99, n50, n99] = [pct(ours, 50), pct(ours, 99), pct(theirs, 50), pct(theirs, 99)];
    return `| ${where} | ${label} | ${n50.toFixed(2)} | ${n99.toFixed(2)} | ${p50.toFixed(2)} | ${p99.toFixed(2)} | ${(p50 / n50).toFixed(2)}× | ${(p99 / n99).toFixed(2)}× |`;
  };
  const rows: string[] = [];
  for (const where of ['in-process', 'own process'] as const) {
    const server = await startAgentServer(where);
    try {
      const samples = await measure(server);
      rows.push(row(where, 'turn (create a character card)', samples.aguiTurn, samples.nativeTurn), row(where, 'action (form.submit)', samples.aguiAction, samples.nativeAction));
    } finally {
      await server.close();
    }
  }
  process.stdout.write([
    `AG-UI vs native A2UI v0.9 (${ROUNDS} samples each, ms; offline planner, in-memory log; node ${process.version})`,
    '',
    '| server | work | native p50 | native p99 | AG-UI p50 | AG-UI p99 | p50 ratio | p99 ratio |',
    '|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    'Goal: AG-UI ≤ 1.2× native.',
    '',
  ].join('\n'));
}
