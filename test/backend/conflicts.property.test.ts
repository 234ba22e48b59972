import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findSurface } from '../../src/ui-ir/index.ts';
import { formAction } from '../conversation/fixtures/service.ts';
import { redisInstances } from './support.ts';

const r = redisInstances();

/** A submit: which instance it reaches, under which key, after how long. The key decides the body. */
const submitArb = fc.record({
  instance: fc.integer({ min: 0, max: 1 }),
  key: fc.constantFrom('k1', 'k2', 'k3', 'k4'),
  delayMs: fc.integer({ min: 0, max: 4 }),
});

describe('conflicting submits across instances (property)', () => {
  it('the same rendering submitted through two instances in any interleaving: exactly one is applied, every other is 409 or replays by key', async () => {
    const instances = [r.instance({ prefix: 'prop:', seed: 'a' }).service, r.instance({ prefix: 'prop:', seed: 'b' }).service];
    const [a, b] = instances as [typeof instances[0], typeof instances[0]];
    await fc.assert(fc.asyncProperty(fc.array(submitArb, { minLength: 2, maxLength: 8 }), async (submits) => {
      const c = await a.create('owner');
      const turn = await a.runTurn(c.id, 'create a character card');
      if (!turn.ok) throw new Error(turn.error.message);
      await b.get(c.id); // both hold the rendering the clients submit
      const results = await Promise.all(submits.map(async ({ instance, key, delayMs }) => {
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        const request = formAction(turn.next, 'main', { name: `Name ${key}`, personality: 'Kind.' }, { idempotencyKey: key });
        return { key, result: await instances[instance]!.applyAction(c.id, request) };
      }));
      const applied = results.filter(({ result }) => result.ok && !result.replayed);
      expect(applied).toHaveLength(1);
      const winner = applied[0]!.key;
      for (const { key, result } of results) {
        if (result === applied[0]!.result) continue;
        if (result.ok) {
          expect(result.replayed).toBe(true);
          expect(key).toBe(winner);
        } else {
          expect(result.status).toBe(409);
          expect(result.error.code).toBe('A2UI_C2S_SURFACE_STALE');
        }
      }
      // One entry in the shared log, seen the same by both instances.
      const [onA, onB] = [(await a.get(c.id))!, (await b.get(c.id))!];
      expect(onA.version).toBe(3);
      expect(onB.version).toBe(3);
      expect(findSurface(onB.ir, 'main')!.data.committed).toMatchObject({ name: `Name ${winner}` });
    }), { numRuns: 60 });
  }, 120_000);

  it('a submission of the rendering that is current in the log is applied by whichever instance receives it, even while that instance folds the change that made it current', async () => {
    const a = r.instance({ prefix: 'fresh:', seed: 'a' }).service;
    const b = r.instance({ prefix: 'fresh:', seed: 'b' }).service;
    // How many turns of the event loop b's request waits after a's answer: the notice reaches b around then.
    await fc.assert(fc.asyncProperty(fc.integer({ min: 0, max: 8 }), async (turns) => {
      const c = await a.create('owner');
      const turn = await a.runTurn(c.id, 'create a character card');
      if (!turn.ok) throw new Error(turn.error.message);
      await b.get(c.id);
      // A renderer on b: b follows the log's change notices (its own catch-ups, racing the request's).
      const stop = b.subscribe(c.id, () => {});
      try {
        const first = await a.applyAction(c.id, formAction(turn.next, 'main', { name: 'One', personality: 'Kind.' }, { idempotencyKey: 'k1' }));
        if (!first.ok) throw new Error(first.error.message);
        for (let t = 0; t < turns; t += 1) await new Promise((resolve) => setImmediate(resolve));
        const second = await b.applyAction(c.id, formAction(first.next, 'main', { name: 'Two', personality: 'Kind.' }, { idempotencyKey: 'k2' }));
        expect(second).toMatchObject({ ok: true, replayed: false });
      } finally {
        stop();
      }
    }), { numRuns: 60 });
  });
});
