import fc from 'fast-check';
import { SurfaceView, walkBlocks, type Block, type ComponentBlock, type ConversationIr, type DataMap, type DataValue } from '../../src/ui-ir/index.ts';
import { setAt } from '../../src/ui-ir/pointer.ts';
import { ADVERSARIAL_TEXT, arbConversationIr, arbListData, arbShortText, ITEM_ACTIONS, LIST_PATHS } from './arbitraries-ir.ts';

/**
 * Component blocks of the test app (test/support/components.ts: Scoreboard, Gauge) for the
 * property suites: valid props for their schemas (adversarial text included), bindings to
 * committed and ui data, collections over the list paths with item actions.
 */
export const COMPONENT_BLOCK_NAMES = ['board', 'gauge', 'top'] as const;
const BIND_PATHS = ['/committed/level', '/ui/level', '/committed/name', '/ui/lists/items'] as const;

const arbLabel = fc.oneof(fc.constantFrom(...ADVERSARIAL_TEXT).filter((s) => s.length >= 1 && s.length <= 100), arbShortText.map((s) => s.slice(0, 100)))
  .filter((s) => s.length >= 1);

const arbScoreboard: fc.Arbitrary<ComponentBlock> = fc.record({
  name: fc.constantFrom(...COMPONENT_BLOCK_NAMES),
  title: fc.option(arbLabel, { nil: undefined }),
  bindTitle: fc.boolean(),
  highlight: fc.option(fc.integer({ min: 0, max: 1000 }), { nil: undefined }),
  sortable: fc.option(fc.boolean(), { nil: undefined }),
  path: fc.constantFrom(...LIST_PATHS),
  itemKey: fc.constantFrom('id', 'key'),
  actions: fc.uniqueArray(fc.record({ name: fc.constantFrom(...ITEM_ACTIONS), label: arbShortText, primary: fc.boolean() }), { maxLength: 3, selector: (a) => a.name }),
  maxItems: fc.integer({ min: 1, max: 6 }),
  bindPath: fc.constantFrom(...BIND_PATHS),
}).map((r) => {
  const props: Record<string, DataValue> = {};
  if (r.title !== undefined && !r.bindTitle) props.title = r.title;
  if (r.highlight !== undefined) props.highlight = r.highlight;
  if (r.sortable !== undefined) props.sortable = r.sortable;
  return {
    kind: 'component', component: 'Scoreboard', name: r.name, props, bind: (r.bindTitle ? { title: r.bindPath } : {}) as Record<string, string>,
    path: r.path, itemKey: r.itemKey, actions: r.actions, maxItems: r.maxItems,
  } satisfies ComponentBlock;
});

const arbGauge: fc.Arbitrary<ComponentBlock> = fc.record({
  name: fc.constantFrom(...COMPONENT_BLOCK_NAMES),
  label: arbLabel,
  value: fc.option(fc.double({ noNaN: true, noDefaultInfinity: true }), { nil: undefined }),
  bindValue: fc.boolean(),
  max: fc.option(fc.integer({ min: 1, max: 1000 }), { nil: undefined }),
  bindPath: fc.constantFrom(...BIND_PATHS),
}).map((r) => ({
  kind: 'component', component: 'Gauge', name: r.name,
  props: { label: r.label, ...(r.value === undefined || r.bindValue ? {} : { value: r.value }), ...(r.max === undefined ? {} : { max: r.max }) },
  bind: (r.bindValue ? { value: r.bindPath } : {}) as Record<string, string>, itemKey: 'id', actions: [], maxItems: 25,
}) satisfies ComponentBlock);

export const arbComponentBlock: fc.Arbitrary<ComponentBlock> = fc.oneof(arbScoreboard, arbGauge);

/**
 * A conversation whose surfaces each also show up to three app components (at the top, inside a
 * group, or inside a modal), with data at their collections' paths and at the bound paths.
 * Views that would break the IR's rules (a name used twice, an item action also a view action)
 * are repaired by renaming or dropping actions; the result is checked by the IR schema.
 */
export const arbConversationWithComponents: fc.Arbitrary<ConversationIr> = fc.tuple(
  arbConversationIr,
  fc.array(fc.tuple(arbComponentBlock, fc.constantFrom('top', 'group', 'modal'), arbListData, fc.oneof(fc.integer(), arbShortText)), { minLength: 1, maxLength: 3 }),
).map(([ir, additions]) => ({
  ...ir,
  surfaces: ir.surfaces.map((surface) => {
    const taken = new Set<string>();
    walkBlocks(surface.view.blocks, (b) => { if (b.kind === 'list' || b.kind === 'component') taken.add(b.name); });
    const viewActions = new Set(surface.view.actions.map((a) => a.name));
    let data = surface.data;
    const blocks: Block[] = [...surface.view.blocks];
    additions.forEach(([block, where, items, bound], i) => {
      let name = block.name;
      for (let n = 2; taken.has(name); n += 1) name = `${block.name}-${n}`;
      taken.add(name);
      const placed: ComponentBlock = { ...block, name, actions: block.actions.filter((a) => !viewActions.has(a.name)) };
      if (where === 'top') blocks.push(placed);
      else if (where === 'group') blocks.push({ kind: 'group', layout: i % 2 === 0 ? 'row' : 'column', blocks: [placed] });
      else blocks.push({ kind: 'modal', label: 'Open', blocks: [placed] });
      const write = (path: string, value: DataValue): void => {
        const [ns, ...keys] = path.slice(1).split('/') as ['committed' | 'ui', ...string[]];
        data = { ...data, [ns]: setAt(data[ns], keys, value) as DataMap };
      };
      if (placed.path !== undefined) write(placed.path, items);
      for (const path of Object.values(placed.bind)) write(path, bound);
    });
    const view = SurfaceView.parse({ ...surface.view, blocks });
    return { ...surface, view, data };
  }),
}));
