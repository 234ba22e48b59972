import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createKeyedQueue } from '../../src/ingress/index.ts';

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('createKeyedQueue', () => {
  it('property: per key one task at a time in arrival order, keys concurrent, failures block nothing, no memory left', async () => {
    const task = fc.record({ key: fc.constantFrom('a', 'b', 'c'), ticks: fc.nat(3), fails: fc.boolean() });
    await fc.assert(fc.asyncProperty(fc.array(task, { minLength: 1, maxLength: 25 }), async (tasks) => {
      const queue = createKeyedQueue();
      const running = new Map<string, number>();
      const started: Record<string, number[]> = {};
      let concurrentKeys = 0;
      const results = tasks.map((t, i) => queue.run(t.key, async () => {
        expect(running.get(t.key) ?? 0).toBe(0);
        running.set(t.key, 1);
        concurrentKeys = Math.max(concurrentKeys, [...running.values()].filter((n) => n > 0).length);
        (started[t.key] ??= []).push(i);
        for (let n = 0; n < t.ticks; n++) await tick();
        running.set(t.key, 0);
        if (t.fails) throw new Error(`task ${i}`);
        return i;
      }));
      for (const key of new Set(tasks.map((t) => t.key))) expect(queue.depth(key)).toBe(tasks.filter((t) => t.key === key).length);
      const settled = await Promise.allSettled(results);
      settled.forEach((s, i) => {
        if (tasks[i]!.fails) expect(s).toMatchObject({ status: 'rejected', reason: { message: `task ${i}` } });
        else expect(s).toEqual({ status: 'fulfilled', value: i });
      });
      for (const [key, order] of Object.entries(started)) {
        expect(order).toEqual(tasks.flatMap((t, i) => (t.key === key ? [i] : [])));
      }
      await tick();
      expect(queue.keys).toBe(0);
      expect(['a', 'b', 'c'].map((k) => queue.depth(k))).toEqual([0, 0, 0]);
      if (new Set(tasks.map((t) => t.key)).size > 1 && tasks.every((t) => t.ticks > 0)) expect(concurrentKeys).toBeGreaterThan(1);
    }), { numRuns: 200 });
  });
});
