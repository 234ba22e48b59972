import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  compileA2uiUpdate, compileConversationToA2ui, compileSurfaceToA2ui, validateA2uiMessages,
} from '../../../src/compiler/index.ts';
import {
  addToast, closeSurface, commitSurface, openSurface, patchSurfaceData, resetSurfaceEpoch,
  type ConversationIr, type TransitionResult,
} from '../../../src/ui-ir/index.ts';
import { arbConversationIr } from '../../support/arbitraries-ir.ts';
import { componentsOf, FIELDS, kinds, ok, only, open, view } from './fixtures.ts';
import { hasRootOrDraftReplace } from './invariants.ts';
import { dataModelOf, feed, newProcessor, silenceWc, visibleState } from './wc-oracle.ts';

beforeEach(silenceWc);
afterEach(() => { vi.restoreAllMocks(); });

function must(r: TransitionResult): ConversationIr {
  if (!r.ok) throw new Error(r.error.technical_detail);
  return r.ir;
}

/** Applies prev's full init then the update to WC, and checks it equals a fresh init of next. */
function roundTrip(prev: ConversationIr, next: ConversationIr) {
  const processor = newProcessor();
  for (const b of ok(compileConversationToA2ui(prev))) feed(processor, b.messages);
  const batches = ok(compileA2uiUpdate(prev, next));
  for (const b of batches) feed(processor, b.messages);
  const fresh = newProcessor();
  for (const b of ok(compileConversationToA2ui(next))) feed(fresh, b.messages);
  expect(visibleState(processor)).toBe(visibleState(fresh));
  return { batches, processor };
}

describe('compileA2uiUpdate: the smallest correct update', () => {
  it('sends nothing when nothing changed', () => {
    const { ir } = open();
    expect(ok(compileA2uiUpdate(ir, ir))).toEqual([]);
  });

  it('a model patch of /draft is one leaf message; it never replaces /draft and keeps what the user typed', () => {
    const { ir, draw } = open();
    const next = must(patchSurfaceData(ir, 'main', [{ op: 'replace', namespace: 'draft', keys: ['name'], value: 'Ada' }], draw()));
    const processor = newProcessor();
    for (const b of ok(compileConversationToA2ui(ir))) feed(processor, b.messages);
    // The user types into another field before the update arrives.
    const node = { id: 'x', dataContextPath: '/', weight: 1, type: 'Text', properties: {} } as never;
    processor.setData(node, '/draft/bio', 'typed by the user', 'main--e0');
    const batch = only(compileA2uiUpdate(ir, next));
    expect(batch.kind).toBe('update');
    // rev went 0 → 1: only the buttons (and their labels, for closure) are re-sent.
    expect(kinds(batch.messages)).toEqual(['surfaceUpdate', 'dataModelUpdate']);
    expect(componentsOf(batch.messages).map((c) => c.id)).toEqual([
      'main.a0-form_submit.label.Text', 'main.a0-form_submit.Button', 'main.a1-form_cancel.label.Text', 'main.a1-form_cancel.Button',
    ]);
    expect(batch.messages[1]).toEqual({ dataModelUpdate: { surfaceId: 'main--e0', path: '/draft/name', contents: [{ key: '.', valueString: 'Ada' }] } });
    expect(hasRootOrDraftReplace(batch.messages)).toBe(false);
    feed(processor, batch.messages);
    expect(dataModelOf(processor, 'main--e0')).toMatchObject({ draft: { name: 'Ada', bio: 'typed by the user' } });
  });

  it('a /ui change replaces the smallest enclosing map; a toast updates /ui/toast only', () => {
    const { ir, draw } = open();
    const t1 = addToast(ir, { level: 'info', text: 'One', surfaceId: 'main' }, draw());
    const t2 = addToast(t1, { level: 'error', text: 'Two', surfaceId: 'main' }, draw());
    const { batches } = roundTrip(t1, t2);
    expect(batches[0]!.messages).toEqual([{ dataModelUpdate: { surfaceId: 'main--e0', path: '/ui/toast', contents: [
      { key: 'id', valueString: 'n2' }, { key: 'level', valueString: 'error' }, { key: 'text', valueString: 'Two' },
    ] } }]);
    // The first toast adds the caption component and its data.
    const first = roundTrip(ir, t1).batches[0]!;
    expect(componentsOf(first.messages).map((c) => c.id)).toContain('main.toast.Text');
  });

  it('a submit updates /committed (narrow path) and the value blocks that show it', () => {
    const blocks = [...FIELDS, { kind: 'value' as const, label: 'Saved tags', path: '/committed/tags' }];
    const { ir, draw } = open('main', view(blocks));
    const next = must(commitSurface(ir, 'main', { draft: { tags: 'a, b' }, committed: { tags: ['a', 'b'], name: 'Ada' } }, draw()));
    const { batches, processor } = roundTrip(ir, next);
    const data = batches[0]!.messages.filter((m) => 'dataModelUpdate' in m);
    expect(data.map((m) => ('dataModelUpdate' in m ? m.dataModelUpdate.path : ''))).toEqual(['/draft/tags', '/committed', '/view']);
    expect(hasRootOrDraftReplace(batches[0]!.messages)).toBe(false);
    expect(dataModelOf(processor, 'main--e0')).toMatchObject({ committed: { name: 'Ada', tags: { 0: 'a', 1: 'b' } }, view: { b14: 'a, b' } });
  });

  it('a changed view re-sends the full closed component set, and data for new fields only', () => {
    const { ir, draw } = open('main', view(FIELDS.slice(0, 2)), { name: 'Ada' });
    const next = openSurface(ir, { id: 'main', view: view(FIELDS.slice(0, 3)), draft: { name: 'Ada' } }, draw());
    const { batches } = roundTrip(ir, next);
    const batch = batches[0]!;
    expect(batch.kind).toBe('update');
    const su = batch.messages[0]!;
    expect('surfaceUpdate' in su && su.surfaceUpdate.components.length).toBe(componentsOf(only(compileSurfaceToA2ui(next.surfaces[0]!)).messages).length);
    expect(batch.messages.slice(1)).toEqual([{ dataModelUpdate: { surfaceId: 'main--e0', path: '/draft/age', contents: [{ key: '.', valueString: '' }] } }]);
    expect(validateA2uiMessages(batch.messages, { incremental: true })).toEqual([]);
  });

  it('removed data keys (new tombstones) → deleteSurface + full rebuild under the same id', () => {
    const { ir, draw } = open('main', view(), { name: 'Ada', extra: 'x' });
    const next = must(patchSurfaceData(ir, 'main', [{ op: 'remove', namespace: 'draft', keys: ['extra'] }], draw()));
    const { batches } = roundTrip(ir, next);
    expect(batches[0]!.kind).toBe('init');
    expect(kinds(batches[0]!.messages)[0]).toBe('deleteSurface');
    expect(batches[0]!.messages[0]).toEqual({ deleteSurface: { surfaceId: 'main--e0' } });
    expect(batches[0]!.messages.at(-1)).toMatchObject({ beginRendering: { surfaceId: 'main--e0' } });
  });

  it('an epoch change deletes the old A2UI surface and initialises the new id', () => {
    const { ir, draw } = open();
    const next = must(resetSurfaceEpoch(ir, 'main', draw()));
    const { batches, processor } = roundTrip(ir, next);
    expect(batches[0]!.a2uiSurfaceId).toBe('main--e1');
    expect(batches[0]!.messages[0]).toEqual({ deleteSurface: { surfaceId: 'main--e0' } });
    expect([...processor.getSurfaces().keys()]).toEqual(['main--e1']);
  });

  it('an epoch change whose new init fails still deletes the old A2UI surface (fallback, response too large)', () => {
    const { ir, draw } = open();
    const next = must(resetSurfaceEpoch(ir, 'main', draw()));
    const runs: [string, Parameters<typeof compileA2uiUpdate>[2], number][] = [
      ['surface fallback', { limits: { maxComponentsPerSurface: 3 } }, 4],
      ['response too large', { limits: { maxBytesPerResponse: 200 } }, 1],
    ];
    for (const [label, options, count] of runs) {
      const batch = only(compileA2uiUpdate(ir, next, options));
      expect(batch.kind, label).toBe('fallback');
      expect(batch.a2uiSurfaceId).toBe('main--e1');
      expect(batch.messages, label).toHaveLength(count);
      expect(batch.stats.messages).toBe(count);
      expect(batch.lines).toEqual(batch.messages.map((m) => JSON.stringify(m)));
      expect(batch.messages[0], label).toEqual({ deleteSurface: { surfaceId: 'main--e0' } });
      expect(validateA2uiMessages(batch.messages), label).toEqual([]);
      const processor = newProcessor();
      feed(processor, ok(compileConversationToA2ui(ir)).flatMap((b) => b.messages), `${label} init`);
      feed(processor, batch.messages, label);
      expect([...processor.getSurfaces().keys()], label).toEqual(count === 1 ? [] : ['main--e1']);
    }
  });

  it('a toast added by an update reaches the data model Markdown-escaped', () => {
    const { ir, draw } = open();
    const next = addToast(ir, { level: 'info', text: '**bold** [x](http://e)', surfaceId: 'main' }, draw());
    const { processor } = roundTrip(ir, next);
    expect(dataModelOf(processor, 'main--e0')).toMatchObject({ ui: { toast: { text: '\\*\\*bold\\*\\* \\[x\\](http://e)' } } });
  });

  it('lifecycle deleted → deleteSurface; a reopened surface starts a new epoch', () => {
    const { ir, draw } = open();
    const closed = must(closeSurface(ir, 'main', draw()));
    expect(only(compileA2uiUpdate(ir, closed))).toMatchObject({ kind: 'delete', messages: [{ deleteSurface: { surfaceId: 'main--e0' } }] });
    expect(ok(compileA2uiUpdate(closed, closed))).toEqual([]);
    const reopened = openSurface(closed, { id: 'main', view: view() }, draw());
    expect(only(compileA2uiUpdate(closed, reopened))).toMatchObject({ kind: 'init', a2uiSurfaceId: 'main--e1' });
  });

  it('re-initialises surfaces listed in `reinit` (e.g. after a fallback)', () => {
    const { ir } = open();
    const batch = only(compileA2uiUpdate(ir, ir, { reinit: ['main'] }));
    expect(batch.kind).toBe('init');
    expect(batch.messages[0]).toEqual({ deleteSurface: { surfaceId: 'main--e0' } });
  });

  it('without a previous IR, every live surface is initialised', () => {
    const { ir } = open();
    expect(only(compileA2uiUpdate(undefined, ir)).kind).toBe('init');
  });
});

describe('ids', () => {
  it('are stable across recompiles of the same IR and never change type across any two views', () => {
    fc.assert(fc.property(arbConversationIr, arbConversationIr, (a, b) => {
      const first = ok(compileConversationToA2ui(a));
      expect(ok(compileConversationToA2ui(structuredClone(a)))).toEqual(first);
      const types = new Map<string, string>();
      for (const ir of [a, b]) {
        for (const batch of ok(compileConversationToA2ui(ir))) {
          for (const c of componentsOf(batch.messages)) {
            const type = Object.keys(c.component)[0]!;
            expect(c.id.endsWith(`.${type}`)).toBe(true);
            expect(types.get(c.id) ?? type).toBe(type);
            types.set(c.id, type);
          }
        }
      }
    }), { numRuns: 200 });
  });
});
