import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createDemoDirectiveRegistry } from '../../src/app/index.ts';
import { runDirectives } from '../../src/directives/index.ts';
import { createSeededSource, emptyConversation, jsonEqual, sameForm, viewHasInputs, type ConversationIr, type Surface } from '../../src/ui-ir/index.ts';
import { validDirective, type Directive } from '../support/arbitraries-directives.ts';

/*
 * Issue 33 item 1: nothing a person typed is lost. What they type lives in their client until
 * they submit it, so a panel with inputs must come through every directive the same panel (same
 * epoch), showing the same form, with its draft and rev untouched: a new rev re-sends the panel,
 * which resets every client's fields to the draft on record. Only a directive aimed at that panel's
 * own fields changes them (ui.patch on it, ui.show_form of its form with values), and only ui.close
 * naming it removes it (the model closes a panel when the person asks it to; docs/directives.md,
 * "Drafts").
 */
const registry = createDemoDirectiveRegistry();

function inputPanels(ir: ConversationIr): Surface[] {
  return ir.surfaces.filter((s) => s.lifecycle !== 'deleted' && viewHasInputs(s.view));
}

/** The draft keys `d` may set on `panel` (as it is after `d`), or 'all' when it may remove the panel. */
function aimedAt(d: Directive, panel: Surface): Set<string> | 'all' {
  const p = d.payload as { surface?: string; template?: string; values?: Record<string, unknown>; ops?: Array<{ path?: string }> };
  if (d.type === 'ui.close' && p.surface === panel.id) return 'all';
  if (d.type === 'ui.patch' && (p.surface ?? 'main') === panel.id) {
    return new Set((p.ops ?? []).map((op) => /^\/draft\/([^/]+)/.exec(op.path ?? '')?.[1]).filter((k): k is string => k !== undefined));
  }
  if (d.type === 'ui.show_form' && p.template === panel.view.template) return new Set(Object.keys(p.values ?? {}));
  return new Set();
}

describe('drafts survive other panels', () => {
  it('property: no directive sequence drops, resets or re-sends a panel with inputs unless aimed at it', () => {
    fc.assert(fc.property(fc.array(validDirective(), { minLength: 1, maxLength: 14 }), fc.string({ maxLength: 8 }), (directives, seed) => {
      const source = createSeededSource(`drafts-${seed}`);
      let ir = emptyConversation('drafts');
      for (const d of directives) {
        const before = inputPanels(ir);
        const result = runDirectives(registry, ir, { directives: [d] }, { mode: 'strict', source });
        if (result.errors.length > 0) {
          expect(result.ir).toBe(ir);
          continue;
        }
        for (const panel of before) {
          const after = result.ir.surfaces.find((s) => s.id === panel.id)!;
          const aimed = aimedAt(d, panel);
          if (aimed === 'all') continue;
          expect(after.lifecycle, `${d.type} on ${panel.id}`).not.toBe('deleted');
          expect(after.epoch).toBe(panel.epoch);
          expect(sameForm(after.view, panel.view), `${d.type} replaced the form on ${panel.id}`).toBe(true);
          for (const [key, value] of Object.entries(panel.data.draft)) {
            if (!aimed.has(key)) expect(after.data.draft[key], `${d.type} changed ${panel.id}'s /draft/${key}`).toEqual(value);
          }
          // Re-sent only when aimed at it: its own fields set, or its own form asked for in new words.
          if (aimed.size === 0 && jsonEqual(after.view, panel.view)) expect(after.rev, `${d.type} re-sent ${panel.id}`).toBe(panel.rev);
        }
        ir = result.ir;
      }
    }), { numRuns: 300 });
  });
});
