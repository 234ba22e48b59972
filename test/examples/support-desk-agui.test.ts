import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupportDeskApp } from '../../examples/support-desk/app.ts';
import { SAMPLE_TICKETS } from '../../examples/support-desk/tickets.ts';
import { findSurface } from '../../src/ui-ir/index.ts';
import { expectSameStateV09 } from '../clientsim/v0_9/compare.ts';
import { officialClick } from '../support/a2ui-v0_9-oracle.ts';
import { AguiClient, startAgui, TOKEN_A, types, type AguiStack } from '../host-agui/support.ts';

/*
 * The second app (examples/support-desk, public API only) through AG-UI, mounted by
 * createSurfacer by default: the official HttpAgent asks for the queue, the official v0.9
 * processor renders it from the a2ui-surface activity, and Take on an item (the official
 * renderer's click inside the list template) is applied once, also when its run is sent again.
 */
let s: AguiStack;
beforeAll(async () => { s = await startAgui({ app: createSupportDeskApp() }); });
afterAll(async () => { await s.close(); });

const TAKE = 'queue.l-tickets.a0-ticket_take.Button';

describe('the support desk over AG-UI', () => {
  it('the queue shows; Take on an item is applied once', async () => {
    const client = new AguiClient(s.url, TOKEN_A);
    client.say('show the queue');
    const shown = await client.run();
    expect(shown.error).toBeUndefined();
    expect(types(shown.events).at(-1)).toBe('RUN_FINISHED');
    expect(client.refused).toEqual([]);
    expect(client.violations).toEqual([]);
    expectSameStateV09(client.sim, client.oracle);
    expect(client.oracle.processor.model.getSurface('queue--e0')).toBeDefined();

    const clicked = officialClick(client.oracle, 'queue--e0', TAKE, '/view/l-tickets/items/1');
    expect(clicked.ok, JSON.stringify(clicked)).toBe(true);
    const action = JSON.parse(JSON.stringify((clicked as { action: unknown }).action)) as Record<string, unknown>;
    expect(action).toMatchObject({ name: 'ticket.take', context: { list: 'tickets', item: SAMPLE_TICKETS[1]!.id } });
    const taken = await client.run({ runId: 'desk-take-1', forwardedProps: { a2uiAction: { userAction: action } } });
    expect(taken.error).toBeUndefined();
    expect(types(taken.events)).toEqual(['RUN_STARTED', 'ACTIVITY_SNAPSHOT', 'RUN_FINISHED']);
    const after = await s.surfacer.conversations.get(client.threadId);
    const statuses = (findSurface(after!.ir, 'queue')!.data.committed.tickets as Array<{ status: string }>).map((t) => t.status);
    expect(statuses).toEqual(['new', 'taken', 'new']);

    const again = await client.run({ runId: 'desk-take-1', forwardedProps: { a2uiAction: { userAction: action } } });
    expect(types(again.events).at(-1)).toBe('RUN_FINISHED');
    expect((await s.surfacer.conversations.get(client.threadId))!.version).toBe(after!.version);
    expect(client.refused).toEqual([]);
    expect(client.violations).toEqual([]);
    expectSameStateV09(client.sim, client.oracle);
    expect(s.errors).toEqual([]);
  });
});
