import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSupportDeskApp } from '../../examples/support-desk/app.ts';
import { a2uiWire, createClientSim, createSurfacer, findSurface, type ClientSim, type ConversationIr } from '../../src/index.ts';

/*
 * Property: whatever the user clicks on the support desk's queue, from the current rendering or
 * from any older one (a second tab, a double click, a slow network), an item action is applied
 * exactly when its rendering is current (the queue's rev it carries is the queue's rev now);
 * otherwise it is refused as stale (409) and changes nothing. Every applied click is one log
 * entry; a ticket is never taken or resolved twice.
 */
const ACTIONS = ['take', 'open', 'resolve'] as const;
const Click = fc.record({
  rendering: fc.nat(),
  item: fc.nat({ max: 4 }),
  action: fc.constantFrom(...ACTIONS),
});

const APP = createSupportDeskApp();

/** What an external v0.8 client (no app catalogue advertised) gets: the queue table's fallback list. */
function render(ir: ConversationIr): { sim: ClientSim; rev: number } {
  const compiled = a2uiWire('0.8').compileConversation(ir, { components: { registry: APP.components!, catalog: 'basic' } });
  if (!compiled.ok) throw new Error('compile failed');
  const sim = createClientSim();
  const violations = sim.applyAll(compiled.batches.flatMap((b) => b.messages)).filter((v) => v.severity === 'error');
  expect(violations).toEqual([]);
  return { sim, rev: findSurface(ir, 'queue')!.rev };
}

describe('the support desk queue under any clicks', () => {
  it('applies an item action iff its rendering is current, once; stale ones are 409 and change nothing (100 runs)', async () => {
    const seen = { applied: 0, stale: 0 };
    await fc.assert(fc.asyncProperty(fc.array(Click, { minLength: 1, maxLength: 12 }), async (clicks) => {
      const s = createSurfacer({ app: createSupportDeskApp() });
      try {
        const { id: cid, a2uiToken } = await s.conversations.create('owner');
        await s.conversations.runTurn(cid, 'show the queue');
        const irNow = async (): Promise<ConversationIr> => (await s.conversations.get(cid))!.ir;
        const renderings = [render(await irNow())];
        let applied = 0;
        for (const [n, click] of clicks.entries()) {
          const shown = renderings[click.rendering % renderings.length]!;
          const index = ACTIONS.indexOf(click.action);
          const result = shown.sim.click('queue--e0', `queue.l-tickets.a${index}-ticket_${click.action}.Button:${click.item}`);
          if (!result.ok) continue; // that rendering shows no such item
          const before = await irNow();
          const current = findSurface(before, 'queue')!.rev === shown.rev;
          const response = await s.fetch(new Request(`http://desk.test/a2ui/c/${cid}/events`, {
            method: 'POST', body: JSON.stringify(result.message),
            headers: { Authorization: `Bearer ${a2uiToken}`, 'Content-Type': 'application/json', 'Idempotency-Key': `k${n}` },
          }));
          await response.arrayBuffer();
          expect(response.status).toBe(current ? 200 : 409);
          const after = await irNow();
          if (!current) expect(after).toEqual(before);
          else applied += 1;
          seen[current ? 'applied' : 'stale'] += 1;
          renderings.push(render(after));
        }
        const log = (await s.backend.store.read(cid)) ?? [];
        expect(log.filter((e) => e.type === 'action')).toHaveLength(applied);
        const tickets = findSurface(await irNow(), 'queue')!.data.committed.tickets as Array<{ id: string }>;
        expect(new Set(tickets.map((t) => t.id)).size).toBe(tickets.length);
      } finally {
        await s.close();
      }
    }), { numRuns: 100 });
    // Both kinds of click happened, many times (the property is not vacuous).
    expect(seen.applied).toBeGreaterThan(100);
    expect(seen.stale).toBeGreaterThan(50);
  }, 300_000);
});
