import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { chromiumSuite, closedNetwork, failedLoad } from '../support/browser/index.ts';
import { eventually, formSurface, noteSurface, startTestServer, titleUpdate, type TestServer } from './fixtures.ts';

// The official Lit renderer in real Chromium, fed by our SSE routes, clicked by a user.
const ARTIFACTS = 'test-artifacts/host-a2ui';

const chromium = chromiumSuite({ artifacts: ARTIFACTS, cleanConsole: true });
const { consoleLog } = chromium;
let server: TestServer | undefined;
let page: Page | undefined;

afterEach(async () => {
  await page?.close();
  page = undefined;
  await server?.close();
  server = undefined;
});

async function openPage(s: TestServer, cid: string): Promise<Page> {
  page = await consoleLog.watch(await chromium.browser.newPage({ viewport: { width: 900, height: 700 } }));
  const external = await closedNetwork(page, [new URL(s.url).origin]);
  page.on('close', () => expect(external).toEqual([]));
  await page.goto(`${s.url}/a2ui/c/${cid}`);
  await page.locator('#a2ui-status[data-state="connected"]').waitFor();
  return page;
}

describe('A2UI page with the official Lit renderer', () => {
  it('renders the form, sends a spec userAction with false/0 literals kept, and follows live updates', async () => {
    server = await startTestServer();
    const p = await openPage(server, 'b1');

    await expect.poll(() => p.locator('a2ui-surface[data-surface-id="main"]').count()).toBe(1);
    await p.locator('h2', { hasText: 'Your details' }).waitFor();
    const input = p.locator('a2ui-surfacer-textfield input');
    await expect.poll(() => input.count()).toBe(1);
    await p.locator('a2ui-surfacer-textfield label', { hasText: 'Name' }).waitFor();
    await p.screenshot({ path: `${ARTIFACTS}/form-initial.png` });

    await input.fill('Ada Lovelace');
    await p.locator('a2ui-surfacer-button button').click();
    await eventually(() => server!.posts.length === 1, 5000, 'userAction POST');
    const post = server.posts[0]!;
    expect(post.cid).toBe('b1');
    expect(post.body).toEqual({
      userAction: {
        name: 'form.submit',
        surfaceId: 'main',
        sourceComponentId: 'form.save',
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        context: { name: 'Ada Lovelace', nonce: 'n-1', flag: false, zero: 0 },
      },
    });
    expect(Object.keys((post.body as { userAction: object }).userAction)).toEqual(
      ['name', 'surfaceId', 'sourceComponentId', 'timestamp', 'context'],
    );
    expect(post.idempotencyKey).toMatch(/^[0-9a-f]{32}$/);

    server.publish('b1', [titleUpdate('main', 'Saved, thank you')]);
    await p.locator('h2', { hasText: 'Saved, thank you' }).waitFor();
    // The field keeps what the user typed: a data update elsewhere does not reset the model.
    expect(await input.inputValue()).toBe('Ada Lovelace');
    await p.screenshot({ path: `${ARTIFACTS}/form-updated.png` });

    // A second click gets a fresh idempotency key.
    await p.locator('a2ui-surfacer-button button').click();
    await eventually(() => server!.posts.length === 2, 5000, 'second POST');
    expect(server.posts[1]!.idempotencyKey).not.toBe(post.idempotencyKey);
  });

  it('creates and removes <a2ui-surface> elements as surfaces come and go', async () => {
    server = await startTestServer();
    const p = await openPage(server, 'b2');
    await p.locator('h2', { hasText: 'Your details' }).waitFor();

    server.publish('b2', noteSurface('side', 'A side note'));
    await p.locator('a2ui-surface[data-surface-id="side"]', { hasText: 'A side note' }).waitFor();
    expect(await p.locator('a2ui-surface').count()).toBe(2);
    await p.screenshot({ path: `${ARTIFACTS}/two-surfaces.png` });

    server.publish('b2', [{ deleteSurface: { surfaceId: 'side' } }]);
    await expect.poll(() => p.locator('a2ui-surface').count()).toBe(1);
  });

  it('on 409 shows "UI is out of date" and re-initialises the stream', async () => {
    server = await startTestServer({ postStatus: () => 409 });
    const p = await openPage(server, 'b3');
    await p.locator('h2', { hasText: 'Your details' }).waitFor();
    expect(server.snapshotCalls).toEqual(['b3']);

    server.setSnapshot(formSurface('main', 'Regenerated form'));
    await p.locator('a2ui-surfacer-button button').click();
    const notice = p.locator('#a2ui-notice');
    await notice.waitFor({ state: 'visible' });
    expect(await notice.textContent()).toBe('UI is out of date. Please regenerate.');
    await p.locator('h2', { hasText: 'Regenerated form' }).waitFor();
    expect(server.snapshotCalls).toEqual(['b3', 'b3']);
    await p.locator('#a2ui-status[data-state="connected"]').waitFor();
    await eventually(() => server!.hub.subscriberCount('b3') === 1, 3000, 'one live subscriber');
    await p.screenshot({ path: `${ARTIFACTS}/stale-409.png` });
    // Chromium logs every fetch answered 4xx/5xx and no page can silence it: that line for the
    // provoked POST is the one entry allowed; the page itself logs nothing for an expected 409.
    expect(consoleLog.drain()).toEqual([failedLoad(`${server.url}/a2ui/c/b3/events`, 409, 'Conflict')]);
  });

  it('reports a message the renderer rejects as a CLIENT_PROCESSING_FAILED error event', async () => {
    server = await startTestServer();
    const p = await openPage(server, 'b4');
    await p.locator('h2', { hasText: 'Your details' }).waitFor();
    // path + literal in one BoundValue: valid JSON, rejected by the official processor.
    server.publish('b4', [{
      surfaceUpdate: { surfaceId: 'main', components: [{ id: 'bad', component: { Text: { text: { path: '/a', literalString: 'b' } } } }] },
    }]);
    await eventually(() => server!.posts.length === 1, 5000, 'error POST');
    const body = server.posts[0]!.body as { error: { code: string; surfaceId: string; message: string } };
    expect(Object.keys(body)).toEqual(['error']);
    expect(body.error.code).toBe('CLIENT_PROCESSING_FAILED');
    expect(body.error.surfaceId).toBe('main');
    expect(body.error.message.length).toBeGreaterThan(0);
    // The page logs the rejection as the error it is (the server sent invalid A2UI); this test
    // provokes it, so that one line is expected, and nothing else.
    expect(consoleLog.drain()).toEqual([{ kind: 'error', text: expect.stringMatching(/^A2UI message rejected /), url: expect.stringMatching(new RegExp(`^${server.url}/.+\\.js$`)) }]);
    // The page keeps working after a rejected message.
    server.publish('b4', [titleUpdate('main', 'Still alive')]);
    await p.locator('h2', { hasText: 'Still alive' }).waitFor();
  });

  it('resumes with Last-Event-ID after the server drops a slow stream, without re-initialising', async () => {
    server = await startTestServer({ retryMs: 100, hubOptions: { limits: { queueMessages: 1 } } });
    const p = await openPage(server, 'b5');
    await p.locator('h2', { hasText: 'Your details' }).waitFor();
    // Two batches in one tick: the second overflows the 1-message queue, the stream is cut.
    server.publish('b5', [titleUpdate('main', 'First while away')]);
    server.publish('b5', [titleUpdate('main', 'Second while away')]);
    await p.locator('h2', { hasText: 'Second while away' }).waitFor();
    await eventually(() => server!.hub.subscriberCount('b5') === 1, 5000, 'EventSource reconnect');
    expect(server.snapshotCalls).toEqual(['b5']);

    server.forget('b5'); // a new stream: the next reconnect cannot resume and re-initialises
    await eventually(() => server!.snapshotCalls.length === 2, 5000, 're-init after forget');
    server.publish('b5', [titleUpdate('main', 'After re-init')]);
    await p.locator('h2', { hasText: 'After re-init' }).waitFor();
  });
});
