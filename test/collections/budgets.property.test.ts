import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createDemoApp } from '../../src/app/index.ts';
import { jsonBytes, runDirectives, type DirectiveLimits } from '../../src/directives/index.ts';
import { createSeededSource, emptyConversation, listBlocks, listItems, type ConversationIr } from '../../src/ui-ir/index.ts';

/**
 * Property: whatever directives the model sends — the list directives, or a `ui.patch` writing a
 * list's path — no list ever holds more than `maxListItems` items or an item over
 * `maxListItemBytes` of JSON; a directive that would break a budget is refused as the canonical
 * DIRECTIVE_BUDGET_EXCEEDED, pointing into that directive, and changes nothing.
 */
const app = createDemoApp();
const IDS = ['a', 'b', 'c', 'd', 'e', 'f'] as const;
const arbItem = fc.record({ id: fc.constantFrom(...IDS), name: fc.string({ maxLength: 50 }) });
const arbItems = fc.uniqueArray(arbItem, { selector: (i) => i.id, minLength: 1, maxLength: IDS.length });
const LIST = { list: 'opts' };

const arbDirective = fc.oneof(
  arbItems.map((items) => ({ type: 'ui.show_list', payload: { ...LIST, title: 'Options', fields: [{ name: 'name', show: 'title' }], items } })),
  arbItems.map((items) => ({ type: 'ui.list_add', payload: { ...LIST, items } })),
  arbItems.map((items) => ({ type: 'ui.list_update', payload: { ...LIST, items } })),
  fc.uniqueArray(fc.constantFrom(...IDS), { minLength: 1 }).map((ids) => ({ type: 'ui.list_remove', payload: { ...LIST, ids } })),
  arbItems.map((items) => ({ type: 'ui.patch', payload: { ops: [{ op: 'replace', path: '/ui/lists/opts', value: items }] } })),
);

const arbLimits: fc.Arbitrary<Partial<DirectiveLimits>> = fc.record({
  maxListItems: fc.integer({ min: 1, max: 5 }), maxListItemBytes: fc.integer({ min: 20, max: 90 }),
});

function withinBudgets(ir: ConversationIr, limits: Required<Pick<DirectiveLimits, 'maxListItems' | 'maxListItemBytes'>>): void {
  for (const surface of ir.surfaces) {
    for (const block of listBlocks(surface.view)) {
      const { items } = listItems(surface, block);
      expect(items.length).toBeLessThanOrEqual(limits.maxListItems);
      for (const item of items) expect(jsonBytes(item.value)).toBeLessThanOrEqual(limits.maxListItemBytes);
    }
  }
}

describe('property: list budgets hold whatever the directives', () => {
  it('no list ever exceeds its item count or item size; a refusal is DIRECTIVE_BUDGET_EXCEEDED and changes nothing (500 runs)', () => {
    let refused = 0;
    let applied = 0;
    fc.assert(fc.property(arbLimits, fc.array(arbDirective, { minLength: 1, maxLength: 8 }), (limits, directives) => {
      const source = createSeededSource('budgets');
      let ir = emptyConversation('c1');
      for (const [n, directive] of directives.entries()) {
        const r = runDirectives(app.directives, ir, { directives: [directive] }, { mode: 'best_effort', source, limits });
        const budget = r.errors.filter((e) => e.code === 'DIRECTIVE_BUDGET_EXCEEDED');
        for (const e of budget) {
          expect(e.pointer, `${n}: ${e.technical_detail}`).toMatch(/^\/directives\/0(\/|$)/);
          expect(e).toMatchObject({ category: 'directive', severity: 'error', retryable: false });
        }
        if (r.errors.length > 0) expect(r.ir).toBe(ir);
        if (budget.length > 0) refused += 1;
        if (r.applied.length > 0) applied += 1;
        ir = r.ir;
        withinBudgets(ir, limits as Required<Pick<DirectiveLimits, 'maxListItems' | 'maxListItemBytes'>>);
      }
    }), { numRuns: 500 });
    expect(refused).toBeGreaterThan(100);
    expect(applied).toBeGreaterThan(100);
  });

  it('a ui.patch that would overfill a list is refused like the list directives', () => {
    const source = createSeededSource('budgets');
    const limits = { maxListItems: 2 };
    const shown = runDirectives(app.directives, emptyConversation('c1'), {
      directives: [{ type: 'ui.show_list', payload: { ...LIST, title: 'T', fields: [{ name: 'name' }], items: [{ id: 'a', name: 'A' }] } }],
    }, { mode: 'strict', source, limits });
    expect(shown.errors).toEqual([]);
    // Data pointers address maps; an array is a value, so a patch writes a list whole.
    const patch = { type: 'ui.patch', payload: { ops: [{ op: 'replace', path: '/ui/lists/opts', value: [{ id: 'a' }, { id: 'b' }, { id: 'c' }] }] } };
    const r = runDirectives(app.directives, shown.ir, { directives: [patch] }, { mode: 'strict', source, limits });
    expect(r.errors.map((e) => [e.code, e.pointer])).toEqual([['DIRECTIVE_BUDGET_EXCEEDED', '/directives/0']]);
    expect(r.errors[0]!.technical_detail).toContain('list "opts" of surface "main"');
    expect(r.ir).toBe(shown.ir);
  });
});
