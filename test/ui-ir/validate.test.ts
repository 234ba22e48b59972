import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { CHARACTER_CARD, templateView } from '../../src/app/index.ts';
import {
  addToast, commitSurface, ConversationIr, createSeededSource, draw, emptyConversation, isValidConversationIr, MAX_SURFACES,
  MAX_TOASTS, openSurface, type ConversationIr as Ir, type Surface,
} from '../../src/ui-ir/index.ts';
import { deepFreeze } from '../support/arbitraries-directives.ts';
import { applyTransitions, arbTransitionSequence } from '../support/arbitraries-ir.ts';
import { arbEdit, arbValue, edited } from '../support/ir-edits.ts';

/**
 * isValidConversationIr is ConversationIr.safeParse memoised by object identity (plus a fast
 * path for plain data maps). These properties check that it agrees with the full parse: on IRs
 * built by generated transitions (each IR sharing most of its objects with the one before, as
 * the action path sees them), and on those IRs with one part replaced, copy-on-write, by a
 * value that may or may not be valid.
 */
const full = (ir: unknown): boolean => ConversationIr.safeParse(ir).success;

describe('isValidConversationIr', () => {
  fcTest.prop([fc.record({
    id: fc.oneof(fc.constantFrom('t1', 'a_b-9', 'T1', '', 'x'.repeat(41)), fc.string({ maxLength: 42 }), fc.integer()),
    role: fc.oneof(fc.constantFrom('user', 'assistant', 'system', 'robot', 'constructor'), fc.anything()),
    text: fc.oneof(fc.string({ maxLength: 10 }), fc.constant('x'.repeat(20_001)), fc.constant(null)),
    at: fc.oneof(fc.constantFrom('2026-01-01T00:00:00Z', '2026-01-01T00:00:00.123Z', '2026-01-01', '2026-01-01T00:00:00.1234Z'), fc.string({ maxLength: 30 })),
  }, { requiredKeys: [] })], { numRuns: 500 })('a transcript entry is accepted exactly when the schema accepts it', (entry) => {
    const ir = { ...emptyConversation('c1'), transcript: [entry] };
    expect(isValidConversationIr(ir)).toBe(full(ir));
  });

  fcTest.prop([fc.array(fc.tuple(fc.nat(3), arbValue, fc.boolean()), { minLength: 1, maxLength: 25 })], { numRuns: 300 })(
    'a transcript grown by appends is checked by its new entries, and still agrees with the full parse',
    (steps) => {
      let ir: Ir = emptyConversation('c1');
      let n = 0;
      for (const [grow, odd, bad] of steps) {
        const added: unknown[] = Array.from({ length: grow }, () => ({ id: `t${n += 1}`, role: 'user', text: 'hi', at: '2026-01-01T00:00:00.000Z' }));
        // Sometimes the new entry is not one (any value): the grown transcript must fail like the full parse says.
        if (bad) added.push(odd);
        const next = { ...ir, transcript: [...ir.transcript, ...added] } as Ir;
        expect(isValidConversationIr(next)).toBe(full(next));
        if (full(next)) ir = next;
      }
    },
  );

  fcTest.prop([arbTransitionSequence, fc.array(arbEdit, { maxLength: 6 })], { numRuns: 300 })(
    'agrees with ConversationIr.safeParse on generated transitions and on edits of them',
    (ops, edits) => {
      const irs = applyTransitions(ops).map((ir) => deepFreeze(ir));
      for (const ir of irs) expect(isValidConversationIr(ir)).toBe(full(ir));
      const last = irs.at(-1)!;
      for (const edit of edits) {
        const candidate = edited(last, edit);
        expect(isValidConversationIr(candidate)).toBe(full(candidate));
        // Asking twice (now partly memoised) gives the same answer.
        expect(isValidConversationIr(candidate)).toBe(full(candidate));
      }
    },
  );

  fcTest.prop([arbTransitionSequence, fc.array(arbEdit, { maxLength: 6 })], { numRuns: 300 })(
    'checked against the IR it was made from (nothing remembered but that IR), it still agrees with the full parse',
    (ops, edits) => {
      const irs = applyTransitions(ops).map((ir) => deepFreeze(ir));
      // Each IR against the one before, as actions and directives check them: parts are trusted
      // only when they are the predecessor's own.
      let previous: Ir | undefined;
      for (const ir of irs) {
        expect(isValidConversationIr(ir, previous)).toBe(full(ir));
        previous = ir;
      }
      const last = irs.at(-1)!;
      for (const edit of edits) {
        const candidate = edited(last, edit);
        expect(isValidConversationIr(candidate, last)).toBe(full(candidate));
      }
    },
  );

  it('trusts a predecessor only once it was found valid, and a changed part never', () => {
    const ir = opened();
    const s = ir.surfaces[0]!;
    const invalid = { ...ir, surfaces: [{ ...s, data: { ...s.data, draft: { name: Number.NaN } } }] };
    expect(isValidConversationIr(invalid)).toBe(false);
    // Its surface (with the bad draft) again, beside a valid one: not trusted for being the predecessor's.
    const next = { ...invalid, seq: invalid.seq + 1 };
    expect(isValidConversationIr(next, invalid)).toBe(false);
    expect(isValidConversationIr(ir)).toBe(true);
    // A surface moved to another index, and a toast kept while the oldest is dropped, are the predecessor's own.
    const two = { ...ir, surfaces: [s, { ...s, id: 'second' }] };
    expect(isValidConversationIr(two, ir)).toBe(true);
    const swapped = { ...two, surfaces: [two.surfaces[1]!, s] };
    expect(isValidConversationIr(swapped, two)).toBe(true);
    // The same id twice is refused whatever the predecessor was.
    expect(isValidConversationIr({ ...two, surfaces: [s, s] }, two)).toBe(false);
    // A changed data map under a shared view is checked.
    const changed = { ...two, surfaces: [{ ...s, data: { ...s.data, committed: { name: Number.POSITIVE_INFINITY } } }, two.surfaces[1]!] };
    expect([isValidConversationIr(changed, two), full(changed)]).toEqual([false, false]);
  });

  fcTest.prop([arbValue], { numRuns: 500 })('agrees on arbitrary data maps (including the fast path)', (value) => {
    const ir = opened();
    const s = ir.surfaces[0]!;
    for (const data of [
      { ...s.data, draft: value }, { ...s.data, committed: { name: value } }, { ...s.data, ui: { toast: { id: 'n1', text: value } } },
    ]) {
      const candidate = { ...ir, surfaces: [{ ...s, data }] };
      expect(isValidConversationIr(candidate)).toBe(full(candidate));
    }
  });

  it('keeps the list bounds and the unique-id rule', () => {
    const ir = opened();
    const s = ir.surfaces[0]!;
    const many = (n: number): Surface[] => Array.from({ length: n }, (_, i) => ({ ...s, id: `s${i}` }));
    expect(isValidConversationIr({ ...ir, surfaces: many(MAX_SURFACES) })).toBe(true);
    expect(isValidConversationIr({ ...ir, surfaces: many(MAX_SURFACES + 1) })).toBe(false);
    expect(isValidConversationIr({ ...ir, surfaces: [s, { ...s }] })).toBe(false);
    let toasted = ir;
    for (let i = 0; i < MAX_TOASTS + 1; i++) toasted = addToast(toasted, { level: 'info', text: `t${i}` }, { now: s.updatedAt });
    expect(toasted.toasts).toHaveLength(MAX_TOASTS);
    expect(isValidConversationIr(toasted)).toBe(true);
    const tooMany = { ...toasted, toasts: [...toasted.toasts, { ...toasted.toasts[0]!, id: 'n99' }] };
    expect([isValidConversationIr(tooMany), full(tooMany)]).toEqual([false, false]);
  });

  it('re-checks only what changed, and a changed part is checked, not trusted', () => {
    const ir = opened();
    expect(isValidConversationIr(ir)).toBe(true);
    const committed = commitSurface(ir, 'main', { draft: { name: 'B' }, committed: { name: 'B' } }, { now: '2026-01-01T00:00:09.000Z' });
    expect(committed.ok && isValidConversationIr(committed.ir)).toBe(true);
    if (!committed.ok) return;
    const s = committed.ir.surfaces[0]!;
    const bad = { ...committed.ir, surfaces: [{ ...s, data: { ...s.data, draft: { ...s.data.draft, name: Number.NaN } } }] };
    expect(isValidConversationIr(bad)).toBe(false);
    expect(isValidConversationIr({ ...committed.ir, seq: -1 })).toBe(false);
  });
});

function opened(): Ir {
  const source = createSeededSource('validate');
  return openSurface(emptyConversation('v'), { id: 'main', view: templateView(CHARACTER_CARD), draft: { name: 'A' } }, draw(source));
}
