import * as cheerio from 'cheerio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupportDeskApp } from '../../examples/support-desk/app.ts';
import { deskPlanFor } from '../../examples/support-desk/planner.ts';
import { SAMPLE_TICKETS } from '../../examples/support-desk/tickets.ts';
import { clientsim, a2uiWire, createClientSim, createClientSimV09, createSurfacer, type ConversationIr } from '../../src/index.ts';
import { findSurface } from '../../src/ui-ir/index.ts';
import { itemFormFields, listKeys, surfaceFormFields } from '../support/html-forms.ts';
import type { HttpClient } from '../support/http-client.ts';
import type { SseConnection } from '../support/sse-client.ts';
import { feed, newConversation, postEvent, startE2e, stream, until, type Conversation, type E2eServer } from '../e2e/support/stack.ts';

/*
 * The second app (examples/support-desk, written on the public API only) through every way in:
 * the htmx host over HTTP, the A2UI host over SSE with ClientSim v0.8 as the renderer, and the
 * v0.9 compiler with ClientSim v0.9. The browser run is in support-desk-browser.test.ts.
 */
let s: E2eServer;
const open: SseConnection[] = [];
beforeAll(async () => { s = await startE2e({}, { app: createSupportDeskApp() }); });
afterAll(async () => {
  for (const conn of open.splice(0)) conn.close();
  await s?.close();
});

async function irOf(cid: string): Promise<ConversationIr> {
  return (await s.handle.conversations.get(cid))!.ir;
}

async function tickets(cid: string): Promise<Array<Record<string, unknown>>> {
  return findSurface(await irOf(cid), 'queue')!.data.committed.tickets as Array<Record<string, unknown>>;
}

/** The fields an item button of the htmx page posts. */
async function itemForm(client: HttpClient, c: Conversation, key: string, action: string): Promise<Record<string, string>> {
  const fields = itemFormFields(await (await client.get(c.base)).text(), key, action);
  expect(fields, `a ${action} button on ${key}`).toBeDefined();
  return { _csrf: c.csrf, ...fields! };
}

/** The fields the form of `surfaceId` posts with `values` typed in and `action` pressed. */
async function surfaceForm(client: HttpClient, c: Conversation, surfaceId: string, values: Record<string, string>, action: string): Promise<Record<string, string>> {
  const hidden = surfaceFormFields(await (await client.get(c.base)).text(), surfaceId);
  return { ...hidden, _csrf: c.csrf, _action: action, _idem: `idem-${surfaceId}-${action}`, ...values };
}

describe('the support desk', () => {
  it('its offline planner answers what its directives accept, for the keywords it knows', () => {
    const app = createSupportDeskApp();
    for (const text of ['show the queue', 'new ticket about the printer', 'report an urgent problem', 'hello', 'all tickets as a table']) {
      for (const d of deskPlanFor(text, {} as ConversationIr).directives) {
        const definition = app.directives.resolve(d.type)?.definition;
        expect(definition, d.type).toBeDefined();
        expect(definition!.payload.safeParse(d.payload).success, `${text}: ${JSON.stringify(d)}`).toBe(true);
      }
    }
    expect(deskPlanFor('new ticket about the printer', {} as ConversationIr).directives[0]!.payload).toEqual({ subject: 'the printer' });
  });

  it('htmx over HTTP: the queue lists the tickets; Take applies once (the old button is stale); a filed ticket joins the queue', async () => {
    const client = s.client();
    const c = await newConversation(s, client, 'show the queue');
    expect(listKeys(await (await client.get(c.base)).text(), 'tickets')).toEqual(SAMPLE_TICKETS.map((t) => t.id));

    const take = await itemForm(client, c, 'T-1002', 'ticket.take');
    const first = await client.post(`${c.base}/actions`, take, { as: 'json' });
    expect(first.status).toBe(200);
    await first.arrayBuffer();
    expect((await tickets(c.cid)).map((t) => t.status)).toEqual(['new', 'taken', 'new']);
    // The same rendering's button again (a double click, a second tab): stale, nothing applied.
    const again = await client.post(`${c.base}/actions`, { ...take, _idem: 'another-key' }, { as: 'json' });
    expect(again.status).toBe(409);
    await again.arrayBuffer();
    const log = (await s.handle.backend.store.read(c.cid)) ?? [];
    expect(log.filter((e) => e.type === 'action' && e.request.action === 'ticket.take')).toHaveLength(1);

    const say = await client.post(`${c.base}/messages`, { _csrf: c.csrf, text: 'new ticket about the printer' }, { as: 'json' });
    expect(say.status).toBe(200);
    await say.arrayBuffer();
    const form = await surfaceForm(client, c, 'new-ticket', { subject: 'Printer jammed', customer: 'Dee', priority: 'urgent', details: '' }, 'ticket.submit');
    const filed = await client.post(`${c.base}/actions`, form, { as: 'json' });
    expect(filed.status).toBe(200);
    await filed.arrayBuffer();
    expect(await tickets(c.cid)).toContainEqual({ id: 'T-1004', subject: 'Printer jammed', customer: 'Dee', priority: 'urgent', status: 'new', details: '' });
    expect(findSurface(await irOf(c.cid), 'new-ticket')?.lifecycle).toBe('deleted');
    expect(s.errors).toEqual([]);
  });

  it('htmx over HTTP: the tickets as a table, sorted on the server by a form post; a filed ticket is in the next table', async () => {
    const client = s.client();
    const c = await newConversation(s, client, 'show the queue');
    const rowKeys = async (): Promise<string[]> => {
      const $ = cheerio.load(await (await client.get(c.base)).text());
      return $('#surface-tickets table tbody tr').map((_, tr) => $(tr).attr('data-key')).get();
    };
    const say = async (text: string): Promise<void> => {
      const answer = await client.post(`${c.base}/messages`, { _csrf: c.csrf, text }, { as: 'json' });
      expect(answer.status).toBe(200);
      await answer.arrayBuffer();
    };
    await say('show all tickets as a table');
    expect(await rowKeys()).toEqual(['T-1003', 'T-1002', 'T-1001']);
    // The Subject heading's sort form, as a browser without JavaScript posts it.
    const $ = cheerio.load(await (await client.get(c.base)).text());
    const form = $('#surface-tickets form[id$="-sort-subject-form"]');
    expect(form.length).toBe(1);
    const fields: Record<string, string> = { _csrf: c.csrf };
    form.find('input[type="hidden"]').each((_, input) => { fields[$(input).attr('name')!] = $(input).attr('value') ?? ''; });
    const button = $(`button[form="${form.attr('id')}"]`);
    if (button.attr('name') !== undefined) fields[button.attr('name')!] = button.attr('value') ?? '';
    const sorted = await client.post(`${c.base}/actions`, fields, { as: 'json' });
    expect(sorted.status).toBe(200);
    await sorted.arrayBuffer();
    const bySubject = [...SAMPLE_TICKETS].sort((a, b) => a.subject.localeCompare(b.subject)).map((t) => t.id);
    expect(await rowKeys()).toEqual(bySubject);
    // The same post again (same idempotency key): applied once, the table as it is.
    const again = await client.post(`${c.base}/actions`, fields, { as: 'json' });
    expect(again.status).toBeLessThan(500);
    await again.arrayBuffer();
    const log = (await s.handle.backend.store.read(c.cid)) ?? [];
    expect(log.filter((e) => e.type === 'action' && e.request.action === 'table.sort')).toHaveLength(1);
    expect(await rowKeys()).toEqual(bySubject);

    await say('new ticket about the printer');
    const filed = await client.post(`${c.base}/actions`, await surfaceForm(client, c, 'new-ticket', { subject: 'Printer jammed', customer: 'Dee', priority: 'urgent', details: '' }, 'ticket.submit'), { as: 'json' });
    expect(filed.status).toBe(200);
    await filed.arrayBuffer();
    await say('the tickets in a table');
    expect(await rowKeys()).toEqual(['T-1004', 'T-1003', 'T-1002', 'T-1001']);
    expect(s.errors).toEqual([]);
  });

  it('A2UI over SSE with ClientSim v0.8: the item buttons send the item key; Take is applied once; Open shows the ticket', async () => {
    const client = s.client();
    const c = await newConversation(s, client, 'show the queue');
    const conn = await stream(s, c);
    open.push(conn);
    await until(conn, s.handle.a2ui.hub.checkpoint(c.cid).id);
    const sim = createClientSim();
    let seen = feed(sim, conn);
    const tree = clientsim.buildTree(sim.state().surfaces.get('queue--e0')!);
    expect(tree.ok && tree.nodes.filter((n) => n.type === 'Button').length).toBe(SAMPLE_TICKETS.length * 3);

    const click = sim.click('queue--e0', 'queue.l-tickets.a0-ticket_take.Button:0');
    if (!click.ok) throw new Error(click.violation.detail);
    expect(click.message.userAction.context).toMatchObject({ list: 'tickets', item: 'T-1001' });
    const posted = await postEvent(s, c, click.message, { 'Idempotency-Key': 'desk-take-1' });
    expect(posted).toMatchObject({ status: 200, body: { ok: true, action: 'ticket.take' } });
    const replayed = await postEvent(s, c, click.message, { 'Idempotency-Key': 'desk-take-1' });
    expect(replayed).toMatchObject({ status: 200, body: { replayed: true } });
    const stale = await postEvent(s, c, click.message, { 'Idempotency-Key': 'desk-take-2' });
    expect(stale.status).toBe(409);
    expect((await tickets(c.cid)).map((t) => t.status)).toEqual(['taken', 'new', 'new']);

    await until(conn, s.handle.a2ui.hub.checkpoint(c.cid).id);
    seen = feed(sim, conn, seen);
    const items = (sim.surface('queue--e0')!.dataModel.committed as { tickets: Record<string, { status: string }> }).tickets;
    expect(items['0']!.status).toBe('taken');

    const openClick = sim.click('queue--e0', 'queue.l-tickets.a1-ticket_open.Button:2');
    if (!openClick.ok) throw new Error(openClick.violation.detail);
    expect((await postEvent(s, c, openClick.message)).status).toBe(200);
    await until(conn, s.handle.a2ui.hub.checkpoint(c.cid).id);
    feed(sim, conn, seen);
    expect(sim.surface('ticket--e0')?.dataModel).toMatchObject({ ui: { ticket: { id: 'T-1003', subject: SAMPLE_TICKETS[2]!.subject } } });
    expect(s.errors).toEqual([]);
  });

  it('A2UI v0.9 with ClientSim v0.9: the queue compiles to a valid stream (the basic catalogue: the table\'s fallback list); an item button names its item', async () => {
    const app = createSupportDeskApp();
    const surfacer = createSurfacer({ app });
    const c = await surfacer.conversations.create('owner');
    expect((await surfacer.conversations.runTurn(c.id, 'show the queue')).ok).toBe(true);
    const ir = (await surfacer.conversations.get(c.id))!.ir;
    const wire = a2uiWire('0.9');
    const compiled = wire.compileConversation(ir, { components: { registry: app.components!, catalog: 'basic' } });
    expect(compiled.ok).toBe(true);
    const messages = compiled.batches.flatMap((b) => b.messages);
    expect(wire.validate(messages).filter((v) => v.severity === 'error')).toEqual([]);
    const sim = createClientSimV09();
    expect(sim.applyAll(messages).filter((v) => v.severity === 'error')).toEqual([]);
    const click = sim.click('queue--e0', 'queue.l-tickets.a0-ticket_take.Button', undefined, '/view/l-tickets/items/1');
    if (!click.ok) throw new Error(JSON.stringify(click));
    expect(JSON.stringify(click.message)).toContain('"item":"T-1002"');
    await surfacer.close();
  });
});
