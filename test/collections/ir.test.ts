import { describe, expect, it } from 'vitest';
import {
  commitSurface, ConversationIr, findShownItem, listItems, patchSurfaceData, SurfaceView, writeListItems, type ListBlock,
} from '../../src/ui-ir/index.ts';
import { ARIA, BO, CHARS, CY, DEE, listIr, listView } from './fixtures.ts';

describe('which stored entries a list has (ui-ir/collections.ts)', () => {
  it('keeps objects with a valid, first-seen key, in stored order, and shows the first maxItems', () => {
    const { ir } = listIr([ARIA, 'text', { name: 'no key' }, { id: 'has space' }, { id: 7 }, BO, { ...ARIA, name: 'again' }, CY, DEE]);
    const surface = ir.surfaces[0]!;
    const items = listItems(surface, CHARS);
    expect(items.items.map((i) => [i.key, i.index])).toEqual([['aria', 0], ['bo', 5], ['cy', 7], ['dee', 8]]);
    expect(items.invalid).toBe(5);
    expect(items.shown.map((i) => i.key)).toEqual(['aria', 'bo', 'cy']);
    expect(findShownItem(surface, 'chars', 'cy')?.index).toBe(7);
    expect(findShownItem(surface, 'chars', 'dee')).toBeUndefined(); // stored, but not shown: no button to press
    expect(findShownItem(surface, 'nope', 'aria')).toBeUndefined();
  });

  it('reads nothing but an array at the path, by own property', () => {
    const notAnArray = listIr([]).ir;
    const surface = { ...notAnArray.surfaces[0]!, data: { draft: {}, committed: {}, ui: { lists: { chars: { 0: ARIA } } } } };
    expect(listItems(surface, CHARS).items).toEqual([]);
    const proto: ListBlock = { ...CHARS, path: '/ui/lists/constructor' };
    expect(listItems(surface, proto).items).toEqual([]);
  });
});

describe('IR v1 list blocks', () => {
  const valid = (view: unknown): boolean => SurfaceView.safeParse(view).success;

  it('fills the defaults and accepts a list among other blocks', () => {
    const parsed = SurfaceView.parse({ template: 'x', title: 'X', actions: [], blocks: [{ kind: 'list', name: 'l', path: '/ui/l', display: [{ kind: 'text', field: 'name' }] }] });
    expect(parsed.blocks[0]).toEqual({
      kind: 'list', name: 'l', path: '/ui/l', itemKey: 'id', display: [{ kind: 'text', field: 'name', style: 'body' }], actions: [],
      empty: 'Nothing to show yet.', maxItems: 25,
    });
  });

  it('refuses two lists of one name, an item action that is also a view action, and paths it cannot own', () => {
    expect(valid(listView(CHARS, { blocks: [CHARS, { kind: 'group', layout: 'column', blocks: [CHARS] }] }))).toBe(false);
    expect(valid(listView(CHARS, { actions: [{ name: 'list.choose', label: 'Go', role: 'submit', primary: true }] }))).toBe(false);
    for (const path of ['/ui/toast', '/ui/toast/items', '/draft/items', '/ui/__proto__/x', '/ui/a.b', '/committed']) {
      expect(valid(listView({ ...CHARS, path })), path).toBe(false);
    }
    expect(valid(listView({ ...CHARS, maxItems: 201 }))).toBe(false);
    expect(valid(listView({ ...CHARS, display: [] }))).toBe(false);
    expect(valid(listView(CHARS))).toBe(true);
  });

  it('keeps the generated IR valid', () => {
    expect(ConversationIr.safeParse(listIr([ARIA, BO]).ir).success).toBe(true);
  });
});

describe('list data and the rev', () => {
  it('writeListItems stores the array at the list path (ui or committed) and bumps rev', () => {
    const { ir, next } = listIr([ARIA]);
    const written = writeListItems(ir, 'main', 'chars', [ARIA, BO], next());
    expect(written.ok && written.ir.surfaces[0]!.rev).toBe(1);
    expect(written.ok && written.ir.surfaces[0]!.data.ui).toEqual({ lists: { chars: [ARIA, BO] } });
    const committedList: ListBlock = { ...CHARS, path: '/committed/saved' };
    const { ir: c } = listIr([], committedList);
    const saved = writeListItems(c, 'main', 'chars', [CY], next());
    expect(saved.ok && saved.ir.surfaces[0]!.data.committed).toEqual({ saved: [CY] });
    expect(writeListItems(ir, 'main', 'nope', [], next())).toMatchObject({ ok: false, error: { code: 'IR_POINTER_INVALID' } });
    expect(writeListItems(ir, 'side', 'chars', [], next())).toMatchObject({ ok: false, error: { code: 'IR_SURFACE_NOT_FOUND' } });
  });

  it('a /ui patch that reaches a list (at or above its path) bumps rev; one beside it does not; one inside its array is refused', () => {
    const { ir, next } = listIr([ARIA]);
    const revAfter = (keys: string[]): number => {
      const r = patchSurfaceData(ir, 'main', [{ op: 'replace', namespace: 'ui', keys, value: [] }], next());
      return r.ok ? r.ir.surfaces[0]!.rev : -1;
    };
    expect(revAfter(['lists', 'chars'])).toBe(1);
    expect(revAfter(['lists'])).toBe(1);
    expect(revAfter(['lists', 'chars', 'x'])).toBe(-1); // into the array by position: refused (IR_POINTER_INVALID)
    expect(revAfter(['lists', 'other'])).toBe(0);
    expect(revAfter(['status'])).toBe(0);
  });

  it('a commit bumps rev whatever it writes (lists under /committed included)', () => {
    const { ir, next } = listIr([ARIA]);
    const r = commitSurface(ir, 'main', { draft: {}, committed: { x: 1 } }, next());
    expect(r.ok && r.ir.surfaces[0]!.rev).toBe(1);
  });
});
