import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { createDemoDirectiveRegistry } from '../../src/app/index.ts';
import {
  runDirectives, runModelOutput, safeParseModelOutput, validateBatch, validateModelOutput,
} from '../../src/directives/index.ts';
import { ConversationIr, createSeededSource, emptyConversation, type ConversationIr as Ir } from '../../src/ui-ir/index.ts';
import {
  deepFreeze, nonCanonicalVariant, validDirectiveEnvelope, wrapping,
} from '../support/arbitraries-directives.ts';

const registry = createDemoDirectiveRegistry();
const RUNS = { numRuns: 150 };

/** Fragments that steer random text into the parser's interesting paths. */
const jsonish = fc.array(fc.constantFrom(
  '{', '}', '[', ']', '"', '\u201C', '\u201D', ',', ':', '\\', '```', '```json\n', 'directives', '"directives":', '"type":',
  '"ui.toast"', '"payload":', '\uFEFF', ' ', '\n', '1', 'true', 'null', '"__proto__"', 'assistantText', '~',
), { maxLength: 60 }).map((parts) => parts.join(''));

describe('directive properties', () => {
  fcTest.prop([validDirectiveEnvelope()], RUNS)('the arbitraries are canonical: strict validation has nothing to say', (envelope) => {
    const r = validateBatch(registry, envelope, { mode: 'strict' });
    expect(r.errors).toEqual([]);
    expect(r.warnings).toEqual([]);
  });

  fcTest.prop([fc.array(validDirectiveEnvelope(), { maxLength: 6 }), fc.constantFrom('strict', 'best_effort' as const)], RUNS)(
    'any sequence of valid directives yields a valid IR; inputs are never mutated; strict is all-or-nothing',
    (envelopes, mode) => {
      const source = createSeededSource('prop');
      let ir: Ir = deepFreeze(emptyConversation('prop'));
      for (const envelope of envelopes) {
        const frozen = deepFreeze(structuredClone(envelope));
        const r = runDirectives(registry, ir, frozen, { mode: mode as 'strict' | 'best_effort', source });
        expect(ConversationIr.safeParse(r.ir).error?.issues ?? []).toEqual([]);
        if (mode === 'strict') {
          if (r.errors.length > 0) expect(r.ir).toBe(ir);
          else expect(r.applied).toHaveLength(envelope.directives.length);
        }
        ir = deepFreeze(r.ir);
      }
    },
  );

  fcTest.prop([validDirectiveEnvelope(), wrapping()], RUNS)('the parser recovers the same directives from any wrapping', (envelope, w) => {
    const r = safeParseModelOutput(w.wrap(JSON.stringify(envelope)));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.envelope.directives).toEqual(envelope.directives);
    expect(r.envelope.assistant_text).toEqual(envelope.assistant_text);
    expect(r.warnings.map((x) => x.code)).toEqual(['DIRECTIVE_WARN_TEXT_REPAIRED']);
  });

  fcTest.prop([fc.oneof(fc.string({ unit: 'grapheme', maxLength: 300 }), fc.string({ unit: 'binary', maxLength: 300 }), jsonish)], { numRuns: 400 })(
    'best-effort never throws on arbitrary strings and keeps the IR valid',
    (text) => {
      const ir = deepFreeze(emptyConversation('fuzz'));
      const r = runModelOutput(registry, ir, text, { mode: 'best_effort', source: createSeededSource('f') });
      expect(ConversationIr.safeParse(r.ir).success).toBe(true);
      for (const e of [...r.errors, ...r.warnings]) expect(typeof e.pointer).toBe('string');
    },
  );

  fcTest.prop([fc.oneof(fc.jsonValue({ maxDepth: 6 }), fc.anything({ maxDepth: 4 }), fc.record({ directives: fc.array(fc.jsonValue({ maxDepth: 4 }), { maxLength: 5 }) }))], { numRuns: 400 })(
    'best-effort never throws on arbitrary JSON and keeps the IR valid',
    (value) => {
      const ir = deepFreeze(emptyConversation('fuzz'));
      const r = runDirectives(registry, ir, value, { mode: 'best_effort', source: createSeededSource('f') });
      expect(ConversationIr.safeParse(r.ir).success).toBe(true);
    },
  );

  fcTest.prop([nonCanonicalVariant()], { numRuns: 300 })('strict mode rejects every non-canonical input; best-effort reads it', (variant) => {
    const ir = deepFreeze(emptyConversation('nc'));
    const strict = runModelOutput(registry, ir, variant.text, { mode: 'strict', source: createSeededSource('n') });
    expect(strict.errors.map((e) => e.code), variant.kind).toContain('DIRECTIVE_NON_CANONICAL');
    expect(strict.ir).toBe(ir);
    expect(strict.applied).toEqual([]);
    const best = validateModelOutput(registry, variant.text, { mode: 'best_effort' });
    expect(best.errors, variant.kind).toEqual([]);
    expect(best.warnings.length, variant.kind).toBeGreaterThan(0);
  });
});
