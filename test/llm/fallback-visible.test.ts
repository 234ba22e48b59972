import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type ServeHandle } from '../../src/cli/commands/serve.ts';
import type { Logger } from '../../src/conversation/index.ts';
import { startFakeOllama, type FakeOllama } from '../support/fake-ollama.ts';
import { jsonlTestFiles } from '../support/jsonl-stores.ts';
import { HttpClient } from '../support/http-client.ts';
import { openConversation, parse } from '../host-html/support/page.ts';

/*
 * Issue 33, item 3: the model's absence is visible. `surfacer serve` with SURFACER_PLANNER=ollama
 * and an Ollama that resets every connection: the offline planner answers, and the htmx page's
 * and the A2UI page's badge, `/readyz` and the log say so — the log once, not per turn; once
 * the model answers again, everything says that too.
 */
const files = jsonlTestFiles('surfacer-fallback-');
let fake: FakeOllama;
let up = false;
let server: ServeHandle;
const logged: Array<{ level: string; message: string }> = [];
const REPLY = JSON.stringify({ assistant_text: 'From the model.', directives: [] });

beforeAll(async () => {
  fake = await startFakeOllama(() => (up ? { kind: 'reply', content: REPLY } : { kind: 'reset' }));
  const logger: Logger = {
    info(message) { logged.push({ level: 'info', message }); },
    warn(message) { logged.push({ level: 'warn', message }); },
    error(message) { logged.push({ level: 'error', message }); },
  };
  server = await startServe({
    port: 0, hostname: '127.0.0.1', planner: 'ollama', dataDir: files.tempDir(), logger, fsync: false,
    env: {
      SURFACER_SESSION_SECRET: 'a-long-enough-secret-for-tests', OLLAMA_HOST: fake.host, SURFACER_OLLAMA_MODEL: 'llama3.2',
      SURFACER_LLM_MAX_RETRIES: '0', SURFACER_TOOL_MAX_STEPS: '0', SURFACER_STREAM: 'off',
    },
  });
});
afterAll(async () => {
  await server?.close();
  await fake?.close();
});

async function say(client: HttpClient, base: string, csrf: string, text: string): Promise<string> {
  const answer = await client.post(`${base}/messages`, { _csrf: csrf, text }, { as: 'json' });
  expect(answer.status).toBe(200);
  return ((await answer.json()) as { trace: { llm: { provider: string } } }).trace.llm.provider;
}

const warnings = (): string[] => logged.filter((l) => l.level === 'warn' && l.message.includes('cannot be reached')).map((l) => l.message);

describe('a model planner that cannot reach its model', () => {
  it('says so on the badges, in /readyz and once in the log while the offline planner answers, and says when the model is back', async () => {
    const client = new HttpClient(server.url);
    const c = await openConversation(client);
    const readyz = async () => (await (await fetch(`${server.url}/readyz`)).json()) as { planner: { label: string; fallback?: { code: string; answeredBy: string } } };
    // Before any turn nothing is known: the configured model's badge.
    expect(parse(await (await client.get(c.base)).text())('.badge').text()).toBe('ollama · llama3.2');

    expect(await say(client, c.base, c.csrf, 'create a character card')).toBe('offline');
    expect(await say(client, c.base, c.csrf, 'thanks')).toBe('offline');
    expect(warnings()).toEqual(['ollama · llama3.2 cannot be reached: Offline planner (no language model connected) answers until it is back']);
    const badge = parse(await (await client.get(c.base)).text())('.badge');
    expect(badge.text()).toBe('ollama · llama3.2 unreachable · offline planner');
    expect(badge.hasClass('badge--offline')).toBe(true);
    expect(badge.attr('title')).toMatch(/ollama · llama3\.2 has not answered since .+ \(LLM_UNAVAILABLE\); Offline planner \(no language model connected\) answers meanwhile/);
    const a2uiPage = await (await client.get(`/a2ui${c.base}`)).text();
    expect(parse(a2uiPage)('.a2ui-badge').text()).toContain('unreachable');
    expect(await readyz()).toMatchObject({ planner: { label: 'ollama · llama3.2', fallback: { code: 'LLM_UNAVAILABLE' } } });

    up = true;
    expect(await say(client, c.base, c.csrf, 'hello again')).toBe('ollama');
    expect(logged.filter((l) => l.level === 'info' && l.message === 'ollama · llama3.2 answers again')).toHaveLength(1);
    expect(parse(await (await client.get(c.base)).text())('.badge').text()).toBe('ollama · llama3.2');
    expect((await readyz()).planner.fallback).toBeUndefined();
    expect(warnings()).toHaveLength(1);
  });
});
