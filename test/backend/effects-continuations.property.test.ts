import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ConversationService, TurnResult } from '../../src/conversation/index.ts';
import { findSurface } from '../../src/ui-ir/index.ts';
import { createEffectApp, createEffectProbe } from '../conversation/fixtures/effect-app.ts';
import { formAction } from '../conversation/fixtures/service.ts';
import { redisInstances } from './support.ts';

const r = redisInstances();

/** A submit of the clarifier: which instance it reaches, under which key (the key decides the answers), after how long. */
const submitArb = fc.record({
  instance: fc.integer({ min: 0, max: 1 }),
  key: fc.constantFrom('k1', 'k2', 'k3'),
  delayMs: fc.integer({ min: 0, max: 6 }),
});

const GOALS: Record<string, string> = { k1: 'persona', k2: 'scene settings', k3: 'character card' };

/*
 * ask.submit with a side effect and a continuation (the hybrid), submitted through two service
 * instances sharing one Redis, in any interleaving of the same key and different keys: the
 * action's transition is applied once (one action entry in the shared log), its continuation
 * runs once (one continuation turn), and each request runs the effect at most once.
 */
describe('effects and continuations across instances (property)', () => {
  it('no interleaving of submits applies an effect\'s transition twice or runs a continuation twice', async () => {
    const probe = createEffectProbe('ok');
    const app = createEffectApp(probe, { ask: true });
    const instances: ConversationService[] = [
      r.instance({ prefix: 'effprop:', seed: 'a', app }).service, r.instance({ prefix: 'effprop:', seed: 'b', app }).service,
    ];
    await fc.assert(fc.asyncProperty(fc.array(submitArb, { minLength: 2, maxLength: 6 }), async (submits) => {
      const [a, b] = instances as [ConversationService, ConversationService];
      probe.runs.length = 0;
      const c = await a.create('owner');
      const asked = await a.runTurn(c.id, 'ask me something');
      if (!asked.ok) throw new Error(asked.error.message);
      await b.get(c.id); // both hold the clarifier the clients submit
      const results = await Promise.all(submits.map(async ({ instance, key, delayMs }) => {
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        const request = formAction(asked.next, 'main', { goal: GOALS[key], details: '' }, { action: 'ask.submit', idempotencyKey: key });
        return { key, result: await instances[instance]!.applyAction(c.id, request) };
      }));
      const turns: Array<TurnResult | undefined> = await Promise.all(results.map(({ result }) => (result.ok && result.kind === 'applied' ? result.continuation : undefined)));

      const applied = results.filter(({ result }) => result.ok && !result.replayed);
      expect(applied).toHaveLength(1);
      const winner = applied[0]!.key;
      for (const { key, result } of results) {
        if (result.ok) expect(result.replayed || key === winner).toBe(true);
        else expect(result.error.code).toBe('A2UI_C2S_SURFACE_STALE');
      }
      // Each request ran the effect at most once (a request with another key may have run it before losing).
      expect(probe.runs.length).toBeLessThanOrEqual(submits.length);
      for (const key of Object.keys(GOALS)) {
        expect(probe.runs.filter((run) => run.key === key).length).toBeLessThanOrEqual(submits.filter((s) => s.key === key).length);
      }
      expect(probe.runs.some((run) => run.key === winner)).toBe(true);

      // The shared log, as each instance folds it: one action, one continuation, the same IR.
      const [onA, onB] = [(await a.get(c.id))!, (await b.get(c.id))!];
      expect(onB.version).toBe(onA.version);
      expect(onB.ir).toEqual(onA.ir);
      const traces = (await a.traces(c.id))!;
      expect(traces.filter((t) => t.continuation !== undefined)).toHaveLength(1);
      expect(onA.version).toBe(4); // created, the clarifier's turn, the action, its continuation
      expect(turns.filter((t) => t?.ok)).toHaveLength(1);
      expect(findSurface(onA.ir, 'main')!.view.template).toBe(GOALS[winner]!.replace(' ', '_'));
    }), { numRuns: 25 });
  }, 180_000);
});
