import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServe } from '../src/cli/commands/serve.ts';
import { silentLogger } from '../src/conversation/index.ts';
import { startFakeOllama } from '../test/support/fake-ollama.ts';
import { piecesOf } from '../test/support/fake-stream.ts';
import { HttpClient } from '../test/support/http-client.ts';
import { openSse, type SseConnection } from '../test/support/sse-client.ts';

/**
 * Progressive answers (docs/streaming.md): a fake Ollama streams a fixed answer (assistant text,
 * then three forms on three surfaces) at 30 tokens/s (4 characters a token: one NDJSON part of
 * 4 characters every 33 ms) to `surfacer serve` (the real `ollama` client, the JSONL log,
 * fsync off) with an htmx page and an A2UI v0.8 client following the conversation over SSE.
 *
 * Reported: from the moment the part holding a directive's closing brace left the model to the
 * moment its surface reached the htmx page's event stream and the A2UI client's stream (p50 /
 * p99 over directives × rounds; goal p99 ≤ 30 ms); from the first token of the assistant's text
 * to its first preview on the page (goal ≤ 30 ms); and, for the same answer unstreamed
 * (SURFACER_STREAM=off), the time until the first form shows: the whole generation.
 * BENCH_STREAM_ROUNDS sets the rounds (default 12).
 */
const ROUNDS = Number(process.env.BENCH_STREAM_ROUNDS ?? 12);
const PACE_MS = 1000 / 30;
const NAMES = ['Alpha', 'Beta', 'Gamma'];
const ANSWER = JSON.stringify({
  assistant_text: 'Here are three forms to fill in: your persona, a character card and the scene settings.',
  directives: [
    { type: 'ui.show_form', payload: { template: 'persona', values: { display_name: NAMES[0] } } },
    { type: 'ui.show_form', payload: { template: 'character_card', surface: 'card', values: { name: NAMES[1] } } },
    { type: 'ui.show_form', payload: { template: 'scene_settings', surface: 'scene', values: { setting: NAMES[2] } } },
  ],
});
const PIECES = piecesOf(ANSWER, 4);
/** The piece holding each directive's closing brace, and the first piece with a character of the text. */
const CLOSES = NAMES.map((name) => {
  const at = ANSWER.indexOf(name);
  const end = ANSWER.indexOf('}}}', at) + 3;
  return Math.floor((end - 1) / 4);
});
const FIRST_TEXT = Math.floor(ANSWER.indexOf('Here') / 4);

function pct(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}
const ms = (n: number): string => `${n.toFixed(1)} ms`;

/** Times at which each name first appears in a stream's events (and, for the page, the first preview). */
function watch(conn: SseConnection, until: number): { seen: Map<string, number>; preview: number[]; done: Promise<void> } {
  const seen = new Map<string, number>();
  const preview: number[] = [];
  const done = (async () => {
    while (seen.size < NAMES.length) {
      const event = await conn.next(Math.max(1000, until - performance.now()));
      const at = performance.now();
      if (event.data.includes('beforeend:#assistant-preview')) preview.push(at);
      for (const name of NAMES) if (!seen.has(name) && event.data.includes(name)) seen.set(name, at);
    }
  })();
  return { seen, preview, done };
}

async function oneServer(stream: 'auto' | 'off', rounds: number): Promise<{ htmx: number[]; a2ui: number[]; firstText: number[]; firstForm: number[] }> {
  const sentAt: number[] = [];
  // Unstreamed, the model answers whole once it has generated everything: after the same time.
  const fake = await startFakeOllama((body) => (body.stream === true
    ? { kind: 'stream', pieces: PIECES, paceMs: PACE_MS, onPiece: (i, at) => { sentAt[i] = at; } }
    : { kind: 'slow', delayMs: PIECES.length * PACE_MS, content: ANSWER }));
  const dataDir = mkdtempSync(join(tmpdir(), 'surfacer-bench-stream-'));
  const server = await startServe({
    port: 0, hostname: '127.0.0.1', planner: 'ollama', dataDir, logger: silentLogger, fsync: false,
    env: {
      SURFACER_SESSION_SECRET: 'a-long-enough-secret-for-the-bench', OLLAMA_HOST: fake.host, SURFACER_OLLAMA_MODEL: 'm',
      SURFACER_TOOL_MAX_STEPS: '0', SURFACER_STREAM: stream,
    },
  });
  const out = { htmx: [] as number[], a2ui: [] as number[], firstText: [] as number[], firstForm: [] as number[] };
  try {
    for (let round = 0; round < rounds; round++) {
      const client = new HttpClient(server.url);
      const first = await client.get('/');
      const base = first.headers.get('location')!;
      const page = await client.get(base);
      const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())![1]!;
      const cid = base.slice(3);
      const token = (await server.conversations.get(cid))!.a2uiToken;
      const htmx = await openSse(`${server.url}${base}/events?page=benchpage`, { headers: { cookie: client.cookieHeader() } });
      const a2ui = await openSse(`${server.url}/a2ui/c/${cid}/stream`, { headers: { Authorization: `Bearer ${token}` } });
      sentAt.length = 0;
      const until = performance.now() + 30_000;
      const onPage = watch(htmx, until);
      const onA2ui = watch(a2ui, until);
      const asked = performance.now();
      // Another page's message: every change reaches this page over its stream, streamed or not.
      const response = client.post(`${base}/messages`, { _csrf: csrf, text: 'three forms please' }, { as: 'htmx', headers: { 'X-Surfacer-Page': 'otherpage' } });
      await Promise.all([onPage.done, onA2ui.done, response]);
      htmx.close();
      a2ui.close();
      if (stream === 'off') {
        out.firstForm.push(Math.min(...onPage.seen.values()) - asked);
        continue;
      }
      NAMES.forEach((name, i) => {
        out.htmx.push(onPage.seen.get(name)! - sentAt[CLOSES[i]!]!);
        out.a2ui.push(onA2ui.seen.get(name)! - sentAt[CLOSES[i]!]!);
      });
      if (onPage.preview[0] !== undefined) out.firstText.push(onPage.preview[0] - sentAt[FIRST_TEXT]!);
      out.firstForm.push(Math.min(...onPage.seen.values()) - asked);
    }
  } finally {
    await server.close();
    await fake.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return out;
}

export async function run(): Promise<void> {
  const streamed = await oneServer('auto', ROUNDS);
  const whole = await oneServer('off', Math.max(3, Math.floor(ROUNDS / 4)));
  const generation = PIECES.length * PACE_MS;
  process.stdout.write(`answer: ${ANSWER.length} characters, ${PIECES.length} parts at 30 tokens/s (generation ≈ ${ms(generation)}); ${ROUNDS} rounds\n\n`);
  process.stdout.write('| measure | p50 | p99 | goal |\n| --- | --- | --- | --- |\n');
  process.stdout.write(`| directive's last byte → surface on the htmx page | ${ms(pct(streamed.htmx, 50))} | ${ms(pct(streamed.htmx, 99))} | p99 ≤ 30 ms |\n`);
  process.stdout.write(`| directive's last byte → surface on the A2UI v0.8 client | ${ms(pct(streamed.a2ui, 50))} | ${ms(pct(streamed.a2ui, 99))} | p99 ≤ 30 ms |\n`);
  process.stdout.write(`| first token of the text → first words on the htmx page | ${ms(pct(streamed.firstText, 50))} | ${ms(pct(streamed.firstText, 99))} | ≤ 30 ms |\n`);
  process.stdout.write(`| message sent → first form on the page, streamed | ${ms(pct(streamed.firstForm, 50))} | ${ms(pct(streamed.firstForm, 99))} | |\n`);
  process.stdout.write(`| message sent → first form on the page, unstreamed (SURFACER_STREAM=off) | ${ms(pct(whole.firstForm, 50))} | ${ms(pct(whole.firstForm, 99))} | |\n`);
}
