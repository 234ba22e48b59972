import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Constant-time nonce comparison. Hashing first gives equal-length inputs, so neither the
 * content nor the length of the expected nonce leaks through timing.
 */
export function nonceMatches(expected: string, received: string): boolean {
  const a = createHash('sha256').update(expected, 'utf8').digest();
  const b = createHash('sha256').update(received, 'utf8').digest();
  return timingSafeEqual(a, b);
}
