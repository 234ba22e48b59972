import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClientSim } from '../../src/clientsim/index.ts';
import { findSurface } from '../../src/ui-ir/index.ts';
import type { SseConnection } from '../support/sse-client.ts';
import { feed, newConversation, postEvent, startE2e, stream, until, type E2eServer } from './support/stack.ts';

/*
 * The clarifier over the A2UI routes of the real product: the event is answered as soon as the
 * action is applied (`continuing: true`), and the continuation's changes — the persona form —
 * reach the client over its stream, where a ClientSim renders them.
 */
let s: E2eServer;
const open: SseConnection[] = [];
beforeAll(async () => { s = await startE2e(); });
afterAll(async () => {
  for (const conn of open.splice(0)) conn.close();
  await s.close();
});

describe('an action that continues the conversation, for A2UI clients', () => {
  it('answers once the action is applied; the continuation arrives over SSE; a replay does not continue twice', async () => {
    const client = s.client();
    const c = await newConversation(s, client, 'ask me something');
    const a2ui = await stream(s, c);
    open.push(a2ui);
    await until(a2ui, s.handle.a2ui.hub.checkpoint(c.cid).id);
    const sim = createClientSim();
    let seen = feed(sim, a2ui);
    expect(sim.input('main--e0', 'main.f-goal.MultipleChoice', ['persona'])).toEqual([]);
    expect(sim.input('main--e0', 'main.f-details.TextField', 'named Kim')).toEqual([]);
    const click = sim.click('main--e0', 'main.a0-ask_submit.Button');
    if (!click.ok) throw new Error(click.violation.code);

    const posted = await postEvent(s, c, click.message, { 'Idempotency-Key': 'ask-1' });
    expect(posted).toMatchObject({ status: 200, body: { ok: true, replayed: false, action: 'ask.submit', continuing: true } });

    // The persona form, on the next epoch of the same surface id, as the stream delivers it.
    const deadline = Date.now() + 5000;
    while (sim.surface('main--e1')?.rendering !== true) {
      if (Date.now() > deadline) throw new Error('the continuation never reached the stream');
      await new Promise((r) => setTimeout(r, 10));
      seen = feed(sim, a2ui, seen);
    }
    const persona = sim.surface('main--e1')!;
    expect(JSON.stringify(persona.components)).toContain('Display name');
    expect((persona.dataModel as { draft?: Record<string, unknown> }).draft).toMatchObject({ display_name: 'Kim' });
    expect(sim.surface('main--e0')).toBeUndefined();

    // The same event again (a retry): replayed, nothing continues again.
    const again = await postEvent(s, c, click.message, { 'Idempotency-Key': 'ask-1' });
    expect(again).toMatchObject({ status: 200, body: { ok: true, replayed: true } });
    expect(again.body).not.toHaveProperty('continuing');
    const conversation = await s.handle.conversations.get(c.cid);
    expect(conversation!.turnCount).toBe(2);
    expect(findSurface(conversation!.ir, 'main')!.view.template).toBe('persona');
    expect(s.errors).toEqual([]);
  });
});
