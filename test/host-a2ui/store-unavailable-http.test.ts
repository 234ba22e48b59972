import { afterEach, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../src/conversation/index.ts';
import { makeError } from '../../src/errors/index.ts';
import { startTestServer, type TestServer, type TestServerOptions } from './fixtures.ts';

/*
 * The A2UI client routes while the shared store is away (Redis down): the canonical 503
 * STORE_UNAVAILABLE as JSON, like every other answer of these routes, with a Retry-After hint —
 * also for an EventSource-like request (Accept: text/event-stream), which the HTML host's error
 * handler would answer with an HTML page.
 */
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const away = (): never => { throw new StoreUnavailableError('redis: connection closed (test)'); };

async function expectUnavailable(res: Response): Promise<void> {
  expect(res.status).toBe(503);
  expect(res.headers.get('retry-after')).toBe('2');
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(await res.json()).toMatchObject({ code: 'STORE_UNAVAILABLE', retryable: true, recovery_path: 'retry' });
}

async function start(options: TestServerOptions): Promise<TestServer> {
  server = await startTestServer(options);
  return server;
}

describe('A2UI routes, shared store away', () => {
  it('stream and snapshot: preparing the conversation failed', async () => {
    const s = await start({ prepare: away });
    await expectUnavailable(await fetch(`${s.url}/a2ui/c/c1/stream`, { headers: { Accept: 'text/event-stream' } }));
    await expectUnavailable(await fetch(`${s.url}/a2ui/c/c1/snapshot.jsonl`));
    expect(s.hub.stats().subscribers).toBe(0);
  });

  it('every route: authorising the request failed', async () => {
    const s = await start({ authorize: away });
    await expectUnavailable(await fetch(`${s.url}/a2ui/c/c1/stream`, { headers: { Accept: 'text/event-stream' } }));
    await expectUnavailable(await fetch(`${s.url}/a2ui/c/c1/snapshot.jsonl`));
    await expectUnavailable(await fetch(`${s.url}/a2ui/c/c1/events`, { method: 'POST', headers: { 'X-Surfacer-Client': 'a2ui' }, body: '{}' }));
  });

  it('events: the ingress answered STORE_UNAVAILABLE (its append failed) or threw it', async () => {
    const answered = await start({ postEvent: async () => ({ status: 503, body: makeError('STORE_UNAVAILABLE', 'append failed (test)') }) });
    await expectUnavailable(await fetch(`${answered.url}/a2ui/c/c1/events`, { method: 'POST', headers: { 'X-Surfacer-Client': 'a2ui' }, body: '{}' }));
    await answered.close();
    const threw = await start({ postEvent: async () => away() });
    await expectUnavailable(await fetch(`${threw.url}/a2ui/c/c1/events`, { method: 'POST', headers: { 'X-Surfacer-Client': 'a2ui' }, body: '{}' }));
  });
});
