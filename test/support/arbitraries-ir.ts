import fc from 'fast-check';
import {
  addToast, closeSurface, commitSurface, createSeededSource, draw, emptyConversation, expireSurface,
  ICON_NAMES, IR_VERSION, listBlocks, openSurface, patchSurfaceData, resetSurfaceEpoch, SurfaceView as SurfaceViewSchema, TABLE_LOCALES,
  TableColumnType, writeListItems, writeTableState,
  type ActionSpec, type Block, type ConversationIr, type DataMap, type DataOp, type DataValue, type FieldBlock,
  type ListBlock, type ListItemDisplay, type Surface, type SurfaceView, type TableBlock, type TableColumn, type TableState, type Toast,
} from '../../src/ui-ir/index.ts';
import { setAt } from '../../src/ui-ir/pointer.ts';

/**
 * fast-check arbitraries of valid UI IR v1 values (shapes of src/ui-ir/schema.ts), shared by
 * every suite that needs generated IR. Strings mix random text with the adversarial cases the
 * compilers must survive: JSON-looking text, strings shaped like component ids, Markdown,
 * enum words, the A2UI guard mark, empty strings where allowed.
 */
export const ADVERSARIAL_TEXT = [
  '[1,2]', '{"a":1}', ' [x] ', '[]', '{}', '[oops]', 'null', '[1]\u2060', 'a\u2060',
  'main.root.Card', 'main.f-name.TextField', 'main.body.Column', 'side.title.Text', 'x.y.Text',
  '*bold* _it_ `code`', '# heading', '- item', '1. first', '<b>html</b>', 'a & b', '\\', '|a|b|',
  'body', 'h1', 'caption', 'shortText', 'Card', '/draft/name', '/ui/toast/text', 'https://example.com/a',
  'line one\nline two', '  padded  ', 'émoji ☃ 😀', '\u0000nul', '"quoted"', '--e1',
] as const;

const SAFE_CHARS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-'.split('');

function text(maxLength: number, minLength = 0): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.string({ minLength, maxLength: Math.min(maxLength, 24) }) },
    { weight: 2, arbitrary: fc.constantFrom(...ADVERSARIAL_TEXT).filter((s) => s.length >= minLength && s.length <= maxLength) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength, maxLength: Math.min(maxLength, 12) }) },
  );
}

export const arbShortText = text(200, 1);
export const arbLongText = text(4000);

/** A data key; a small pool of names makes fields, patches and values meet. */
export const FIELD_NAMES = ['name', 'email', 'tags', 'age', 'agree', 'kind', 'notes', 'nonce', 'rev', 'hasOwnProperty', '0'] as const;
export const arbDataKey: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...FIELD_NAMES) },
  { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom(...SAFE_CHARS), minLength: 1, maxLength: 10 }) },
).filter((k) => k !== '__proto__' && k !== 'prototype' && k !== 'constructor');

const arbNumber = fc.oneof(fc.integer({ min: -1000, max: 1000 }), fc.double({ noNaN: true, noDefaultInfinity: true }));

export function arbDataValue(depth = 2): fc.Arbitrary<DataValue> {
  const leaf: fc.Arbitrary<DataValue> = fc.oneof(text(60), arbNumber, fc.boolean());
  if (depth <= 0) return leaf;
  return fc.oneof(
    { weight: 4, arbitrary: leaf },
    { weight: 1, arbitrary: fc.array(arbDataValue(depth - 1), { maxLength: 3 }) },
    { weight: 1, arbitrary: fc.dictionary(arbDataKey, arbDataValue(depth - 1), { maxKeys: 3 }) },
  );
}

export function arbDataMap(depth = 2, maxKeys = 5): fc.Arbitrary<DataMap> {
  return fc.dictionary(arbDataKey, arbDataValue(depth), { maxKeys });
}

const arbOption = fc.record({ value: text(100, 1), label: arbShortText });

export const arbFieldBlock: fc.Arbitrary<FieldBlock> = fc.record({
  kind: fc.constant('field' as const),
  name: arbDataKey,
  label: arbShortText,
  control: fc.constantFrom(
    'text', 'textarea', 'number', 'secret', 'date', 'datetime', 'time',
    'checkbox', 'select', 'multiselect', 'slider', 'tags', 'url', 'email',
  ),
  options: fc.option(fc.array(arbOption, { maxLength: 4 }), { nil: undefined }),
  placeholder: fc.option(text(200), { nil: undefined }),
  help: fc.option(text(500), { nil: undefined }),
  required: fc.boolean(),
  min: fc.option(fc.integer({ min: -10, max: 10 }), { nil: undefined }),
  max: fc.option(fc.integer({ min: -10, max: 100 }), { nil: undefined }),
  step: fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }),
  maxLength: fc.option(fc.integer({ min: 1, max: 500 }), { nil: undefined }),
}, { requiredKeys: ['kind', 'name', 'label', 'control', 'required'] });

const arbPathKey = fc.string({ unit: fc.constantFrom(...SAFE_CHARS), minLength: 1, maxLength: 8 });
const arbUrlTail = fc.string({ unit: fc.constantFrom(...SAFE_CHARS, '/', '.'), maxLength: 20 });

/**
 * Collections. Names, paths and keys come from small pools so lists, their data, item keys and
 * list transitions meet; item actions never share a name with view actions (arbAction), as the
 * IR requires. Item keys include invalid ones (not a data key, not a string) and repeats, which
 * every compiler must leave out the same way.
 */
export const LIST_NAMES = ['items', 'saved', 'results'] as const;
export const LIST_PATHS = ['/ui/lists/items', '/ui/lists/saved', '/committed/saved', '/ui/results', '/committed/items/all'] as const;
export const ITEM_KEYS = ['a', 'b', 'c', 'd', 'k-1', 'x_2', '0'] as const;
export const ITEM_FIELDS = ['id', 'key', 'name', 'title', 'img', 'n', 'tag'] as const;
export const ITEM_ACTIONS = ['list.choose', 'list.remove', 'item.open'] as const;

const arbItemDisplay: fc.Arbitrary<ListItemDisplay> = fc.oneof(
  fc.record({ kind: fc.constant('text' as const), field: fc.constantFrom(...ITEM_FIELDS), style: fc.constantFrom('title' as const, 'body' as const, 'caption' as const) }),
  fc.record({ kind: fc.constant('value' as const), field: fc.constantFrom(...ITEM_FIELDS), label: arbShortText }),
  fc.record({ kind: fc.constant('image' as const), field: fc.constantFrom(...ITEM_FIELDS), alt: text(300) }),
  fc.record({ kind: fc.constant('badge' as const), field: fc.constantFrom(...ITEM_FIELDS) }),
);

export const arbListBlock: fc.Arbitrary<ListBlock> = fc.record({
  kind: fc.constant('list' as const),
  name: fc.constantFrom(...LIST_NAMES),
  title: fc.option(text(200), { nil: undefined }),
  path: fc.constantFrom(...LIST_PATHS),
  itemKey: fc.constantFrom('id', 'key'),
  display: fc.array(arbItemDisplay, { minLength: 1, maxLength: 4 }),
  actions: fc.uniqueArray(fc.record({ name: fc.constantFrom(...ITEM_ACTIONS), label: arbShortText, primary: fc.boolean() }), { maxLength: 3, selector: (a) => a.name }),
  empty: text(300),
  maxItems: fc.integer({ min: 1, max: 6 }),
}, { requiredKeys: ['kind', 'name', 'path', 'itemKey', 'display', 'actions', 'empty', 'maxItems'] });

const arbItemValue: fc.Arbitrary<DataValue> = fc.oneof(
  { weight: 3, arbitrary: text(60) },
  { weight: 1, arbitrary: fc.constantFrom('https://example.com/a.png', 'http://x.example/b', 'javascript:alert(1)', 'https://') },
  { weight: 1, arbitrary: arbNumber },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: arbDataValue(1) },
);

/** One stored list entry: usually an item with a key from the pool, sometimes something a list must skip. */
export const arbListEntry: fc.Arbitrary<DataValue> = fc.oneof(
  { weight: 8, arbitrary: fc.tuple(fc.constantFrom('id', 'key'), fc.constantFrom(...ITEM_KEYS), fc.dictionary(fc.constantFrom(...ITEM_FIELDS), arbItemValue, { maxKeys: 4 }))
    .map(([field, key, rest]) => ({ ...rest, id: key, [field]: key })) },
  { weight: 1, arbitrary: fc.dictionary(fc.constantFrom(...ITEM_FIELDS), arbItemValue, { maxKeys: 3 }) },
  { weight: 1, arbitrary: arbDataValue(1) },
);

export const arbListData: fc.Arbitrary<DataValue[]> = fc.array(arbListEntry, { maxLength: 9 });

/** Renames later lists with a name seen before (list names are unique in a view). */
function uniqueListNames(blocks: Block[]): Block[] {
  const seen = new Set<string>();
  const visit = (list: Block[]): Block[] => list.map((b) => {
    if (b.kind === 'group' || b.kind === 'modal') return { ...b, blocks: visit(b.blocks) };
    if (b.kind === 'tabs') return { ...b, blocks: b.blocks.map((tab) => ({ ...tab, blocks: visit(tab.blocks) })) };
    if (b.kind !== 'list' && b.kind !== 'table') return b;
    let name = b.name;
    for (let n = 2; seen.has(name); n += 1) name = `${b.name}-${n}`;
    seen.add(name);
    return name === b.name ? b : { ...b, name };
  });
  return visit(blocks);
}

export function arbBlock(depth = 2): fc.Arbitrary<Block> {
  const leaves: fc.Arbitrary<Block>[] = [
    fc.record({ kind: fc.constant('heading' as const), text: arbShortText, level: fc.integer({ min: 1, max: 4 }) }),
    fc.record({ kind: fc.constant('text' as const), text: arbLongText, tone: fc.constantFrom('body' as const, 'caption' as const) }),
    fc.constant({ kind: 'divider' as const }),
    fc.record({
      kind: fc.constant('image' as const),
      url: fc.tuple(fc.constantFrom('https://', 'http://'), arbUrlTail).map(([s, t]) => `${s}example.com/${t}`),
      alt: text(300),
    }),
    fc.record({
      kind: fc.constant('value' as const),
      label: arbShortText,
      path: fc.tuple(fc.constantFrom('committed', 'ui'), fc.array(fc.oneof(fc.constantFrom(...FIELD_NAMES.filter((n) => n !== 'hasOwnProperty')), arbPathKey), { minLength: 1, maxLength: 3 }))
        .map(([ns, keys]) => `/${ns}/${keys.join('/')}`),
    }),
    fc.record({
      kind: fc.constant('upload' as const),
      name: arbDataKey,
      label: arbShortText,
      accept: fc.array(fc.constantFrom('.png', 'image/*', 'application/pdf'), { maxLength: 3 }),
      purpose: text(300),
      fallback: text(500),
    }),
    arbFieldBlock,
    arbFieldBlock,
    arbListBlock,
    ...arbMediaBlocks,
  ];
  if (depth <= 0) return fc.oneof(...leaves);
  const group: fc.Arbitrary<Block> = fc.record({
    kind: fc.constant('group' as const),
    title: fc.option(text(200), { nil: undefined }),
    layout: fc.constantFrom('row' as const, 'column' as const),
    blocks: fc.array(arbBlock(depth - 1), { maxLength: 4 }),
  }, { requiredKeys: ['kind', 'layout', 'blocks'] });
  return fc.oneof(...leaves, group, arbTabsBlock(depth), arbModalBlock(depth));
}

/** Tabs (1–3 titled groups) whose members are blocks of depth - 1. */
export function arbTabsBlock(depth: number): fc.Arbitrary<Block> {
  return fc.record({
    kind: fc.constant('tabs' as const),
    blocks: fc.array(fc.record({
      kind: fc.constant('group' as const),
      title: arbShortText,
      layout: fc.constantFrom('row' as const, 'column' as const),
      blocks: fc.array(arbBlock(depth - 1), { maxLength: 3 }),
    }), { minLength: 1, maxLength: 3 }),
  });
}

export function arbModalBlock(depth: number): fc.Arbitrary<Block> {
  return fc.record({
    kind: fc.constant('modal' as const),
    label: arbShortText,
    title: fc.option(text(200), { nil: undefined }),
    blocks: fc.array(arbBlock(depth - 1), { maxLength: 3 }),
  }, { requiredKeys: ['kind', 'label', 'blocks'] });
}

/** Icons, video and audio (basic catalogue); URLs http(s) like the IR admits, with tails that need escaping in HTML. */
const arbMediaUrl = fc.tuple(fc.constantFrom('https://', 'http://'), arbUrlTail, fc.constantFrom('', '?a=1&b=2', '#t=1'))
  .map(([s, t, q]) => `${s}example.com/${t}${q}`);
export const arbMediaBlocks: fc.Arbitrary<Block>[] = [
  fc.record({ kind: fc.constant('icon' as const), name: fc.constantFrom(...ICON_NAMES), label: text(200) }),
  fc.record({ kind: fc.constant('video' as const), url: arbMediaUrl, caption: text(300) }),
  fc.record({ kind: fc.constant('audio' as const), url: arbMediaUrl, description: text(300) }),
];

export const arbAction: fc.Arbitrary<ActionSpec> = fc.record({
  name: fc.constantFrom('form.submit', 'form.cancel', 'ask.answer', 'x-y_z'),
  label: arbShortText,
  role: fc.constantFrom('submit' as const, 'cancel' as const, 'secondary' as const),
  primary: fc.boolean(),
});

export const arbView: fc.Arbitrary<SurfaceView> = fc.record({
  template: fc.constantFrom('ask', 'character.sheet', 'profile'),
  title: arbShortText,
  blocks: fc.array(arbBlock(2), { maxLength: 8 }).map(uniqueListNames),
  actions: fc.array(arbAction, { maxLength: 3 }),
});

/** Stores generated entries at the path of every list of `view` (later lists win a shared path). */
function withListData(view: SurfaceView, data: Surface['data'], lists: readonly DataValue[][]): Surface['data'] {
  let out = data;
  listBlocks(view).forEach((block, i) => {
    const [ns, ...keys] = block.path.slice(1).split('/') as ['committed' | 'ui', ...string[]];
    out = { ...out, [ns]: setAt(out[ns], keys, lists[i % Math.max(1, lists.length)] ?? []) as DataMap };
  });
  return out;
}

export const SURFACE_IDS = ['main', 'side', 'x--e1'] as const;
const arbNonce = fc.string({ unit: fc.constantFrom(...SAFE_CHARS), minLength: 8, maxLength: 24 });
const AT = '2026-01-01T00:00:00Z';

const arbToastMirror = fc.record({
  id: fc.constantFrom('n1', 'n2'),
  level: fc.constantFrom('info', 'success', 'warning', 'error'),
  text: text(500, 1),
});

export function arbSurface(id?: string): fc.Arbitrary<Surface> {
  return fc.tuple(arbSurfaceWithoutLists(id), fc.array(arbListData, { minLength: 1, maxLength: 3 }))
    .map(([surface, lists]) => ({ ...surface, data: withListData(surface.view, surface.data, lists) }));
}

function arbSurfaceWithoutLists(id?: string): fc.Arbitrary<Surface> {
  return fc.record({
    id: id === undefined ? fc.constantFrom(...SURFACE_IDS) : fc.constant(id),
    epoch: fc.integer({ min: 0, max: 3 }),
    rev: fc.integer({ min: 0, max: 50 }),
    nonce: arbNonce,
    lifecycle: fc.constantFrom('active' as const, 'editing' as const, 'expired' as const, 'deleted' as const),
    view: arbView,
    data: fc.record({
      draft: arbDataMap(),
      committed: arbDataMap(),
      ui: fc.tuple(arbDataMap(1, 3), fc.option(arbToastMirror, { nil: undefined }))
        .map(([ui, toast]) => (toast ? { ...ui, toast } : ui)),
    }),
    tombstones: fc.constant([] as string[]),
    createdAt: fc.constant(AT),
    updatedAt: fc.constant(AT),
  });
}

export const arbConversationIr: fc.Arbitrary<ConversationIr> = fc
  .uniqueArray(fc.constantFrom(...SURFACE_IDS), { maxLength: 3 })
  .chain((ids) => fc.tuple(...ids.map((id) => arbSurface(id))))
  .map((surfaces) => ({
    version: IR_VERSION, conversationId: 'c1', seq: 0, transcript: [], surfaces, toasts: [] as Toast[],
  }));

/** One IR transition, as data; `applyTransitions` runs them through src/ui-ir/transitions.ts. */
export type TransitionOp =
  | { t: 'open'; id: string; view: SurfaceView; draft?: DataMap | undefined; ui?: DataMap | undefined }
  | { t: 'patch'; id: string; ops: DataOp[] }
  | { t: 'commit'; id: string; draft: DataMap; committed: DataMap }
  | { t: 'close' | 'expire' | 'reset'; id: string }
  | { t: 'toast'; id?: string | undefined; level: 'info' | 'success' | 'warning' | 'error'; text: string }
  | { t: 'list'; id: string; list: string; items: DataValue[] }
  | { t: 'tableState'; id: string; table: string; state: TableState };

const arbSurfaceRef = fc.constantFrom('main', 'side');
const arbKeys = fc.array(arbDataKey, { minLength: 1, maxLength: 2 });
const arbDataOp: fc.Arbitrary<DataOp> = fc.oneof(
  fc.record({ op: fc.constantFrom('add' as const, 'replace' as const), namespace: fc.constantFrom('draft' as const, 'ui' as const), keys: arbKeys, value: arbDataValue(1) }),
  fc.record({ op: fc.constant('remove' as const), namespace: fc.constantFrom('draft' as const, 'ui' as const), keys: arbKeys }),
);

export const arbTransitionOp: fc.Arbitrary<TransitionOp> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ t: fc.constant('open' as const), id: arbSurfaceRef, view: arbView, draft: fc.option(arbDataMap(1, 4), { nil: undefined }), ui: fc.option(arbDataMap(1, 2), { nil: undefined }) }) },
  { weight: 4, arbitrary: fc.record({ t: fc.constant('patch' as const), id: arbSurfaceRef, ops: fc.array(arbDataOp, { minLength: 1, maxLength: 3 }) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('commit' as const), id: arbSurfaceRef, draft: arbDataMap(1, 3), committed: arbDataMap(2, 4) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constantFrom('close' as const, 'expire' as const, 'reset' as const), id: arbSurfaceRef }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('toast' as const), id: fc.option(arbSurfaceRef, { nil: undefined }), level: fc.constantFrom('info' as const, 'success' as const, 'warning' as const, 'error' as const), text: text(500, 1) }) },
  { weight: 3, arbitrary: fc.record({ t: fc.constant('list' as const), id: arbSurfaceRef, list: fc.constantFrom(...LIST_NAMES), items: arbListData }) },
);

/** Applies ops in order from an empty conversation; returns every IR along the way (index 0 = empty). */
export function applyTransitions(ops: readonly TransitionOp[], seed = 'arb'): ConversationIr[] {
  const source = createSeededSource(seed);
  let ir = emptyConversation('c1');
  const out = [ir];
  for (const op of ops) {
    const d = draw(source);
    let next: ConversationIr | undefined;
    switch (op.t) {
      case 'open': next = openSurface(ir, { id: op.id, view: op.view, draft: op.draft, ui: op.ui }, d); break;
      case 'toast': next = addToast(ir, { level: op.level, text: op.text, ...(op.id ? { surfaceId: op.id } : {}) }, d); break;
      default: {
        const r = op.t === 'list' ? writeListItems(ir, op.id, op.list, listEdit(ir, op), d)
          : op.t === 'tableState' ? writeTableState(ir, op.id, op.table, op.state, d)
          : op.t === 'patch' ? patchSurfaceData(ir, op.id, op.ops, d)
          : op.t === 'commit' ? commitSurface(ir, op.id, { draft: op.draft, committed: op.committed }, d)
            : op.t === 'close' ? closeSurface(ir, op.id, d)
              : op.t === 'expire' ? expireSurface(ir, op.id, d)
                : resetSurfaceEpoch(ir, op.id, d);
        if (r.ok) next = r.ir;
      }
    }
    if (next !== undefined) {
      ir = next;
      out.push(ir);
    }
  }
  return out;
}

/**
 * A list write as the list directives and actions make them, chosen by the generated items' length
 * against the stored ones: an append (the old items, then the new), a removal of one item, one item
 * changed, or a replacement — so updates exercise each way a list's encoding changes.
 */
function listEdit(ir: ConversationIr, op: Extract<TransitionOp, { t: 'list' }>): DataValue[] {
  const surface = ir.surfaces.find((s) => s.id === op.id);
  const block = surface === undefined ? undefined : listBlocks(surface.view).find((b) => b.name === op.list);
  if (surface === undefined || block === undefined) return op.items;
  let stored: unknown = surface.data;
  for (const key of block.path.slice(1).split('/')) stored = stored !== null && typeof stored === 'object' && !Array.isArray(stored) ? (stored as Record<string, unknown>)[key] : undefined;
  const old = Array.isArray(stored) ? (stored as DataValue[]) : [];
  switch (op.items.length % 4) {
    case 0: return [...old, ...op.items];
    case 1: return old.length === 0 ? op.items : old.filter((_, i) => i !== op.items.length % old.length);
    case 2: return old.length === 0 ? op.items : old.map((v, i) => (i === op.items.length % old.length ? op.items[0]! : v));
    default: return op.items;
  }
}

/**
 * Histories that start with a list on `main` (items at /ui/lists/items, at least one item action)
 * and keep writing lists among the other transitions: for the collection suites, which need
 * items to click far more often than arbTransitionSequence has them.
 */
export const arbListHistory: fc.Arbitrary<TransitionOp[]> = fc
  .tuple(
    arbView,
    arbListBlock.filter((b) => b.actions.length > 0).map((b) => ({ ...b, name: 'items', path: '/ui/lists/items' })),
    fc.array(arbListEntry, { minLength: 1, maxLength: 8 }),
    fc.array(fc.oneof({ weight: 2, arbitrary: arbTransitionOp }, {
      weight: 1, arbitrary: fc.record({ t: fc.constant('list' as const), id: fc.constant('main'), list: fc.constant('items'), items: arbListData }),
    }), { maxLength: 6 }),
  )
  .map(([view, list, items, rest]) => [
    { t: 'open' as const, id: 'main', view: { ...view, blocks: uniqueListNames([list, ...view.blocks]) }, ui: { lists: { items } } },
    ...rest,
  ]);

/** Starts by opening `main`, so most later ops find a surface to act on. */
export const arbTransitionSequence: fc.Arbitrary<TransitionOp[]> = fc
  .tuple(fc.record({ t: fc.constant('open' as const), id: fc.constant('main'), view: arbView, draft: fc.option(arbDataMap(1, 4), { nil: undefined }) }),
    fc.array(arbTransitionOp, { maxLength: 6 }))
  .map(([open, rest]) => [open, ...rest]);

/**
 * Tables: columns of every type over the item pool's fields (so cells are often of the wrong
 * type for their column, which must show as text), every locale and some currencies without a
 * symbol, pages of 1–4 rows so data often spans several pages, and an initial sort that names a
 * sortable column. Row data comes from arbListData with dates mixed in.
 */
const arbTableColumn: fc.Arbitrary<TableColumn> = fc.record({
  key: fc.constantFrom(...ITEM_FIELDS),
  label: arbShortText,
  type: fc.constantFrom(...TableColumnType.options),
  locale: fc.constantFrom(...TABLE_LOCALES),
  currency: fc.constantFrom('USD', 'EUR', 'JPY', 'GBP', 'XYZ'),
  digits: fc.integer({ min: 0, max: 3 }),
  sortable: fc.boolean(),
});

export const arbTableBlock: fc.Arbitrary<TableBlock> = fc.record({
  kind: fc.constant('table' as const),
  name: fc.constantFrom(...LIST_NAMES),
  title: fc.option(text(200), { nil: undefined }),
  path: fc.constantFrom(...LIST_PATHS),
  itemKey: fc.constantFrom('id', 'key'),
  columns: fc.uniqueArray(arbTableColumn, { minLength: 1, maxLength: 4, selector: (c) => c.key }),
  pageSize: fc.integer({ min: 1, max: 4 }),
  sort: fc.option(fc.record({ pick: fc.nat(), dir: fc.constantFrom('asc' as const, 'desc' as const) }), { nil: undefined }),
  actions: fc.uniqueArray(fc.record({ name: fc.constantFrom(...ITEM_ACTIONS), label: arbShortText, primary: fc.boolean() }), { maxLength: 2, selector: (a) => a.name }),
  empty: text(300),
}, { requiredKeys: ['kind', 'name', 'path', 'itemKey', 'columns', 'pageSize', 'actions', 'empty'] })
  .map(({ sort, ...block }) => {
    const sortable = block.columns.filter((c) => c.sortable);
    return sort === undefined || sortable.length === 0 ? block : { ...block, sort: { column: sortable[sort.pick % sortable.length]!.key, dir: sort.dir } };
  });

const arbCell: fc.Arbitrary<DataValue> = fc.oneof(
  { weight: 2, arbitrary: arbItemValue },
  { weight: 1, arbitrary: fc.constantFrom('2026-12-02', '2024-02-29', '2026-02-30', '2026-12-02T23:30:00Z', '12.5', '-3', '1e3') },
  { weight: 1, arbitrary: fc.double({ min: -1e7, max: 1e7, noNaN: true, noDefaultInfinity: true }) },
);

export const arbTableEntry: fc.Arbitrary<DataValue> = fc.oneof(
  { weight: 8, arbitrary: fc.tuple(fc.constantFrom('id', 'key'), fc.constantFrom(...ITEM_KEYS), fc.dictionary(fc.constantFrom(...ITEM_FIELDS), arbCell, { maxKeys: 5 }))
    .map(([field, key, rest]) => ({ ...rest, id: key, [field]: key })) },
  { weight: 1, arbitrary: arbListEntry },
);

export const arbTableData: fc.Arbitrary<DataValue[]> = fc.array(arbTableEntry, { maxLength: 10 });

/** A stored sort and page as the controls write them; columns from the pool (sometimes not the table's). */
export const arbTableState: fc.Arbitrary<TableState> = fc.record({
  sort: fc.option(fc.record({ column: fc.constantFrom(...ITEM_FIELDS), dir: fc.constantFrom('asc' as const, 'desc' as const) }), { nil: undefined }),
  page: fc.integer({ min: 1, max: 5 }),
}, { requiredKeys: ['page'] });

/** A view holding one or two tables among other blocks. */
export const arbTableView: fc.Arbitrary<SurfaceView> = fc.record({
  template: fc.constant('table'),
  title: arbShortText,
  blocks: fc.tuple(fc.array(arbTableBlock, { minLength: 1, maxLength: 2 }), fc.array(arbBlock(1), { maxLength: 2 }))
    .map(([tables, rest]) => uniqueListNames([...tables, ...rest])),
  actions: fc.array(arbAction, { maxLength: 2 }),
}).filter((v) => SurfaceViewSchema.safeParse(v).success);

/**
 * Histories of tables: `main` opens with a table view and rows, then rows change (list writes
 * reach tables by name), sorts and pages change, other transitions happen.
 */
export const arbTableHistory: fc.Arbitrary<TransitionOp[]> = fc
  .tuple(
    arbTableView,
    arbTableData,
    fc.array(fc.oneof(
      { weight: 3, arbitrary: fc.record({ t: fc.constant('tableState' as const), id: fc.constant('main'), table: fc.constantFrom(...LIST_NAMES), state: arbTableState }) },
      { weight: 2, arbitrary: fc.record({ t: fc.constant('list' as const), id: fc.constant('main'), list: fc.constantFrom(...LIST_NAMES), items: arbTableData }) },
      { weight: 1, arbitrary: fc.record({ t: fc.constant('open' as const), id: fc.constantFrom('main', 'side'), view: arbTableView }) },
      { weight: 1, arbitrary: arbTransitionOp },
    ), { maxLength: 6 }),
  )
  .map(([view, rows, rest]): TransitionOp[] => {
    let ui: DataMap = {};
    for (const block of view.blocks) {
      if (block.kind !== 'table' || !block.path.startsWith('/ui/')) continue;
      ui = setAt(ui, block.path.slice(4).split('/'), rows) as DataMap;
    }
    return [{ t: 'open', id: 'main', view, ui }, ...rest];
  });
