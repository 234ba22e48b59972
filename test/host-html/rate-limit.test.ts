import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRateLimiter } from '../../src/host-html/rate-limit.ts';
import { startHarness, type Harness } from './support/harness.ts';

describe('token bucket', () => {
  it('allows a burst, refills over time, and keeps keys apart', () => {
    let now = 0;
    const limiter = createRateLimiter({ perMinute: 2, burst: 2, clock: () => now });
    expect([limiter.take('a'), limiter.take('a'), limiter.take('a')]).toEqual([true, true, false]);
    expect(limiter.take('b')).toBe(true);
    now += 30_000; // half a minute: one token back
    expect([limiter.take('a'), limiter.take('a')]).toEqual([true, false]);
  });

  it('forgets the oldest keys beyond its bound', () => {
    const limiter = createRateLimiter({ perMinute: 1, burst: 1, maxKeys: 2, clock: () => 0 });
    expect(limiter.take('a')).toBe(true);
    expect(limiter.take('b')).toBe(true);
    expect(limiter.take('c')).toBe(true); // 'a' is forgotten: a fresh bucket
    expect(limiter.take('a')).toBe(true);
  });
});

describe('GET / creates conversations at a bounded rate per client', () => {
  let h: Harness;
  beforeAll(async () => { h = await startHarness({ limits: { conversationCreatesPerMinute: 3 } }); });
  afterAll(async () => { await h.close(); });

  it('cookieless requests past the limit get 429 and persist nothing', async () => {
    const statuses: number[] = [];
    const created: string[] = [];
    for (let i = 0; i < 5; i++) {
      const response = await fetch(`${h.url}/`, { redirect: 'manual', headers: { accept: 'application/json' } });
      statuses.push(response.status);
      const location = response.headers.get('location');
      if (location) created.push(location.slice(3));
      await response.arrayBuffer();
    }
    expect(statuses).toEqual([303, 303, 303, 429, 429]);
    for (const cid of created) expect(await h.service.get(cid)).toBeDefined();
  });
});
