import * as cheerio from 'cheerio';
import { A2uiMessageProcessor } from '@a2ui/web_core/v0_8';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import {
  compileA2uiUpdate, compileA2uiV09Update, compileConversationToA2ui, compileConversationToA2uiV09, type A2uiCompileResult, type A2uiMessage,
  type A2uiV09CompileResult, type A2uiV09Message,
} from '../../src/compiler/index.ts';
import { compileConversationToHtml, itemIdempotencyKey } from '../../src/compiler/html/index.ts';
import { expireSurface, writeListItems, type ConversationIr, type DataValue } from '../../src/ui-ir/index.ts';
import { feed as feedV09, newOracle, visibleState as visibleV09 } from '../support/a2ui-v0_9-oracle.ts';
import { dataModelOf, feed, newProcessor, silenceWc, visibleState } from '../compiler/a2ui-v0_8/wc-oracle.ts';
import { ARIA, BO, CHARS, CY, DEE, listIr } from './fixtures.ts';

beforeEach(() => {
  silenceWc();
  return () => { vi.restoreAllMocks(); };
});

const v08 = (r: A2uiCompileResult): A2uiMessage[] => {
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  for (const b of r.batches) expect(b.recovery, JSON.stringify(b.errors)).toBe('none');
  return r.batches.flatMap((b) => b.messages);
};
const v09 = (r: A2uiV09CompileResult): A2uiV09Message[] => {
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  for (const b of r.batches) expect(b.recovery, JSON.stringify(b.errors)).toBe('none');
  return r.batches.flatMap((b) => b.messages);
};
const dataPaths = (messages: readonly A2uiMessage[]): string[] =>
  messages.flatMap((m) => ('dataModelUpdate' in m ? [m.dataModelUpdate.path ?? '/'] : []));
const v09Paths = (messages: readonly A2uiV09Message[]): string[] =>
  messages.flatMap((m) => ('updateDataModel' in m ? [m.updateDataModel.path ?? '/'] : []));
/** Ids of the components an update (re)sends. */
const v08Components = (messages: readonly A2uiMessage[]): string[] =>
  messages.flatMap((m) => ('surfaceUpdate' in m ? m.surfaceUpdate.components.map((c) => c.id) : []));
const v09Components = (messages: readonly A2uiV09Message[]): string[] =>
  messages.flatMap((m) => ('updateComponents' in m ? m.updateComponents.components.map((c) => c.id) : []));
/**
 * Stable items: a list write re-sends no template (List, Card, the item's Texts and Image) and
 * creates no surface; only the item Buttons are re-sent, because their context carries the new
 * rev as a literal (v0.8 with their label Texts, as a Button and its child travel together).
 */
const ITEM_BUTTON = /^main\.l-chars\.a\d+-[a-z_]+(\.label\.Text|\.Button)$/;

function write(ir: ConversationIr, items: DataValue[], next: ReturnType<typeof listIr>['next']): ConversationIr {
  const r = writeListItems(ir, 'main', 'chars', items, next());
  if (!r.ok) throw new Error(r.error.technical_detail);
  return r.ir;
}

/** The map-encoded items WC holds for the list: keys and item keys, in WC's (insertion) order. */
function wcItems(processor: A2uiMessageProcessor): Array<[string, string]> {
  const model = dataModelOf(processor, 'main--e0') as { view: { 'l-chars': { items: Record<string, { key: string }> } } };
  const map = processor.getSurfaces().get('main--e0')!.dataModel.get('view') as Map<string, Map<string, Map<string, Map<string, unknown>>>>;
  const items = map.get('l-chars')!.get('items')!;
  expect(Object.keys(model.view['l-chars'].items).length).toBe(items.size);
  return [...items].map(([k, v]) => [k, String(v.get('key'))]);
}

describe('A2UI v0.8: a List template over a map-encoded list', () => {
  it('renders one templated Card per shown item, reading item-relative paths; buttons send list, item, nonce and rev', () => {
    const { ir } = listIr([ARIA, BO, CY, DEE]);
    const messages = v08(compileConversationToA2ui(ir));
    const list = messages.flatMap((m) => ('surfaceUpdate' in m ? m.surfaceUpdate.components : [])).find((c) => c.id === 'main.l-chars.items.List')!;
    expect(list.component.List).toEqual({ children: { template: { componentId: 'main.l-chars.item.Card', dataBinding: '/view/l-chars/items' } }, direction: 'vertical' });
    const processor = newProcessor();
    feed(processor, messages);
    expect(wcItems(processor)).toEqual([['0', 'aria'], ['1', 'bo'], ['2', 'cy']]); // maxItems 3: dee is counted, not shown
    const model = dataModelOf(processor, 'main--e0') as { view: { 'l-chars': { note: string; items: Record<string, Record<string, string>> } } };
    expect(model.view['l-chars'].note).toBe('Showing 3 of 4.');
    expect(model.view['l-chars'].items['0']).toEqual({ key: 'aria', d0: 'Aria \\*the\\* bard', d1: 'Sings \\[1,2\\]', d2: 'https://example.com/a.png', d3: 'fantasy' });
    expect(model.view['l-chars'].items['1']!.d2).toBe(''); // not an http(s) URL: no image
    const tree = JSON.stringify(processor.getSurfaces().get('main--e0')!.componentTree);
    for (const i of [0, 1, 2]) {
      expect(tree).toContain(`"id":"main.l-chars.item.Card:${i}","dataContextPath":"/view/l-chars/items/${i}"`);
      expect(tree).toContain(`"id":"main.l-chars.a0-list_choose.Button:${i}"`);
    }
    const button = messages.flatMap((m) => ('surfaceUpdate' in m ? m.surfaceUpdate.components : [])).find((c) => c.id === 'main.l-chars.a0-list_choose.Button')!;
    expect(button.component.Button).toMatchObject({
      action: {
        name: 'list.choose',
        context: [
          { key: 'list', value: { literalString: 'chars' } }, { key: 'item', value: { path: 'key' } },
          { key: 'nonce', value: { literalString: ir.surfaces[0]!.nonce } }, { key: 'rev', value: { literalString: '0' } },
        ],
      },
    });
  });

  it('an item change writes that item only; appended items alone; a removal rewrites the list: keys stay "0"… in order, no gaps', () => {
    const { ir: start, next } = listIr([ARIA, BO]);
    const processor = newProcessor();
    feed(processor, v08(compileConversationToA2ui(start)));
    const steps: Array<{ items: DataValue[]; view: string[]; stored: string[]; order: Array<[string, string]> }> = [
      { items: [ARIA, { ...BO, name: 'Bob' }], view: ['/view/l-chars/items/1'], stored: ['/ui/lists/chars/1'], order: [['0', 'aria'], ['1', 'bo']] },
      { items: [ARIA, { ...BO, name: 'Bob' }, CY], view: ['/view/l-chars/items/2'], stored: ['/ui/lists/chars/2'], order: [['0', 'aria'], ['1', 'bo'], ['2', 'cy']] },
      { items: [{ ...BO, name: 'Bob' }, CY], view: ['/view/l-chars/items'], stored: ['/ui/lists/chars'], order: [['0', 'bo'], ['1', 'cy']] },
      { items: [], view: ['/view/l-chars'], stored: ['/ui/lists/chars'], order: [] },
    ];
    let ir = start;
    for (const step of steps) {
      const before = ir;
      ir = write(ir, step.items, next);
      const messages = v08(compileA2uiUpdate(before, ir));
      expect(messages.some((m) => 'deleteSurface' in m || 'beginRendering' in m), 'no rebuild').toBe(false);
      expect(v08Components(messages).filter((id) => !ITEM_BUTTON.test(id)), 'no template re-sent').toEqual([]);
      expect(dataPaths(messages).filter((p) => p.startsWith('/view/')), JSON.stringify(step.items)).toEqual(step.view);
      expect(dataPaths(messages).filter((p) => !p.startsWith('/view/')), 'the stored items: the same narrow writes').toEqual(step.stored);
      feed(processor, messages);
      expect(wcItems(processor)).toEqual(step.order);
      const fresh = newProcessor();
      feed(fresh, v08(compileConversationToA2ui(ir)));
      expect(visibleState(processor)).toBe(visibleState(fresh));
    }
    const model = dataModelOf(processor, 'main--e0') as { view: { 'l-chars': { note: string } } };
    expect(model.view['l-chars'].note).toBe('No characters yet.');
  });

  it('ids are per template, not per item: the component set does not change with the items', () => {
    const { ir, next } = listIr([ARIA]);
    const ids = (x: ConversationIr) => v08(compileConversationToA2ui(x)).flatMap((m) => ('surfaceUpdate' in m ? m.surfaceUpdate.components.map((c) => c.id) : []));
    expect(ids(write(ir, [ARIA, BO, CY, DEE], next))).toEqual(ids(ir));
  });
});

describe('A2UI v0.9: a List template over a plain array', () => {
  it('renders one instance per shown item; buttons bind the key relative to the item', () => {
    const { ir } = listIr([ARIA, BO, CY, DEE]);
    const messages = v09(compileConversationToA2uiV09(ir));
    const components = messages.flatMap((m) => ('updateComponents' in m ? m.updateComponents.components : []));
    expect(components.find((c) => c.id === 'main.l-chars.items.List')).toMatchObject({ children: { componentId: 'main.l-chars.item.Card', path: '/view/l-chars/items' } });
    expect(components.find((c) => c.id === 'main.l-chars.a1-list_remove.Button')).toMatchObject({
      action: { event: { name: 'list.remove', context: { list: 'chars', item: { path: 'key' }, nonce: ir.surfaces[0]!.nonce, rev: 0 } } },
    });
    const model = messages.find((m) => 'updateDataModel' in m) as unknown as { updateDataModel: { value: { view: Record<string, unknown> } } };
    expect(model.updateDataModel.value.view['l-chars']).toEqual({
      note: 'Showing 3 of 4.',
      items: [
        { key: 'aria', d0: 'Aria *the* bard', d1: 'Sings \\[1,2\\]', d2: 'https://example.com/a.png', d3: 'fantasy' },
        { key: 'bo', d0: 'Bo', d1: 'Quiet', d2: '', d3: 'sci-fi' },
        { key: 'cy', d0: 'Cy', d1: '—', d2: '', d3: 'mystery' },
      ],
    });
  });

  it('a changed or appended item is written at its index; a removal writes the array; empty shows the empty text', () => {
    const { ir: start, next } = listIr([ARIA, BO]);
    const oracle = newOracle();
    feedV09(oracle, v09(compileConversationToA2uiV09(start)));
    let ir = start;
    for (const [items, paths] of [
      [[ARIA, { ...BO, name: 'Bob' }], ['/ui/lists/chars/1', '/view/l-chars/items/1']],
      [[ARIA, { ...BO, name: 'Bob' }, CY], ['/ui/lists/chars/2', '/view/l-chars/items/2']],
      [[ARIA, CY], ['/ui/lists/chars', '/view/l-chars/items']],
      [[], ['/ui/lists/chars', '/view/l-chars']],
    ] as Array<[DataValue[], string[]]>) {
      const before = ir;
      ir = write(ir, items, next);
      const messages = v09(compileA2uiV09Update(before, ir));
      expect(messages.some((m) => 'deleteSurface' in m || 'createSurface' in m), 'no rebuild').toBe(false);
      expect(v09Components(messages).filter((id) => !ITEM_BUTTON.test(id)), 'no template re-sent').toEqual([]);
      expect(v09Paths(messages)).toEqual(paths);
      feedV09(oracle, messages);
      const fresh = newOracle();
      feedV09(fresh, v09(compileConversationToA2uiV09(ir)));
      expect(visibleV09(oracle)).toBe(visibleV09(fresh));
    }
    const model = oracle.processor.model.getSurface('main--e0')!.dataModel.get('/view/l-chars') as { note: string; items: unknown[] };
    expect(model).toEqual({ note: 'No characters yet.', items: [] });
  });
});

describe('HTML: a semantic list whose item buttons post through forms of their own', () => {
  it('renders <ul>/<li> with the list-view strings, and per-item forms outside every other form', () => {
    const { ir } = listIr([ARIA, BO, CY, DEE]);
    const $ = cheerio.load(compileConversationToHtml(ir, { csrfToken: 'tok' }).html);
    const items = $('section#surface-main-list-chars ul.list__items > li');
    expect(items.map((_, li) => $(li).attr('data-key')).get()).toEqual(['aria', 'bo', 'cy']);
    expect($('#surface-main-list-chars-title').text()).toBe('Characters');
    const aria = $('#surface-main-list-chars-item-aria');
    expect(aria.find('.list__text--title').text()).toBe('Aria *the* bard');
    expect(aria.find('.value__text').text()).toBe('Sings [1,2]');
    expect(aria.find('img').attr('src')).toBe('https://example.com/a.png');
    expect($('#surface-main-list-chars-item-bo img').length).toBe(0); // javascript: URL never reaches the page
    expect($('.list__note').text()).toBe('Showing 3 of 4.');
    expect($('form form').length).toBe(0);
    for (const key of ['aria', 'bo', 'cy']) {
      const buttons = $(`#surface-main-list-chars-item-${key} button`);
      expect(buttons.map((_, b) => `${$(b).attr('name')}=${$(b).attr('value')}`).get()).toEqual(['_action=list.choose', '_action=list.remove']);
      const formId = buttons.first().attr('form')!;
      const form = $(`form#${formId}`);
      expect(form.length).toBe(1);
      expect(form.attr('hx-post')).toBe('/c/c1/actions');
      const hidden = Object.fromEntries(form.find('input[type=hidden]').map((_, el) => [[$(el).attr('name'), $(el).attr('value')]]).get() as Array<[string, string]>);
      expect(hidden).toEqual({
        _surface: 'main', _epoch: '0', _nonce: ir.surfaces[0]!.nonce, _rev: '0', _csrf: 'tok', list: 'chars', item: key,
        _idem: itemIdempotencyKey('c1', ir.surfaces[0]!, 'chars', key),
      });
    }
    expect(new Set($('form.surface__item-form input[name=_idem]').map((_, el) => $(el).attr('value')).get()).size).toBe(3);
  });

  it('shows the empty text; an expired surface shows its items without buttons or forms', () => {
    const empty = listIr([]).ir;
    expect(cheerio.load(compileConversationToHtml(empty).html)('.list__note').text()).toBe('No characters yet.');
    const { ir, next } = listIr([ARIA]);
    const expired = expireSurface(ir, 'main', next());
    const $ = cheerio.load(compileConversationToHtml(expired.ok ? expired.ir : ir).html);
    expect($('li').length).toBe(1);
    expect($('li button').length).toBe(0);
    expect($('form.surface__item-form').length).toBe(0);
  });

  it('in a surface with a form, item buttons still name their own form (no nesting), and the form keeps its own buttons', () => {
    const { ir } = listIr([ARIA], CHARS, {
      template: 'mixed', title: 'Mixed', actions: [{ name: 'form.submit', label: 'Save', role: 'submit', primary: true }],
      blocks: [{ kind: 'field', name: 'note', label: 'Note', control: 'text', required: false }, CHARS],
    });
    const $ = cheerio.load(compileConversationToHtml(ir).html);
    const main = $('form.surface__form');
    expect(main.find('li button').attr('form')).toBe('surface-main-list-chars-item-aria-form');
    expect(main.find('button:not([form])').map((_, b) => $(b).attr('value')).get()).toEqual(['form.submit']);
    expect($('form.surface__item-form').parent('form').length).toBe(0);
  });
});
