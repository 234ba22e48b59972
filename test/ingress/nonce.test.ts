import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nonceMatches } from '../../src/ingress/nonce.ts';

describe('nonceMatches', () => {
  it('accepts the same nonce and refuses a changed, shortened, lengthened or empty one', () => {
    const nonce = 'q3KJ0x9vUeY2cYb8N1m4Zw';
    expect(nonceMatches(nonce, nonce)).toBe(true);
    expect(nonceMatches(nonce, `${nonce.slice(0, -1)}x`)).toBe(false);
    expect(nonceMatches(nonce, nonce.slice(0, -1))).toBe(false);
    expect(nonceMatches(nonce, `${nonce}=`)).toBe(false);
    expect(nonceMatches(nonce, '')).toBe(false);
  });

  // Expected nonces are the server's (base64url); what is received is anything a client sends,
  // lone surrogates included (UTF-8 encodes those as U+FFFD, never as an ASCII byte).
  const base64url = fc.string({ unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'), minLength: 1, maxLength: 32 });
  it('matches exactly the expected nonce, whatever string is received', () => {
    fc.assert(fc.property(base64url, fc.oneof(fc.string({ unit: 'binary' }), base64url), (expected, received) => {
      expect(nonceMatches(expected, received)).toBe(expected === received);
      expect(nonceMatches(expected, expected)).toBe(true);
    }), { numRuns: 1000 });
  });
});
