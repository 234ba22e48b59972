import { afterEach, describe, expect, it } from 'vitest';
import { startServe, type ServeHandle } from '../../src/cli/commands/serve.ts';
import { silentLogger } from '../../src/conversation/index.ts';
import { startFakeOllama } from '../support/fake-ollama.ts';
import { piecesOf } from '../support/fake-stream.ts';
import { HttpClient } from '../support/http-client.ts';
import { jsonlTestFiles } from '../support/jsonl-stores.ts';
import { openSse } from '../support/sse-client.ts';
import { openConversation } from '../host-html/support/page.ts';

/**
 * `surfacer serve` with a streaming model (fake Ollama, NDJSON at a set pace, through the real
 * `ollama` client), over real HTTP: while the model still writes, the htmx page's event stream
 * gets the assistant's words piece by piece and then the form, and an A2UI v0.8 and a v0.9
 * client get the form's surface at the same moment — all before the model's last piece.
 */
const files = jsonlTestFiles('surfacer-stream-e2e-');
const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => { for (const c of cleanup.splice(0).reverse()) await c(); });

const FORM = { type: 'ui.show_form', payload: { template: 'persona', values: { display_name: 'Sam' } } };
const ANSWER = JSON.stringify({
  assistant_text: 'Here is your persona form, with your name filled in.',
  directives: [FORM, { type: 'ui.toast', payload: { level: 'info', text: 'Change anything you like, then save.' } }],
});

describe('a streamed answer over HTTP', () => {
  it('text grows on the htmx page, the form reaches the htmx page and both A2UI clients before the answer ends', async () => {
    const sentAt: number[] = [];
    const fake = await startFakeOllama([{ kind: 'stream', pieces: piecesOf(ANSWER, 6), paceMs: 20, onPiece: (_i, at) => sentAt.push(at) }]);
    cleanup.push(() => fake.close());
    const server: ServeHandle = await startServe({
      port: 0, hostname: '127.0.0.1', planner: 'ollama', dataDir: files.tempDir(), logger: silentLogger, fsync: false,
      env: { SURFACER_SESSION_SECRET: 'a-long-enough-secret-for-tests', OLLAMA_HOST: fake.host, SURFACER_OLLAMA_MODEL: 'm', SURFACER_TOOL_MAX_STEPS: '0' },
    });
    cleanup.push(() => server.close());
    const client = new HttpClient(server.url);
    const c = await openConversation(client);
    const token = (await server.conversations.get(c.cid))!.a2uiToken;
    const page = await openSse(`${server.url}${c.base}/events?page=p1`, { headers: { cookie: client.cookieHeader() } });
    const v08 = await openSse(`${server.url}/a2ui/c/${c.cid}/stream`, { headers: { Authorization: `Bearer ${token}` } });
    const v09 = await openSse(`${server.url}/a2ui/c/${c.cid}/stream?v=0.9`, { headers: { Authorization: `Bearer ${token}` } });
    cleanup.push(async () => { page.close(); v08.close(); v09.close(); });
    const seen = { previews: [] as number[], pageForm: 0, v08Form: 0, v09Form: 0 };
    const watch = async (conn: typeof page, test: (data: string) => boolean, onHit: (at: number) => void, count = 200): Promise<void> => {
      for (let i = 0; i < count; i++) {
        const event = await conn.next(10_000);
        if (test(event.data)) { onHit(performance.now()); return; }
      }
    };
    const pageWatch = (async () => {
      for (;;) {
        const event = await page.next(10_000);
        if (event.data.includes('beforeend:#assistant-preview')) seen.previews.push(performance.now());
        if (event.data.includes('id="surface-main"')) { seen.pageForm = performance.now(); return; }
      }
    })();
    const a2uiWatch = Promise.all([
      watch(v08, (d) => d.includes('"surfaceUpdate"') && d.includes('display_name'), (at) => { seen.v08Form = at; }),
      watch(v09, (d) => d.includes('"updateComponents"'), (at) => { seen.v09Form = at; }),
    ]);
    // The page posts its message as the browser does (X-Surfacer-Page: its changes are not sent back over
    // its stream, except the streamed parts: its own response comes only at the end).
    const response = await client.post(`${c.base}/messages`, { _csrf: c.csrf, text: 'set up my persona' }, { as: 'htmx', headers: { 'X-Surfacer-Page': 'p1' } });
    expect(response.status).toBe(200);
    await Promise.all([pageWatch, a2uiWatch]);
    const last = sentAt.at(-1)!;
    expect(seen.previews.length).toBeGreaterThan(1);
    expect(seen.previews[0]!).toBeLessThan(seen.pageForm);
    expect(seen.pageForm).toBeGreaterThan(0);
    expect(seen.pageForm).toBeLessThan(last);
    expect(seen.v08Form).toBeLessThan(last);
    expect(seen.v09Form).toBeLessThan(last);
    expect(seen.v08Form).toBeGreaterThan(0);
    // The response holds what came after the parts (nothing of the form again).
    expect(await response.text()).not.toContain('id="surface-main"');
  });
});

describe('the offline planner streams at a fixed pace when asked (SURFACER_OFFLINE_STREAM)', () => {
  it('the htmx page gets the words and then the form before the turn ends', async () => {
    const server: ServeHandle = await startServe({
      port: 0, hostname: '127.0.0.1', planner: 'offline', dataDir: files.tempDir(), logger: silentLogger, fsync: false,
      env: { SURFACER_SESSION_SECRET: 'a-long-enough-secret-for-tests', SURFACER_OFFLINE_STREAM: '8/10' },
    });
    cleanup.push(() => server.close());
    const client = new HttpClient(server.url);
    const c = await openConversation(client);
    const page = await openSse(`${server.url}${c.base}/events?page=p2`, { headers: { cookie: client.cookieHeader() } });
    cleanup.push(async () => { page.close(); });
    const previews: number[] = [];
    let form = 0;
    const watching = (async () => {
      for (;;) {
        const event = await page.next(10_000);
        if (event.data.includes('beforeend:#assistant-preview')) previews.push(performance.now());
        if (event.data.includes('id="surface-main"')) { form = performance.now(); return; }
      }
    })();
    const response = await client.post(`${c.base}/messages`, { _csrf: c.csrf, text: 'create a character card' }, { as: 'htmx', headers: { 'X-Surfacer-Page': 'p2' } });
    const answered = performance.now();
    expect(response.status).toBe(200);
    await watching;
    expect(previews.length).toBeGreaterThan(1);
    expect(form).toBeGreaterThan(previews[0]!);
    expect(form).toBeLessThan(answered);
    const conversation = (await server.conversations.get(c.cid))!;
    expect(conversation.ir.transcript.map((t) => t.role)).toEqual(['user', 'assistant']);
  });
});
