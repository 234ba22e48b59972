import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkSurfaceGuardrails, DEFAULT_A2UI_LIMITS } from '../../src/compiler/a2ui-shared/index.ts';
import { LineSizes } from '../../src/compiler/a2ui-shared/guardrails.ts';

/**
 * The byte guardrails count a line's UTF-8 bytes only when `3 × length` could exceed a limit
 * (LineSizes). Held to the eager rule: the same findings, with the same numbers, as counting
 * every line, on lines of any text (ASCII, 2-, 3- and 4-byte characters, lone surrogates) and
 * limits around their sizes; and the exact sizes are what Buffer.byteLength says.
 */
const text = fc.string({ unit: fc.oneof(fc.constantFrom('a', '"', 'é', '€', '😀', '\uD800'), fc.string({ unit: 'binary', maxLength: 1 })), maxLength: 40 });
const lines = fc.array(text.map((t) => JSON.stringify({ t })), { maxLength: 6 });

function eager(ls: readonly string[], limits: typeof DEFAULT_A2UI_LIMITS): string[] {
  const out: string[] = [];
  let total = 0;
  ls.forEach((line, i) => {
    const bytes = Buffer.byteLength(line, 'utf8');
    total += bytes;
    if (bytes > limits.maxBytesPerMessage) out.push(`A2UI_S2C_MESSAGE_TOO_LARGE message ${i} is ${bytes} bytes, more than ${limits.maxBytesPerMessage}`);
  });
  if (total > limits.maxBytesPerSurface) out.push(`A2UI_S2C_SURFACE_TOO_LARGE the batch is ${total} bytes, more than ${limits.maxBytesPerSurface}`);
  return out;
}

describe('LineSizes: byte guardrails counted on demand', () => {
  it('same findings and numbers as counting every line (2,000 runs)', () => {
    fc.assert(fc.property(lines, fc.nat({ max: 200 }), fc.nat({ max: 600 }), (ls, perMessage, perSurface) => {
      const limits = { ...DEFAULT_A2UI_LIMITS, maxBytesPerMessage: perMessage, maxBytesPerSurface: perSurface };
      const sizes = new LineSizes(ls);
      const found = checkSurfaceGuardrails({ lineSizes: sizes, componentCount: 0, depth: undefined, model: {} }, limits)
        .map((e) => `${e.code} ${e.technical_detail}`);
      expect(found).toEqual(eager(ls, limits));
      expect(sizes.totalBytes()).toBe(ls.reduce((n, l) => n + Buffer.byteLength(l, 'utf8'), 0));
      ls.forEach((line, i) => expect(sizes.bytes(i)).toBeLessThanOrEqual(sizes.upperBound(i)));
    }), { numRuns: 2000 });
  });
});
