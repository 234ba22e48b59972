import { TaskState } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupportDeskApp } from '../../examples/support-desk/app.ts';
import { findSurface } from '../../src/ui-ir/index.ts';
import { errorIndexes, expectSameStateV09, runBothV09 } from '../clientsim/v0_9/compare.ts';
import { startE2e, type E2eServer } from '../e2e/support/stack.ts';
import { a2aClient, a2uiData, a2uiOf, CAPS_V09, errorOf, sendTask, text, userMessage } from '../host-a2a/support.ts';

/*
 * The support desk (an app of examples/, on the public API) through its A2A agent, mounted by
 * default: the queue as A2UI v0.9 for an A2A client, Take on an item applied once, the old
 * button stale afterwards; every message accepted by the official processor and ClientSim alike.
 */
let s: E2eServer;
beforeAll(async () => { s = await startE2e({}, { app: createSupportDeskApp() }); });
afterAll(async () => { await s.close(); });

describe('the support desk over A2A', () => {
  it('the queue, Take applied once, then stale', async () => {
    const client = await a2aClient(s.url);
    const task = await sendTask(client, userMessage([text('show the queue')], { metadata: CAPS_V09 }));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const cid = task.contextId;
    const received = [...a2uiOf(task.status?.message).messages];
    let run = runBothV09(received);
    expect(run.refused).toEqual([]);
    expect(errorIndexes(run.violations)).toEqual([]);
    expectSameStateV09(run.sim, run.oracle);

    const click = run.sim.click('queue--e0', 'queue.l-tickets.a0-ticket_take.Button', undefined, '/view/l-tickets/items/1');
    if (!click.ok) throw new Error(JSON.stringify(click));
    expect(JSON.stringify(click.message)).toContain('"item":"T-1002"');
    const taken = await sendTask(client, userMessage([a2uiData([click.message])], { contextId: cid, metadata: CAPS_V09 }));
    expect(taken.status?.state, JSON.stringify(errorOf(taken))).toBe(TaskState.TASK_STATE_COMPLETED);
    const tickets = async () => (findSurface((await s.handle.conversations.get(cid))!.ir, 'queue')!.data.committed.tickets as Array<{ status: string }>).map((t) => t.status);
    expect(await tickets()).toEqual(['new', 'taken', 'new']);
    received.push(...a2uiOf(taken.status?.message).messages);
    run = runBothV09(received);
    expect(run.refused).toEqual([]);
    expect(errorIndexes(run.violations)).toEqual([]);
    expectSameStateV09(run.sim, run.oracle);

    const again = await sendTask(client, userMessage([a2uiData([click.message])], { contextId: cid, metadata: CAPS_V09 }));
    expect(again.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(errorOf(again)?.code).toBe('A2UI_C2S_SURFACE_STALE');
    expect(await tickets()).toEqual(['new', 'taken', 'new']);
    expect(s.errors).toEqual([]);
  });
});
