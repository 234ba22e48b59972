import { describe, expect, it } from 'vitest';
import * as surfacer from '../../src/index.ts';
import { createComponentDirective, createListDirectives } from '../../src/collections/index.ts';
import {
  createDirectiveRegistry, directiveJsonSchema, payloadJsonSchema, renderDirectiveCatalogue, runDirectives, type RunResult,
} from '../../src/directives/index.ts';
import { fromStrictValue, toStrictJsonSchema } from '../../src/llm/index.ts';
import { ComponentBlock, createSeededSource, draw, emptyConversation, findSurface, listItems, type ConversationIr } from '../../src/ui-ir/index.ts';
import { findListBlock } from '../../src/ui-ir/index.ts';
import { Gauge, Scoreboard } from '../support/components.ts';

/** The model's view of the app's components: one directive, each component's props checked by its own zod schema. */
const directive = createComponentDirective({ components: [Scoreboard, Gauge], itemActions: ['list.choose', 'list.remove'] })!;
const registry = createDirectiveRegistry([directive]);
const source = createSeededSource('component-directive');

function run(directives: unknown[], ir: ConversationIr = emptyConversation('c1')): RunResult {
  return runDirectives(registry, ir, { directives }, { mode: 'strict', source });
}

const SCORES = {
  type: 'ui.show_component',
  payload: {
    title: 'League', component: 'Scoreboard', name: 'league', props: { title: 'This week', highlight: 10 },
    items: [{ id: 'p1', player: 'Ada', score: 12 }, { id: 'p2', player: 'Bo', score: 7 }],
    actions: [{ name: 'list.choose', label: 'Pick', primary: true }],
  },
};

describe('ui.show_component', () => {
  it('places the component: a component block whose collection lives where a list\'s does', () => {
    const r = run([SCORES]);
    expect(r.errors).toEqual([]);
    const s = findSurface(r.ir, 'main')!;
    const block = s.view.blocks[0] as ComponentBlock;
    expect(block).toMatchObject({
      kind: 'component', component: 'Scoreboard', name: 'league', path: '/ui/lists/league', itemKey: 'id', bind: {},
      actions: [{ name: 'list.choose', label: 'Pick', primary: true }], maxItems: 25,
    });
    // The props as the component's schema reads them (its defaults filled in).
    expect(block.props).toEqual({ title: 'This week', highlight: 10, sortable: true });
    expect(s.data.ui).toEqual({ lists: { league: SCORES.payload.items } });
    // Ingress and the list actions see the component's collection like a list's.
    const found = findListBlock(s.view, 'league')!;
    expect(listItems(s, found).items.map((i) => i.key)).toEqual(['p1', 'p2']);
  });

  it('a component without items: no path, no stored list; the default name is the component\'s in lower camel case', () => {
    const r = run([{ type: 'ui.show_component', payload: { title: 'Load', component: 'Gauge', props: { label: 'CPU', value: 40 } } }]);
    expect(r.errors).toEqual([]);
    const s = findSurface(r.ir, 'main')!;
    expect(s.view.blocks[0]).toMatchObject({ kind: 'component', component: 'Gauge', name: 'gauge', props: { label: 'CPU', value: 40 } });
    expect(s.view.blocks[0]).not.toHaveProperty('path');
    expect(s.data.ui).toEqual({});
  });

  it('props are checked by the component\'s own schema: unknown component, unknown prop, wrong type, items on a component without any', () => {
    const bad = (payload: Record<string, unknown>) => run([{ type: 'ui.show_component', payload: { title: 'T', ...payload } }]).errors.map((e) => [e.code, e.pointer]);
    expect(bad({ component: 'Chart', props: {} })[0]?.[0]).toBe('DIRECTIVE_PAYLOAD_INVALID');
    expect(bad({ component: 'Gauge', props: { label: 'x', colour: 'red' } })[0]?.[0]).toBe('DIRECTIVE_PAYLOAD_INVALID');
    expect(bad({ component: 'Gauge', props: { label: 'x', value: 'high' } })[0]).toEqual(['DIRECTIVE_PAYLOAD_INVALID', '/directives/0/payload/props/value']);
    expect(bad({ component: 'Gauge', props: { label: 'x' }, items: [] })[0]?.[0]).toBe('DIRECTIVE_PAYLOAD_INVALID');
    expect(bad({ component: 'Scoreboard', props: { highlight: 5000 } })[0]).toEqual(['DIRECTIVE_PAYLOAD_INVALID', '/directives/0/payload/props/highlight']);
    // Items by the component's item schema, keyed, unique, and only the app's item actions.
    expect(bad({ component: 'Scoreboard', props: {}, items: [{ id: 'a', player: 'A', score: 'lots' }] })[0]?.[0]).toBe('DIRECTIVE_PAYLOAD_INVALID');
    expect(bad({ component: 'Scoreboard', props: {}, items: [{ player: 'A', score: 1 }] })[0]?.[0]).toBe('DIRECTIVE_PAYLOAD_INVALID');
    expect(bad({ component: 'Scoreboard', props: {}, items: [{ id: 'a', player: 'A', score: 1 }, { id: 'a', player: 'B', score: 2 }] })[0])
      .toEqual(['DIRECTIVE_LIST_ITEM_INVALID', '/directives/0/payload/items/1/id']);
    expect(bad({ component: 'Scoreboard', props: {}, items: [], actions: [{ name: 'form.submit', label: 'X' }] })[0]?.[0]).toBe('DIRECTIVE_PAYLOAD_INVALID');
  });

  it('the item budget of the run applies, as to ui.show_list', () => {
    const items = Array.from({ length: 3 }, (_, i) => ({ id: `p${i}`, player: `P${i}`, score: i }));
    const r = runDirectives(registry, emptyConversation('c1'), { directives: [{ ...SCORES, payload: { ...SCORES.payload, items } }] },
      { mode: 'strict', source, limits: { maxListItems: 2 } });
    expect(r.errors.map((e) => e.code)).toEqual(['DIRECTIVE_BUDGET_EXCEEDED']);
  });

  it('the model reads each component with its properties: the JSON Schema and the prompt catalogue', () => {
    const schema = payloadJsonSchema(directive) as { oneOf?: unknown[]; anyOf?: unknown[] };
    expect((schema.oneOf ?? schema.anyOf ?? []).length).toBe(2);
    const text = renderDirectiveCatalogue(registry);
    for (const needle of ['`ui.show_component`', '"Scoreboard"', '"Gauge"', 'A ranked table of players and their scores.', 'highlight', 'scores at or above this are highlighted', 'player']) {
      expect(text).toContain(needle);
    }
    // OpenAI's strict variant can express it, and a strict answer maps back to a valid one.
    const strict = toStrictJsonSchema(directiveJsonSchema(registry)).schema;
    const answer = { directives: [{ type: 'ui.show_component', payload: { surface: null, intro: null, name: null, title: 'Load', component: 'Gauge', props: { label: 'CPU', value: null, max: null } } }], assistant_text: null };
    const back = fromStrictValue(answer, directiveJsonSchema(registry));
    expect(strict).toBeTypeOf('object');
    expect(runDirectives(registry, emptyConversation('c1'), back, { mode: 'strict', source }).errors).toEqual([]);
  });

  it('an example the app gives is shown in the catalogue and validates', () => {
    const withExample = createComponentDirective({ components: [Gauge], itemActions: [], example: { title: 'Load', component: 'Gauge', props: { label: 'CPU', value: 40 } } })!;
    expect(renderDirectiveCatalogue(createDirectiveRegistry([withExample]))).toContain('{"type":"ui.show_component","payload":{"title":"Load","component":"Gauge"');
    expect(runDirectives(createDirectiveRegistry([withExample]), emptyConversation('c1'), { directives: [{ type: 'ui.show_component', payload: withExample.example }] },
      { mode: 'strict', source }).errors).toEqual([]);
  });

  it('no components: no directive; and it is public API', () => {
    expect(createComponentDirective({ components: [], itemActions: [] })).toBeUndefined();
    expect(surfacer.createComponentDirective).toBe(createComponentDirective);
  });
});

describe('ui.list_add and ui.list_update on a component\'s collection: its item schema, as ui.show_component', () => {
  // Scoreboard items: {id, player: string ≤ 100, score: number}, strict.
  const lists = (components = [Scoreboard, Gauge]) => createDirectiveRegistry([directive, ...createListDirectives({ itemActions: ['list.choose'], components })]);
  const shown = run([SCORES]).ir;
  const go = (directives: unknown[], reg = lists()): RunResult => runDirectives(reg, shown, { directives }, { mode: 'strict', source });
  const items = (r: RunResult): unknown => findSurface(r.ir, 'main')!.data.ui.lists;
  const refusal = (r: RunResult): unknown[] => r.errors.map((e) => [e.code, e.pointer]);

  it('items that fit the schema are added and updated', () => {
    const added = go([{ type: 'ui.list_add', payload: { list: 'league', items: [{ id: 'p3', player: 'Cy', score: 4 }] } }]);
    expect(added.errors).toEqual([]);
    expect(items(added)).toEqual({ league: [...SCORES.payload.items, { id: 'p3', player: 'Cy', score: 4 }] });
    const updated = go([{ type: 'ui.list_update', payload: { list: 'league', items: [{ id: 'p2', score: 9 }] } }]);
    expect(updated.errors).toEqual([]);
    expect(items(updated)).toEqual({ league: [SCORES.payload.items[0], { id: 'p2', player: 'Bo', score: 9 }] });
  });

  it('a field of the wrong type, a field the item has not, a missing one: refused with the field\'s pointer, nothing stored', () => {
    const add = (item: Record<string, unknown>) => go([{ type: 'ui.list_add', payload: { list: 'league', items: [item] } }]);
    expect(refusal(add({ id: 'p3', player: 'Cy', score: 'four' }))).toEqual([['DIRECTIVE_PAYLOAD_INVALID', '/directives/0/payload/items/0/score']]);
    expect(refusal(add({ id: 'p3', player: 'Cy', score: 4, rank: 1 }))).toEqual([['DIRECTIVE_PAYLOAD_INVALID', '/directives/0/payload/items/0/rank']]);
    expect(refusal(add({ id: 'p3', player: 'Cy' }))).toEqual([['DIRECTIVE_PAYLOAD_INVALID', '/directives/0/payload/items/0/score']]);
    const update = go([{ type: 'ui.list_update', payload: { list: 'league', items: [{ id: 'p1', score: 1 }, { id: 'p2', player: 'x'.repeat(101) }] } }]);
    expect(refusal(update)).toEqual([['DIRECTIVE_PAYLOAD_INVALID', '/directives/0/payload/items/1/player']]);
    expect(update.ir).toBe(shown);
  });

  it('a component the list directives were not given cannot be written by them', () => {
    const r = go([{ type: 'ui.list_add', payload: { list: 'league', items: [{ id: 'p3', player: 'Cy', score: 4 }] } }], lists([Gauge]));
    expect(refusal(r)).toEqual([['DIRECTIVE_LIST_UNKNOWN', '/directives/0/payload/list']]);
    // Removing never makes an item invalid: it needs no schema.
    const removed = go([{ type: 'ui.list_remove', payload: { list: 'league', ids: ['p1'] } }], lists([]));
    expect(removed.errors).toEqual([]);
  });
});

describe('ui.show_component builds its block with the IR\'s ComponentBlock schema', () => {
  // An app may hand createComponentDirective plain objects: one named like a basic component.
  const clash = createComponentDirective({ components: [{ ...Gauge, name: 'Text' }], itemActions: [] })!;
  const payload = { title: 'Load', component: 'Text', props: { label: 'CPU' } };

  it('its apply refuses a block the IR refuses (never returns such an IR), naming the payload field', () => {
    const out = clash.apply(emptyConversation('c1'), payload as never, draw(source));
    expect(out.ok).toBe(false);
    if (!out.ok) expect([out.error.code, out.error.pointer]).toEqual(['DIRECTIVE_IR_INVALID', '/component']);
    const r = runDirectives(createDirectiveRegistry([clash]), emptyConversation('c1'), { directives: [{ type: 'ui.show_component', payload }] }, { mode: 'strict', source });
    expect(r.errors.map((e) => [e.code, e.pointer])).toEqual([['DIRECTIVE_IR_INVALID', '/directives/0/payload/component']]);
  });

  it('the block it builds is the schema\'s parse (what the IR holds)', () => {
    const r = run([SCORES]);
    const block = findSurface(r.ir, 'main')!.view.blocks[0];
    expect(block).toEqual(ComponentBlock.parse(block));
  });
});
