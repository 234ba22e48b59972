import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';

/**
 * A token bucket per key (refills `perMinute` tokens a minute, holds at most `burst`), over a
 * bounded map: the least recently refilled keys are forgotten first, so client-chosen keys
 * cannot grow memory without bound.
 */
export interface RateLimiter {
  /** Takes one token for `key`; false when its bucket is empty. */
  take(key: string): boolean | Promise<boolean>;
}

export function createRateLimiter(options: { perMinute: number; burst: number; maxKeys?: number; clock?: () => number }): RateLimiter & { take(key: string): boolean } {
  const clock = options.clock ?? Date.now;
  const maxKeys = options.maxKeys ?? 10_000;
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    take(key) {
      const now = clock();
      const bucket = buckets.get(key) ?? { tokens: options.burst, at: now };
      buckets.delete(key);
      bucket.tokens = Math.min(options.burst, bucket.tokens + ((now - bucket.at) / 60_000) * options.perMinute);
      bucket.at = now;
      const allowed = bucket.tokens >= 1;
      if (allowed) bucket.tokens -= 1;
      if (buckets.size >= maxKeys) buckets.delete(buckets.keys().next().value!);
      buckets.set(key, bucket);
      return allowed;
    },
  };
}

/** The peer address on @hono/node-server; one shared key where the bindings are absent (app.request). */
export function clientAddress(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    return 'unknown';
  }
}
