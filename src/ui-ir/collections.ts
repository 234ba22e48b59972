import { walkBlocks } from './ids.ts';
import { getAt, isPlainObject, isSafeDataKey } from './pointer.ts';
import type { Block, ComponentBlock, DataValue, ListBlock, Surface, SurfaceView, TableBlock } from './schema.ts';
import { tablePage } from './tables.ts';

/**
 * Which items a list block has, decided here once for every compiler and for ingress: the array
 * at the block's `path`; an entry counts when it is an object whose `itemKey` field is a string
 * data key not used by an entry before it. Anything else at the path (no array, a malformed
 * entry) is shown as nothing, never as an error: the data may have been written by any
 * directive or action, and a list must still render.
 */
export interface ListItem {
  readonly key: string;
  /** Position in the stored array. */
  readonly index: number;
  readonly value: Readonly<Record<string, DataValue>>;
}

export interface ListItems {
  /** Every valid item, in stored order. */
  readonly items: readonly ListItem[];
  /** What the list shows (and what per-item actions may name): the first `maxItems` items. */
  readonly shown: readonly ListItem[];
  /** Stored entries left out: not an object, no valid key, or a key seen before. */
  readonly invalid: number;
}

/**
 * A block that shows a collection: a list, a table, or an app component with a `path` (same item
 * rules, same per-item actions; ingress and the collection directives treat them alike by name).
 */
export type CollectionBlock = ListBlock | TableBlock | (ComponentBlock & { path: string });

/** What decides a collection's items; without `maxItems` (a table, which pages) every valid item is shown. */
export type CollectionSource = Pick<ListBlock, 'path' | 'itemKey'> & { maxItems?: number | undefined };

export function isCollectionBlock(block: Block): block is CollectionBlock {
  return block.kind === 'list' || block.kind === 'table' || (block.kind === 'component' && block.path !== undefined);
}

/** The items `block` shows now, in shown order: a table's current page, else a list's first `maxItems`. */
export function shownItems(surface: Pick<Surface, 'data'>, block: CollectionBlock): readonly ListItem[] {
  return block.kind === 'table' ? tablePage(surface, block).rows : listItems(surface, block).shown;
}

/**
 * A view's blocks that `is` holds for (one kind), depth-first (walkBlocks order), found once per view: a view is
 * immutable, and the HTML compiler, ingress and the table actions each ask for its tables and
 * collections on every action (a walk allocated an index path per block: ~7 KB per htmx action).
 */
const blocksByKind = new WeakMap<readonly Block[], Map<(b: Block) => boolean, readonly Block[]>>();

function blocksOf<B extends Block>(view: Pick<SurfaceView, 'blocks'>, is: (b: Block) => b is B): readonly B[] {
  let found = blocksByKind.get(view.blocks);
  if (found === undefined) blocksByKind.set(view.blocks, found = new Map());
  let blocks = found.get(is);
  if (blocks === undefined) {
    const out: B[] = [];
    walkBlocks(view.blocks, (b) => { if (is(b)) out.push(b); });
    // Frozen: one array answers every caller for this view (a sort or push would change it for all).
    found.set(is, blocks = Object.freeze(out));
  }
  return blocks as readonly B[];
}

const isTable = (b: Block): b is TableBlock => b.kind === 'table';
const isList = (b: Block): b is ListBlock => b.kind === 'list';

/** The table blocks of a view, depth-first (walkBlocks order). */
export function tableBlocks(view: Pick<SurfaceView, 'blocks'>): readonly TableBlock[] {
  return blocksOf(view, isTable);
}

/** The collections of a view (lists and components with a path), depth-first (walkBlocks order). */
export function collectionBlocks(view: Pick<SurfaceView, 'blocks'>): readonly CollectionBlock[] {
  return blocksOf(view, isCollectionBlock);
}

/** The list blocks of a view, depth-first (walkBlocks order). */
export function listBlocks(view: Pick<SurfaceView, 'blocks'>): readonly ListBlock[] {
  return blocksOf(view, isList);
}

/**
 * The collection (list or component) named `name` (names are unique in a view). Own comparison
 * only: `name` comes from clients.
 */
export function findListBlock(view: Pick<SurfaceView, 'blocks'>, name: string): CollectionBlock | undefined {
  return collectionBlocks(view).find((b) => b.name === name);
}

/** Collections of the view (lists and components) that offer `action` on their items. */
export function listsOffering(view: Pick<SurfaceView, 'blocks'>, action: string): CollectionBlock[] {
  return collectionBlocks(view).filter((b) => b.actions.some((a) => a.name === action));
}

export function pathTokens(path: string): string[] {
  return path.slice(1).split('/');
}

const cache = new WeakMap<object, WeakMap<CollectionSource, ListItems>>();
const EMPTY: ListItems = Object.freeze({ items: Object.freeze([]), shown: Object.freeze([]), invalid: 0 });

/**
 * The items of `block` on `surface`. Memoised per (stored array, block): IR values are never
 * mutated, so a list whose data did not change is not scanned again (ingress, both A2UI
 * compilers and HTML all ask on every action).
 */
export function listItems(surface: Pick<Surface, 'data'>, block: CollectionSource): ListItems {
  const raw = getAt(surface.data, pathTokens(block.path));
  if (!Array.isArray(raw)) return EMPTY;
  let byBlock = cache.get(raw);
  if (byBlock === undefined) cache.set(raw, byBlock = new WeakMap());
  let result = byBlock.get(block);
  if (result === undefined) byBlock.set(block, result = scan(raw as readonly DataValue[], block));
  return result;
}

function scan(raw: readonly DataValue[], block: CollectionSource): ListItems {
  const items: ListItem[] = [];
  const seen = new Set<string>();
  let invalid = 0;
  for (let index = 0; index < raw.length; index += 1) {
    const entry = raw[index];
    const key = isPlainObject(entry) && Object.hasOwn(entry, block.itemKey) ? entry[block.itemKey] : undefined;
    if (typeof key !== 'string' || !isSafeDataKey(key) || seen.has(key)) { invalid += 1; continue; }
    seen.add(key);
    items.push({ key, index, value: entry as Record<string, DataValue> });
  }
  return { items, shown: items.slice(0, block.maxItems), invalid };
}

/** The shown item of list `listName` with key `key`, if the surface shows one now. */
export function findShownItem(surface: Pick<Surface, 'data' | 'view'>, listName: string, key: string): ListItem | undefined {
  const block = findListBlock(surface.view, listName);
  return block === undefined ? undefined : shownItems(surface, block).find((item) => item.key === key);
}

/** True when a write at `tokens` (namespace first) can change what some list of `view` holds. */
export function touchesList(view: Pick<SurfaceView, 'blocks'>, tokens: readonly string[]): boolean {
  return collectionBlocks(view).some((block) => {
    const list = pathTokens(block.path);
    const n = Math.min(list.length, tokens.length);
    for (let i = 0; i < n; i += 1) if (list[i] !== tokens[i]) return false;
    return true;
  });
}
