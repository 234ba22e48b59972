import { timingSafeEqual } from 'node:crypto';

/**
 * Constant-time nonce comparison. Only the lengths are compared in the open: every nonce the
 * server draws has the same public length (16 random bytes, base64url), so a length tells an
 * attacker nothing, while the bytes are compared in constant time. (Hashing both sides first, as
 * before, hid the length too and cost a SHA-256 per action.)
 */
export function nonceMatches(expected: string, received: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(received);
  return a.length === b.length && timingSafeEqual(a, b);
}
