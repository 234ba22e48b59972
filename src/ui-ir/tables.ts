import { z } from 'zod';
import { listItems, type ListItem } from './collections.ts';
import { getAt, isPlainObject, setAt } from './pointer.ts';
import { DataKey, SortDirection, TABLE_STATE_KEY, type DataMap, type DataValue, type Surface, type TableBlock, type TableColumn } from './schema.ts';

/**
 * Which rows a table shows, decided here once for every compiler and for ingress (a row action
 * is accepted only for a row on the shown page): the table's valid items (collections.ts rules),
 * sorted by the state's column, then cut to the state's page. Sorting compares raw values, never
 * formatted text, and uses no locale of the machine (a plain code-unit order of lower-cased
 * text), so every host sorts alike.
 */
export const TableState = z.object({
  sort: z.object({ column: DataKey, dir: SortDirection }).optional(),
  page: z.number().int().min(1).max(1_000_000).default(1),
});
export type TableState = z.infer<typeof TableState>;

/** The two controls every table offers (collections/tables.ts defines them; the compilers emit their buttons). */
export const TABLE_ACTIONS_NAMES = { sort: 'table.sort', page: 'table.page' } as const;

export interface TablePage {
  /** The sort in force: the state's, else the block's initial one, else none (stored order). */
  readonly sort: { readonly column: string; readonly dir: 'asc' | 'desc' } | undefined;
  /** 1-based, clamped to `pages`. */
  readonly page: number;
  /** At least 1 (an empty table has one empty page). */
  readonly pages: number;
  readonly total: number;
  /** The rows of the page, in shown order. */
  readonly rows: readonly ListItem[];
  /** Stored entries left out (no valid key, or a repeated one). */
  readonly invalid: number;
}

export function tableStateTokens(name: string): string[] {
  return ['ui', TABLE_STATE_KEY, name];
}

/**
 * The stored state of `block` on `surface`. Like a list's items, anything malformed (written by
 * any directive) counts as no state: a table must still render. A sort by a column the table
 * does not have (any more), or cannot sort by, is ignored: the block's initial sort holds then.
 */
export function tableState(surface: Pick<Surface, 'data'>, block: TableBlock): TableState {
  const raw = getAt(surface.data, tableStateTokens(block.name));
  const parsed = isPlainObject(raw) ? TableState.safeParse(raw) : undefined;
  const state: TableState = parsed?.success ? parsed.data : { page: 1 };
  const usable = (s: TableState['sort']): s is NonNullable<TableState['sort']> => s !== undefined && block.columns.some((c) => c.key === s.column && c.sortable);
  const sort = usable(state.sort) ? state.sort : usable(block.sort) ? block.sort : undefined;
  return sort === undefined ? { page: state.page } : { page: state.page, sort: { column: sort.column, dir: sort.dir } };
}

/**
 * A number of a number or currency cell: a finite number, or text that is one. Numeric text
 * beyond what a double holds (over 308 digits: Number gives Infinity) is not one: it is shown
 * as given, never as "Infinity" (it still sorts by its magnitude: numberOrder).
 */
export function cellNumber(v: DataValue | undefined): number | undefined {
  const n = numberOrder(v);
  return n !== undefined && Number.isFinite(n) ? n : undefined;
}

/** What a number cell sorts by: cellNumber's value, or ±Infinity for numeric text too long for a double. */
function numberOrder(v: DataValue | undefined): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(v)) return Number(v);
  return undefined;
}

/** `YYYY-MM-DD` of a date cell: an ISO date, or the date part of an ISO date-time; a real calendar day. */
export function cellDate(v: DataValue | undefined): { y: number; m: number; d: number } | undefined {
  if (typeof v !== 'string') return undefined;
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:$|T)/.exec(v);
  if (match === null) return undefined;
  const [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const days = [31, y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  return m >= 1 && m <= 12 && d >= 1 && d <= days[m - 1]! ? { y, m, d } : undefined;
}

/** What a cell sorts by: a number, a date's day number, or lower-cased text; undefined sorts last. */
function sortKey(column: TableColumn, v: DataValue | undefined): number | string | undefined {
  switch (column.type) {
    case 'number':
    case 'currency': return numberOrder(v);
    case 'date': { const d = cellDate(v); return d === undefined ? undefined : d.y * 10_000 + d.m * 100 + d.d; }
    default:
      if (typeof v === 'string') return v.toLowerCase();
      if (typeof v === 'number' || typeof v === 'boolean') return String(v).toLowerCase();
      return undefined;
  }
}

function compareKeys(a: number | string, b: number | string): number {
  // Two equal infinities (numeric text too long for a double) are equal, not NaN apart.
  if (typeof a === 'number' && typeof b === 'number') return a === b ? 0 : a - b;
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

function sortRows(items: readonly ListItem[], column: TableColumn, dir: 'asc' | 'desc'): ListItem[] {
  const keyed = items.map((item) => ({ item, key: sortKey(column, Object.hasOwn(item.value, column.key) ? item.value[column.key] : undefined) }));
  keyed.sort((a, b) => {
    // Empty cells last in both directions; equal cells keep the stored order.
    if (a.key === undefined || b.key === undefined) return (a.key === undefined ? 1 : 0) - (b.key === undefined ? 1 : 0) || a.item.index - b.item.index;
    const c = compareKeys(a.key, b.key);
    return (dir === 'asc' ? c : -c) || a.item.index - b.item.index;
  });
  return keyed.map((k) => k.item);
}

const pages = new WeakMap<object, WeakMap<TableBlock, WeakMap<object, TablePage>>>();
const NO_STATE = {};

/**
 * The shown page of `block` on `surface`. Memoised per (stored rows, block, stored state): IR
 * values are never mutated, and ingress and every compiler ask on every action.
 */
export function tablePage(surface: Pick<Surface, 'data'>, block: TableBlock): TablePage {
  const items = listItems(surface, block);
  const stateRaw = getAt(surface.data, tableStateTokens(block.name));
  const stateKey = typeof stateRaw === 'object' && stateRaw !== null ? stateRaw : NO_STATE;
  let byBlock = pages.get(items);
  if (byBlock === undefined) pages.set(items, byBlock = new WeakMap());
  let byState = byBlock.get(block);
  if (byState === undefined) byBlock.set(block, byState = new WeakMap());
  let page = byState.get(stateKey);
  if (page === undefined) byState.set(stateKey, page = computePage(items.items, items.invalid, block, tableState(surface, block)));
  return page;
}

function computePage(items: readonly ListItem[], invalid: number, block: TableBlock, state: TableState): TablePage {
  const column = state.sort === undefined ? undefined : block.columns.find((c) => c.key === state.sort!.column);
  const sorted = column === undefined ? items : sortRows(items, column, state.sort!.dir);
  const total = sorted.length;
  const count = Math.max(1, Math.ceil(total / block.pageSize));
  const page = Math.min(state.page, count);
  const start = (page - 1) * block.pageSize;
  return { sort: state.sort, page, pages: count, total, rows: sorted.slice(start, start + block.pageSize), invalid };
}

/** `surface`'s /ui with the state of table `name` replaced (the caller bumps the rev). */
export function withTableState(ui: DataMap, name: string, state: TableState): DataMap {
  const value: Record<string, DataValue> = { page: state.page };
  if (state.sort !== undefined) value.sort = { column: state.sort.column, dir: state.sort.dir };
  return setAt(ui, tableStateTokens(name).slice(1), value) as DataMap;
}
