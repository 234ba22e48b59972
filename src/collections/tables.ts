import { z } from 'zod';
import { makeError } from '../errors/index.ts';
import { DEFAULT_LIMITS, itemBudget, type DirectiveDefinition, type DirectiveLimits } from '../directives/index.ts';
import type { ActionDefinition } from '../ingress/index.ts';
import {
  DataKey, findLiveSurface, isPlainObject, MAX_TABLE_COLUMNS, MAX_TABLE_PAGE_SIZE, openSurface, panelFor, SortDirection, SurfaceId,
  TABLE_ACTIONS_NAMES, TABLE_ROWS_KEY, TABLE_STATE_KEY, TableColumnType, TableLocale, tableBlocks, tablePage, writeTableState,
  type Block, type DataMap, type Surface, type SurfaceView, type TableBlock, type TableState, type TransitionResult,
} from '../ui-ir/index.ts';
import { ITEM_KEY_FIELD, ListItemInput, normaliseItemIds, uniqueIds } from './items.ts';
import { itemActionsShape, Label } from './payload.ts';

/*
 * Tables (issue 32): `ui.show_table` opens a panel with a table the model fills (rows it was
 * given or read with an app tool in the tool loop), and the two table controls every table
 * offers, `table.sort` and `table.page`. Rows stay on the server: the compilers send the shown
 * page only, and the controls change the table's state under `/ui/table_state/<name>` with a new
 * rev (ui-ir writeTableState), so a control or row button of an older rendering is stale (409),
 * and a replayed idempotency key applies once (ingress), like any action.
 */

const DEFAULT_TABLE = 'table';
const DEFAULT_PAGE_SIZE = 10;
const DEFAULT_EMPTY = 'Nothing to show yet.';

const refuse = (detail: string): Extract<TransitionResult, { ok: false }> =>
  ({ ok: false, error: makeError('A2UI_C2S_TABLE_CONTROL_INVALID', detail) });

/** What a sort button sends besides `table`, nonce and rev: the column and the direction it sets. */
const SortContext = z.object({ column: z.string().max(64), dir: z.string().max(8) });
/** What a page button sends besides `table`, nonce and rev: the page it opens (HTML posts it as text). */
const PageContext = z.object({ page: z.union([z.string().max(12), z.number()]) });

/**
 * A table control: its context schema, and what it sets on the table the request names (a
 * refusal when the column, direction or page is not one the table offers).
 */
function tableControl(name: string, description: string, schema: z.ZodType,
  next: (block: TableBlock, surface: Surface, context: Record<string, unknown>) => TableState | string): ActionDefinition {
  return {
    name, scope: 'table', description,
    contextSchema: () => schema as z.ZodType<Record<string, unknown>>,
    handle(ir, surface, context, draw) {
      const block = tableBlocks(surface.view).find((b) => b.name === context.table);
      if (block === undefined) return refuse(`no table ${JSON.stringify(context.table)}`);
      const state = next(block, surface, context);
      return typeof state === 'string' ? refuse(state) : writeTableState(ir, surface.id, block.name, state, draw);
    },
  };
}

export const tableSortAction = tableControl(TABLE_ACTIONS_NAMES.sort, 'Sort a table by one of its columns (back to its first page).', SortContext,
  (block, surface, context) => {
    const column = block.columns.find((c) => c.key === context.column);
    if (column === undefined || !column.sortable) return `table "${block.name}" cannot be sorted by ${JSON.stringify(context.column)}`;
    // No rendering offers a sort of fewer than two rows (nothing to order): nor does the ingress take one.
    const { total } = tablePage(surface, block);
    if (total < 2) return `table "${block.name}" has ${total} row${total === 1 ? '' : 's'}: nothing to sort`;
    const dir = SortDirection.safeParse(context.dir);
    if (!dir.success) return `sort direction ${JSON.stringify(context.dir)} is neither asc nor desc`;
    return { sort: { column: column.key, dir: dir.data }, page: 1 };
  });

export const tablePageAction = tableControl(TABLE_ACTIONS_NAMES.page, 'Show another page of a table.', PageContext,
  (block, surface, context) => {
    const raw = context.page;
    const page = typeof raw === 'number' ? raw : typeof raw === 'string' && /^[1-9][0-9]{0,8}$/.test(raw) ? Number(raw) : NaN;
    const shown = tablePage(surface, block);
    if (!Number.isInteger(page) || page < 1 || page > shown.pages) return `table "${block.name}" has pages 1 to ${shown.pages}, not ${JSON.stringify(raw)}`;
    return { ...(shown.sort === undefined ? {} : { sort: shown.sort }), page };
  });

/** Register these (with the app's other actions) to let a table be sorted and paged. */
export const TABLE_ACTIONS: readonly ActionDefinition[] = [tableSortAction, tablePageAction];

export interface TableDirectiveOptions {
  /** Names of the app's item actions (`scope: 'item'`): buttons a table may carry on each row. */
  itemActions: readonly string[];
  /** The panel a directive targets when it names none. */
  defaultSurface?: string;
}

const ShowColumn = z.object({
  key: DataKey.describe('the row field the column shows'),
  label: Label.describe('column heading'),
  type: TableColumnType.optional().describe('text (default) | number | date (YYYY-MM-DD) | currency | badge | link (an http(s) URL)'),
  locale: TableLocale.optional().describe('how numbers and dates are written; default en-US'),
  currency: z.string().regex(/^[A-Z]{3}$/).optional().describe('ISO 4217 code of a currency column; default USD'),
  digits: z.number().int().min(0).max(6).optional().describe('fraction digits of a number column; default 0'),
  sortable: z.boolean().optional().describe('whether the user may sort by it; default true'),
}).strict();

export interface ShowTablePayload {
  surface?: string | undefined;
  table?: string | undefined;
  title: string;
  intro?: string | undefined;
  caption?: string | undefined;
  columns: z.infer<typeof ShowColumn>[];
  rows: Record<string, string | number | boolean>[];
  sort?: { column: string; dir?: 'asc' | 'desc' | undefined } | undefined;
  page_size?: number | undefined;
  empty?: string | undefined;
  actions?: { name: string; label: string; primary?: boolean | undefined }[] | undefined;
}

/** The column and page budgets of a payload, with pointers (rows: itemBudget). */
function tableBudget(p: ShowTablePayload, limits: DirectiveLimits) {
  if (p.columns.length > limits.maxTableColumns) {
    return makeError('DIRECTIVE_BUDGET_EXCEEDED', `the table has ${p.columns.length} columns; the limit is ${limits.maxTableColumns}`, { pointer: '/columns' });
  }
  if ((p.page_size ?? DEFAULT_PAGE_SIZE) > limits.maxTablePageSize) {
    return makeError('DIRECTIVE_BUDGET_EXCEEDED', `a page of ${p.page_size} rows; the limit is ${limits.maxTablePageSize}`, { pointer: '/page_size' });
  }
  return itemBudget(p.rows, p.rows.length, limits, '/rows', true);
}

export function createTableDirective(options: TableDirectiveOptions): DirectiveDefinition<ShowTablePayload> {
  const defaultSurface = options.defaultSurface ?? 'main';
  const names = [...new Set(options.itemActions)];
  const payload = z.object({
    surface: SurfaceId.describe(`surface id; default "${defaultSurface}"`).optional(),
    table: DataKey.describe(`the table's name on its panel; default "${DEFAULT_TABLE}"`).optional(),
    title: Label.describe('panel title'),
    intro: z.string().min(1).max(1000).optional().describe('a sentence shown above the table'),
    caption: z.string().min(1).max(200).optional().describe('the table\'s caption'),
    columns: z.array(ShowColumn).min(1).max(MAX_TABLE_COLUMNS).describe(`the columns, in order (at most ${DEFAULT_LIMITS.maxTableColumns} by default)`),
    rows: z.array(ListItemInput).describe(`the rows, each {"${ITEM_KEY_FIELD}": key, <column key>: value} (at most ${DEFAULT_LIMITS.maxTableRows} by default; the user pages through them)`),
    sort: z.object({ column: DataKey, dir: SortDirection.optional() }).strict().optional().describe('the first order; default as given'),
    page_size: z.number().int().min(1).max(MAX_TABLE_PAGE_SIZE).optional().describe(`rows per page; default ${DEFAULT_PAGE_SIZE}`),
    empty: z.string().max(300).optional().describe(`shown when there is no row; default "${DEFAULT_EMPTY}"`),
    ...itemActionsShape(names),
  }).strict().superRefine((p, ctx) => {
    uniqueIds(p.rows, 'rows', ctx);
    const keys = p.columns.map((c) => c.key);
    keys.forEach((k, i) => { if (keys.indexOf(k) !== i) ctx.addIssue({ code: 'custom', path: ['columns', i, 'key'], message: `column "${k}" appears twice` }); });
    if (p.sort !== undefined && !p.columns.some((c) => c.key === p.sort!.column && c.sortable !== false)) {
      ctx.addIssue({ code: 'custom', path: ['sort', 'column'], message: 'not a sortable column of the table' });
    }
    const actions = (p as { actions?: { name: string }[] }).actions ?? [];
    if (new Set(actions.map((a) => a.name)).size !== actions.length) ctx.addIssue({ code: 'custom', path: ['actions'], message: 'an action appears twice' });
  });

  return {
    type: 'ui.show_table',
    aliases: ['show_table', 'ui.table', 'table', 'ui.showTable', 'ui.show_grid'],
    description: 'Open a panel with a table of rows (records, orders, results to compare): typed columns (text, number, date, '
      + 'currency, badge, link) the user can sort by, paged on the server, with the buttons of the item actions you pick on each row. '
      + 'Replaces what the panel showed, unless it holds a form: then it opens beside it.',
    payload: payload as unknown as z.ZodType<ShowTablePayload>,
    example: {
      title: 'Orders', table: 'orders', caption: 'Recent orders',
      columns: [
        { key: 'customer', label: 'Customer' }, { key: 'total', label: 'Total', type: 'currency', currency: 'EUR', locale: 'de-DE' },
        { key: 'placed', label: 'Placed', type: 'date' }, { key: 'state', label: 'State', type: 'badge' },
      ],
      rows: [
        { id: 'o1', customer: 'Ada', total: 1234.5, placed: '2026-11-30', state: 'paid' },
        { id: 'o2', customer: 'Grace', total: 99, placed: '2026-12-01', state: 'open' },
      ],
      sort: { column: 'placed', dir: 'desc' },
      ...(names.length === 0 ? {} : { actions: [{ name: names[0]!, label: 'Open' }] }),
    },
    normalise: (raw, ctx) => (isPlainObject(raw) && Object.hasOwn(raw, 'rows') ? { ...raw, rows: normaliseItemIds(raw.rows, '/rows', ctx) } : raw),
    apply(ir, p, draw, context) {
      const over = tableBudget(p, context?.limits ?? DEFAULT_LIMITS);
      if (over !== undefined) return { ok: false, error: over };
      const name = p.table ?? DEFAULT_TABLE;
      const block: TableBlock = {
        kind: 'table', name, path: `/ui/${TABLE_ROWS_KEY}/${name}`, itemKey: ITEM_KEY_FIELD,
        ...(p.caption === undefined ? {} : { title: p.caption }),
        columns: p.columns.map((c) => ({
          key: c.key, label: c.label, type: c.type ?? 'text', locale: c.locale ?? 'en-US', currency: c.currency ?? 'USD',
          digits: c.digits ?? 0, sortable: c.sortable ?? true,
        })),
        pageSize: p.page_size ?? DEFAULT_PAGE_SIZE,
        ...(p.sort === undefined ? {} : { sort: { column: p.sort.column, dir: p.sort.dir ?? 'asc' } }),
        actions: (p.actions ?? []).map((a) => ({ name: a.name, label: a.label, primary: a.primary ?? false })),
        empty: p.empty ?? DEFAULT_EMPTY,
      };
      const blocks: Block[] = p.intro === undefined ? [block] : [{ kind: 'text', text: p.intro, tone: 'body' }, block];
      const view: SurfaceView = { template: 'table', title: p.title, blocks, actions: [] };
      const id = panelFor(ir, p.surface ?? defaultSurface, view);
      const existing = findLiveSurface(ir, id);
      // A new table starts on its first page in its own order: the old one's rows and state go.
      const { [TABLE_ROWS_KEY]: _rows, [TABLE_STATE_KEY]: _state, ...ui } = existing?.data.ui ?? {};
      const next = openSurface(ir, { id, view, draft: {}, ui: { ...ui, [TABLE_ROWS_KEY]: { [name]: p.rows } } as DataMap }, draw);
      return { ok: true, ir: next };
    },
  };
}
