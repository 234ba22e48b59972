import { hash, timingSafeEqual } from 'node:crypto';

/** Digests of expected nonces: one surface's nonce is checked on every action until its epoch ends. */
const expectedDigests = new Map<string, Buffer>();
const EXPECTED_DIGESTS = 4096;

function digest(text: string): Buffer {
  return hash('sha256', text, 'buffer');
}

/**
 * Constant-time nonce comparison. Hashing first gives equal-length inputs, so neither the
 * content nor the length of the expected nonce leaks through timing. The expected (server-side)
 * nonce's digest is remembered, so only the received one is hashed per request; what the
 * comparison sees is unchanged.
 */
export function nonceMatches(expected: string, received: string): boolean {
  let a = expectedDigests.get(expected);
  if (a === undefined) {
    a = digest(expected);
    if (expectedDigests.size >= EXPECTED_DIGESTS) expectedDigests.delete(expectedDigests.keys().next().value!);
    expectedDigests.set(expected, a);
  }
  return timingSafeEqual(a, digest(received));
}
