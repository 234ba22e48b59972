import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TraceSchema } from '../../src/conversation/index.ts';
import { startHarness, type Harness } from './support/harness.ts';
import { formFields, openConversation, pageOf, parse, sendMessage, submitForm } from './support/page.ts';
import { sseReader } from './support/sse.ts';

describe('planner turns, cancel, traces and server-sent updates', () => {
  let h: Harness;
  beforeAll(async () => { h = await startHarness(); });
  afterAll(async () => { await h.close(); });

  it('cancel aborts the running turn; the text goes back into the message box', async () => {
    const client = h.client();
    const c = await openConversation(client);
    const running = sendMessage(client, c, 'something slow please');
    await waitFor(async () => (await h.service.get(c.cid))!.busy);
    const cancel = await client.post(`${c.base}/messages/cancel`, { _csrf: c.csrf }, { as: 'htmx' });
    expect(cancel.status).toBe(204);
    const response = await running;
    expect(response.status).toBe(200);
    const $ = parse(await response.text());
    expect($('#message-form textarea[name="text"]').text()).toBe('something slow please');
    expect($('#status').text()).toMatch(/stopped/i);
    const conversation = await h.service.get(c.cid);
    expect(conversation!.ir.transcript).toEqual([]);
    const traces = await (await client.get(`${c.base}/trace`, { as: 'json' })).json() as { traces: unknown[] };
    expect(traces.traces).toHaveLength(1);
    expect(TraceSchema.parse(traces.traces[0]).outcome).toBe('cancelled');
  });

  it('a failing planner leaves a note in the transcript and a trace', async () => {
    const client = h.client();
    const c = await openConversation(client);
    const response = await sendMessage(client, c, 'please explode');
    expect(response.status).toBe(200);
    const $ = parse(await response.text());
    expect($('li.entry--system').text()).toMatch(/could not answer/i);
    const json = await client.post(`${c.base}/messages`, { _csrf: c.csrf, text: 'explode again' }, { as: 'json' });
    expect(await json.json()).toMatchObject({ outcome: 'planner_failed', error: { code: 'PLANNER_FAILED' } });
  });

  it('serves traces as JSON (Trace v1) and as a readable page', async () => {
    const client = h.client();
    const c = await openConversation(client);
    await sendMessage(client, c, 'create a character card');
    await sendMessage(client, c, 'bogus please');
    const body = await (await client.get(`${c.base}/trace`, { as: 'json' })).json() as { conversation_id: string; traces: unknown[] };
    expect(body.conversation_id).toBe(c.cid);
    const [first, second] = body.traces.map((t) => TraceSchema.parse(t));
    expect(first).toMatchObject({
      trace_version: 1, conversation_id: c.cid, turn_index: 0, run_mode: 'directives', outcome: 'applied',
      llm: { provider: 'offline', offline: true }, validation: { status: 'ok', applied: 1 },
    });
    expect(first!.surfaces).toEqual([expect.objectContaining({ surface_id: 'main', target: 'html', epoch: 0, rev: 0 })]);
    expect(first!.surfaces[0]!.bytes).toBeGreaterThan(500);
    expect(second!.validation.error_codes).toContain('DIRECTIVE_UNKNOWN_TYPE');
    const page = await client.get(`${c.base}/trace`);
    expect(page.headers.get('content-type')).toContain('text/html');
    const $ = parse(await page.text());
    expect($('section.trace').length).toBe(2);
    expect($('section.trace').first().text()).toContain('offline planner');
  });

  it('pushes changes made in one tab to the other tabs over SSE, not back to the tab that made them', async () => {
    const client = h.client();
    const c = await openConversation(client);
    await sendMessage(client, c, 'create a character card');
    const $page = await pageOf(client, c);
    const eventsUrl = $page('main[sse-connect]').attr('sse-connect')!;
    expect(eventsUrl).toMatch(/\/events\?page=[A-Za-z0-9_-]+&v=\d+$/);
    const pageId = new URL(eventsUrl, h.url).searchParams.get('page')!;
    const mine = sseReader(await client.get(eventsUrl));
    const other = sseReader(await client.get(`${c.base}/events?page=otherpage123&v=${new URL(eventsUrl, h.url).searchParams.get('v')}`));
    try {
      const fields = { ...formFields($page, 'main'), name: 'Aria' };
      const submit = await client.post(`${c.base}/actions`, { ...fields, _action: 'form.submit' }, { as: 'htmx', headers: { 'X-Surfacer-Page': pageId } });
      expect(submit.status).toBe(200);
      const event = await other.next();
      expect(event.event).toBe('update');
      const $e = parse(event.data);
      expect($e('section#surface-main[hx-swap-oob="true"]').length).toBe(1);
      expect($e('.value[data-path="/committed/name"] .value__text').text()).toBe('Aria');
      // The submitting tab already has the result: it sees no update event for its own change.
      await expect(mine.next(700)).rejects.toThrow(/no SSE event/);
    } finally {
      await mine.close();
      await other.close();
    }
  });

  it('ends the stream of a page that stops reading after 64 queued updates, and lets it go', async () => {
    const client = h.client();
    const c = await openConversation(client);
    // Through the host's fetch without server bindings: hono's streamSSE, whose writes wait for
    // a reader, and this test never reads.
    const response = await h.host.fetch(new Request(`${h.url}${c.base}/events?page=stalledpage1&v=1`, { headers: { cookie: client.cookieHeader() } }));
    expect(response.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const open = h.host.openStreams;
    expect(open).toBeGreaterThan(0);
    let turns = 0;
    while (h.host.openStreams === open && turns < 80) {
      await h.service.runTurn(c.cid, `hello ${turns}`);
      turns += 1;
    }
    expect(h.host.openStreams).toBe(open - 1);
    expect(turns).toBeGreaterThan(64);
    await response.body?.cancel().catch(() => {});
  });

  it('a page connecting behind the current version first gets a full refresh', async () => {
    const client = h.client();
    const c = await openConversation(client);
    await sendMessage(client, c, 'create a character card');
    const stream = sseReader(await client.get(`${c.base}/events?page=latecomer1&v=1`));
    try {
      const event = await stream.next();
      const $ = parse(event.data);
      expect($('#transcript[hx-swap-oob="innerHTML"] li').length).toBe(2);
      expect($('#surfaces[hx-swap-oob="innerHTML"] section#surface-main').length).toBe(1);
    } finally {
      await stream.close();
    }
  });

  it('a page connecting ahead of the log (it was shown entries a failover then lost) gets a full refresh too', async () => {
    const client = h.client();
    const c = await openConversation(client);
    await sendMessage(client, c, 'create a character card');
    const stream = sseReader(await client.get(`${c.base}/events?page=ahead1&v=9`));
    try {
      const event = await stream.next();
      expect(event.id).toBe('2');
      const $ = parse(event.data);
      expect($('#transcript[hx-swap-oob="innerHTML"] li').length).toBe(2);
      expect($('#surfaces[hx-swap-oob="innerHTML"] section#surface-main').length).toBe(1);
    } finally {
      await stream.close();
    }
  });

  it('surface closes are rendered as a hidden element with the same id', async () => {
    const client = h.client();
    const c = await openConversation(client);
    await sendMessage(client, c, 'create a character card');
    const response = await submitForm(client, c, formFields(await pageOf(client, c), 'main'), 'form.cancel');
    expect(response.status).toBe(200);
    const $ = parse(await response.text());
    expect($('section#surface-main').is('[hidden]')).toBe(true);
  });
});

async function waitFor(check: () => Promise<boolean>, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
