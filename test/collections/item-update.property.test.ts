import fc from 'fast-check';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import {
  compileA2uiUpdate, compileA2uiV09Update, compileConversationToA2ui, compileConversationToA2uiV09,
  type A2uiCompileResult, type A2uiV09CompileResult,
} from '../../src/compiler/index.ts';
import { writeListItems, type DataValue } from '../../src/ui-ir/index.ts';
import { feed as feedV09, newOracle, visibleState as visibleV09 } from '../support/a2ui-v0_9-oracle.ts';
import { feed, newProcessor, silenceWc, visibleState } from '../compiler/a2ui-v0_8/wc-oracle.ts';
import { CHARS, listIr } from './fixtures.ts';

/**
 * Stable item keys, as a property: in a list of any length, changing one item (any field, any
 * text) sends that item's data and nothing else — its stored entry at its index and, when the
 * list shows it, its display entry at its index — plus the item Buttons (their context carries
 * the new rev). No template component, no other item, no new surface; and the client that
 * followed the update holds what a fresh init gives (official processors of both versions).
 */
beforeEach(() => {
  silenceWc();
  return () => { vi.restoreAllMocks(); };
});

const ITEM_BUTTON = /^main\.l-chars\.a\d+-[a-z_]+(\.label\.Text|\.Button)$/;

const arbEdit = fc.integer({ min: 1, max: 30 }).chain((n) => fc.record({
  n: fc.constant(n),
  at: fc.nat({ max: n - 1 }),
  field: fc.constantFrom('name', 'tagline', 'genre', 'avatar', 'extra'),
  text: fc.string({ maxLength: 40 }),
}));

function scenario(e: { n: number; at: number; field: string; text: string }) {
  const items: Array<Record<string, DataValue>> = Array.from({ length: e.n }, (_, i) => ({ id: `i${i}`, name: `Item ${i}`, genre: 'g' }));
  const { ir, next } = listIr(items);
  const edited = items.map((item, i) => (i === e.at ? { ...item, [e.field]: `~${e.text}` } : item));
  const r = writeListItems(ir, 'main', 'chars', edited, next());
  if (!r.ok) throw new Error(r.error.technical_detail);
  const shown = e.at < CHARS.maxItems;
  // A field the list does not display (`extra`; `avatar` shows only http(s) URLs) changes the stored entry only.
  const displayed = shown && ['name', 'tagline', 'genre'].includes(e.field);
  const expected = [`/ui/lists/chars/${e.at}`, ...(displayed ? [`/view/l-chars/items/${e.at}`] : [])];
  return { before: ir, after: r.ir, expected };
}

function okV08(r: A2uiCompileResult) {
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.batches.flatMap((b) => b.messages);
}
function okV09(r: A2uiV09CompileResult) {
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.batches.flatMap((b) => b.messages);
}

describe('property: an update of one item sends only that item', () => {
  it('v0.8: one item\'s map written at its key; no template, no rebuild; WC ends where a fresh init starts (200 runs)', () => {
    fc.assert(fc.property(arbEdit, (e) => {
      const { before, after, expected } = scenario(e);
      const messages = okV08(compileA2uiUpdate(before, after));
      expect(messages.filter((m) => 'deleteSurface' in m || 'beginRendering' in m)).toEqual([]);
      expect(messages.flatMap((m) => ('surfaceUpdate' in m ? m.surfaceUpdate.components.map((c) => c.id) : [])).filter((id) => !ITEM_BUTTON.test(id))).toEqual([]);
      expect(messages.flatMap((m) => ('dataModelUpdate' in m ? [m.dataModelUpdate.path] : []))).toEqual(expected);
      const followed = newProcessor();
      feed(followed, okV08(compileConversationToA2ui(before)));
      feed(followed, messages);
      const fresh = newProcessor();
      feed(fresh, okV08(compileConversationToA2ui(after)));
      expect(visibleState(followed)).toBe(visibleState(fresh));
    }), { numRuns: 200 });
    // The official processor runs twice per case: 30 s was too short on a busy 2-core machine (36.8 s).
  }, 120_000);

  it('v0.9: one array element written at its index; no template, no new surface; the official processor agrees with a fresh init (200 runs)', () => {
    fc.assert(fc.property(arbEdit, (e) => {
      const { before, after, expected } = scenario(e);
      const messages = okV09(compileA2uiV09Update(before, after));
      expect(messages.filter((m) => 'deleteSurface' in m || 'createSurface' in m)).toEqual([]);
      expect(messages.flatMap((m) => ('updateComponents' in m ? m.updateComponents.components.map((c) => c.id) : [])).filter((id) => !ITEM_BUTTON.test(id))).toEqual([]);
      expect(messages.flatMap((m) => ('updateDataModel' in m ? [m.updateDataModel.path] : []))).toEqual(expected);
      const followed = newOracle();
      feedV09(followed, okV09(compileConversationToA2uiV09(before)));
      feedV09(followed, messages);
      const fresh = newOracle();
      feedV09(fresh, okV09(compileConversationToA2uiV09(after)));
      expect(visibleV09(followed)).toBe(visibleV09(fresh));
    }), { numRuns: 200 });
  }, 120_000);
});
