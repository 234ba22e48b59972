import { describe, expect, it } from 'vitest';
import { createDemoApp, DEMO_ITEM_ACTIONS } from '../../src/app/index.ts';
import { createListDirectives } from '../../src/collections/index.ts';
import {
  createDirectiveRegistry, DEFAULT_LIMITS, directiveJsonSchema, payloadJsonSchema, runDirectives, type RunResult,
} from '../../src/directives/index.ts';
import { fromStrictValue, toStrictValue } from '../../src/llm/index.ts';
import {
  commitSurface, createSeededSource, emptyConversation, findSurface, listBlocks, listItems, openSurface, draw, type ConversationIr,
} from '../../src/ui-ir/index.ts';
import { CHARS } from './fixtures.ts';

const app = createDemoApp();
const source = createSeededSource('list-directives');

function run(ir: ConversationIr, directives: unknown[], options: { mode?: 'strict' | 'best_effort'; limits?: Partial<typeof DEFAULT_LIMITS> } = {}): RunResult {
  return runDirectives(app.directives, ir, { directives }, { mode: options.mode ?? 'strict', source, ...(options.limits ? { limits: options.limits } : {}) });
}

const SHOW = {
  type: 'ui.show_list',
  payload: {
    title: 'Options', list: 'opts', fields: [{ name: 'name', show: 'title' }, { name: 'price', show: 'value', label: 'Price' }],
    actions: [{ name: 'list.choose', label: 'Pick', primary: true }],
    items: [{ id: 'a', name: 'Alpha', price: 3 }, { id: 'b', name: 'Beta', price: 5 }],
  },
};

function keysOf(ir: ConversationIr, surface = 'main'): string[] {
  const s = findSurface(ir, surface)!;
  return listItems(s, listBlocks(s.view)[0]!).items.map((i) => i.key);
}

describe('ui.show_list', () => {
  it('opens a panel with the list; its items live at /ui/lists/<name>', () => {
    const r = run(emptyConversation('c1'), [SHOW]);
    expect(r.errors).toEqual([]);
    const s = findSurface(r.ir, 'main')!;
    expect(s.view).toEqual({
      template: 'list', title: 'Options', actions: [],
      blocks: [{
        kind: 'list', name: 'opts', path: '/ui/lists/opts', itemKey: 'id',
        display: [{ kind: 'text', field: 'name', style: 'title' }, { kind: 'value', field: 'price', label: 'Price' }],
        actions: [{ name: 'list.choose', label: 'Pick', primary: true }], empty: 'Nothing to show yet.', maxItems: 25,
      }],
    });
    expect(s.data.ui).toEqual({ lists: { opts: SHOW.payload.items } });
    expect(keysOf(r.ir)).toEqual(['a', 'b']);
  });

  it('offers exactly the app\'s item actions to the model (JSON Schema enum), and no actions key without any', () => {
    const schema = JSON.stringify(payloadJsonSchema(app.directives.resolve('ui.show_list')!.definition));
    expect(schema).toContain(JSON.stringify([...DEMO_ITEM_ACTIONS]));
    const bare = createListDirectives({ itemActions: [] })[0]!;
    expect(payloadJsonSchema(bare)).not.toHaveProperty(['properties', 'actions']);
    expect(run(emptyConversation('c1'), [{ ...SHOW, payload: { ...SHOW.payload, actions: [{ name: 'form.submit', label: 'X' }] } }]).errors[0]?.code)
      .toBe('DIRECTIVE_PAYLOAD_INVALID');
  });

  it('refuses repeated ids and keys that are not data keys; reads integer ids as text (a repair, refused in strict mode)', () => {
    const dup = run(emptyConversation('c1'), [{ ...SHOW, payload: { ...SHOW.payload, items: [{ id: 'a' }, { id: 'a' }] } }]);
    expect(dup.errors[0]).toMatchObject({ code: 'DIRECTIVE_PAYLOAD_INVALID', pointer: '/directives/0/payload/items/1/id' });
    expect(run(emptyConversation('c1'), [{ ...SHOW, payload: { ...SHOW.payload, items: [{ id: 'a b' }] } }]).errors[0]?.code).toBe('DIRECTIVE_PAYLOAD_INVALID');
    const numbered = { ...SHOW, payload: { ...SHOW.payload, items: [{ id: 1, name: 'One' }] } };
    expect(run(emptyConversation('c1'), [numbered]).errors[0]?.code).toBe('DIRECTIVE_NON_CANONICAL');
    const lenient = run(emptyConversation('c1'), [numbered], { mode: 'best_effort' });
    expect(lenient.warnings.map((w) => w.code)).toContain('DIRECTIVE_WARN_COERCED');
    expect(keysOf(lenient.ir)).toEqual(['1']);
  });

  it('holds the budgets: items per list and bytes per item, both configurable', () => {
    const many = Array.from({ length: DEFAULT_LIMITS.maxListItems + 1 }, (_, i) => ({ id: `i${i}` }));
    expect(run(emptyConversation('c1'), [{ ...SHOW, payload: { ...SHOW.payload, items: many } }]).errors[0])
      .toMatchObject({ code: 'DIRECTIVE_BUDGET_EXCEEDED', pointer: '/directives/0/payload/items' });
    const big = { id: 'big', a: 'x'.repeat(1000), b: 'y'.repeat(1000), c: 'z'.repeat(100) };
    expect(run(emptyConversation('c1'), [{ ...SHOW, payload: { ...SHOW.payload, items: [big] } }]).errors[0])
      .toMatchObject({ code: 'DIRECTIVE_BUDGET_EXCEEDED', pointer: '/directives/0/payload/items/0' });
    expect(run(emptyConversation('c1'), [SHOW], { limits: { maxListItems: 1 } }).errors[0]?.code).toBe('DIRECTIVE_BUDGET_EXCEEDED');
    expect(run(emptyConversation('c1'), [{ ...SHOW, payload: { ...SHOW.payload, items: [big] } }], { limits: { maxListItemBytes: 4096 } }).errors).toEqual([]);
  });

  it('has a strict-mode (OpenAI) schema form that maps back to the same payload', () => {
    const original = directiveJsonSchema(app.directives);
    const envelope = { directives: [SHOW] };
    const strictForm = toStrictValue(envelope, original);
    expect(JSON.stringify(strictForm)).toContain('"entries"');
    expect(fromStrictValue(strictForm, original)).toEqual(envelope);
  });
});

describe('ui.list_add, ui.list_update, ui.list_remove', () => {
  const shown = (): ConversationIr => run(emptyConversation('c1'), [SHOW]).ir;

  it('add at the end or the start, update fields by id, remove by id; each is a new rev', () => {
    let ir = shown();
    const rev = (): number => findSurface(ir, 'main')!.rev;
    const r0 = rev();
    ir = run(ir, [{ type: 'ui.list_add', payload: { list: 'opts', items: [{ id: 'c', name: 'Gamma' }] } }]).ir;
    ir = run(ir, [{ type: 'ui.list_add', payload: { list: 'opts', items: [{ id: 'z', name: 'Zed' }], at: 'start' } }]).ir;
    expect(keysOf(ir)).toEqual(['z', 'a', 'b', 'c']);
    ir = run(ir, [{ type: 'ui.list_update', payload: { list: 'opts', items: [{ id: 'a', price: 4 }] } }]).ir;
    expect(findSurface(ir, 'main')!.data.ui).toMatchObject({ lists: { opts: [{ id: 'z' }, { id: 'a', name: 'Alpha', price: 4 }, { id: 'b' }, { id: 'c' }] } });
    ir = run(ir, [{ type: 'ui.list_remove', payload: { list: 'opts', ids: ['z', 'b'] } }]).ir;
    expect(keysOf(ir)).toEqual(['a', 'c']);
    expect(rev()).toBe(r0 + 4);
  });

  it('refuse what does not fit the list: an unknown list, a known id added, an unknown id changed or removed', () => {
    const ir = shown();
    const code = (d: unknown): unknown => run(ir, [d]).errors.map((e) => [e.code, e.pointer]);
    expect(code({ type: 'ui.list_add', payload: { list: 'nope', items: [{ id: 'x' }] } })).toEqual([['DIRECTIVE_LIST_UNKNOWN', '/directives/0/payload/list']]);
    expect(code({ type: 'ui.list_add', payload: { list: 'opts', items: [{ id: 'b' }] } })).toEqual([['DIRECTIVE_LIST_ITEM_INVALID', '/directives/0/payload/items/0/id']]);
    expect(code({ type: 'ui.list_update', payload: { list: 'opts', items: [{ id: 'q', name: 'Q' }] } })).toEqual([['DIRECTIVE_LIST_ITEM_INVALID', '/directives/0/payload/items/0/id']]);
    expect(code({ type: 'ui.list_remove', payload: { list: 'opts', ids: ['a', 'q'] } })).toEqual([['DIRECTIVE_LIST_ITEM_INVALID', '/directives/0/payload/ids/1']]);
    expect(code({ type: 'ui.list_remove', payload: { surface: 'side', list: 'opts', ids: ['a'] } })).toEqual([['DIRECTIVE_SURFACE_UNKNOWN', '/directives/0/payload/surface']]);
    const full = run(ir, [{ type: 'ui.list_add', payload: { list: 'opts', items: [{ id: 'c' }] } }], { limits: { maxListItems: 2 } });
    expect(full.errors[0]?.code).toBe('DIRECTIVE_BUDGET_EXCEEDED');
  });

  it('never write a list the app keeps under /committed', () => {
    const d = draw(source);
    let ir = openSurface(emptyConversation('c1'), { id: 'main', view: { template: 't', title: 'T', actions: [], blocks: [{ ...CHARS, path: '/committed/chars' }] } }, d);
    const c = commitSurface(ir, 'main', { draft: {}, committed: { chars: [{ id: 'aria' }] } }, d);
    if (c.ok) ir = c.ir;
    const r = run(ir, [{ type: 'ui.list_remove', payload: { list: 'chars', ids: ['aria'] } }]);
    expect(r.errors.map((e) => e.code)).toEqual(['DIRECTIVE_COMMITTED_READONLY']);
    expect(r.ir).toBe(ir);
  });

  it('a registry of another app gets the same directives with its own item actions', () => {
    const registry = createDirectiveRegistry(createListDirectives({ itemActions: ['trip.book'], defaultSurface: 'results' }));
    const r = runDirectives(registry, emptyConversation('t'), { directives: [{ type: 'ui.show_list', payload: {
      title: 'Trips', fields: [{ name: 'city' }], actions: [{ name: 'trip.book', label: 'Book' }], items: [{ id: 'lis', city: 'Lisbon' }],
    } }] }, { mode: 'strict', source });
    expect(r.errors).toEqual([]);
    expect(findSurface(r.ir, 'results')?.data.ui).toEqual({ lists: { items: [{ id: 'lis', city: 'Lisbon' }] } });
  });
});
