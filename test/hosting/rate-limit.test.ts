import { describe, expect, it } from 'vitest';
import { createRateLimiter } from '../../src/hosting/index.ts';

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
