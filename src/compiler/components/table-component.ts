import { z } from 'zod';
import { AccessibilityAttributes, Action, DynamicString, DynamicValue } from '../../a2ui-v0_9-protocol/common.ts';
import { MAX_TABLE_COLUMNS, SortDirection, TableColumnType } from '../../ui-ir/index.ts';

/**
 * `Table`: the component a `table` block becomes for an A2UI v0.9 client holding the app
 * catalogue (Surfacer builds it into every app catalogue; ui-ir BUILTIN_COMPONENT_TYPES keeps
 * the name from the app's own). It carries what a client needs to draw the page the server
 * chose: the columns, the shown rows (bound: `rows` is the same /view data the basic fallback's
 * List reads, each row `{key, d0, d1, …}` with one formatted cell per column, plain text, and
 * `u<i>` beside a link cell's text: its http(s) URL), the sort and the pager. Its actions are
 * the very actions the fallback's Buttons carry (same names, same context: `table.sort`
 * `{table, column, dir}`, `table.page` `{table, page}`, a row's `{list, item}`, each with the
 * surface's nonce and rev), so the same handlers apply them, as stale-safe and idempotent.
 *
 * These zod schemas are the one description: the catalogue document's JSON Schema
 * (catalog-v09.ts) and the validator's wire schema (wire-v09.ts) are generated from them.
 */
export const TABLE_COMPONENT = 'Table';

/** A row button: the action a fallback row's Button carries, its `item` bound relative to the row (`{path: "key"}`). */
export const ItemActionWire = z.strictObject({ label: z.string(), primary: z.boolean().optional(), action: Action });

export const TableComponentColumn = z.strictObject({
  key: z.string().describe('the row field the column shows; its cells are the rows\' d<i> (i: the column\'s index)'),
  label: z.string(),
  type: TableColumnType,
  align: z.enum(['start', 'end']).describe('numbers and currency end-aligned'),
  sorted: SortDirection.optional().describe('set on the column the rows are sorted by'),
  sortAction: Action.optional().describe('the header\'s sort button: sorts by this column (the other way when it is the sorted one)'),
});

export const TableComponentProps = z.strictObject({
  caption: z.string().max(200).optional(),
  columns: z.array(TableComponentColumn).min(1).max(MAX_TABLE_COLUMNS),
  rows: DynamicValue.describe('bound to the shown page\'s rows, in order: each {"key": the row\'s key, "d<i>": column i\'s text, "u<i>": a link cell\'s URL}'),
  note: DynamicString.describe('shown under the rows: the empty text, or which rows of how many'),
  page: z.number().int().min(1),
  pages: z.number().int().min(1),
  total: z.number().int().min(0),
  pageLabel: z.string().describe('"Page 2 of 5", or empty with one page'),
  previousAction: Action.optional(),
  nextAction: Action.optional(),
  rowActions: z.array(ItemActionWire).max(4).optional().describe('buttons on every row: each action\'s context names the row by a binding relative to it'),
});
export type TableComponentProps = z.infer<typeof TableComponentProps>;

export const TABLE_DESCRIPTION = 'A table block\'s shown page: columns with sort buttons, formatted rows with row buttons, and a pager (sorted and paged on the server).';

/** The whole wire component, strict like the basic catalogue's. */
export const TableComponentWire = z.strictObject({
  id: z.string(),
  component: z.literal(TABLE_COMPONENT),
  accessibility: AccessibilityAttributes.optional(),
  weight: z.number().optional(),
  ...TableComponentProps.shape,
});

/** The row field of a link cell's URL (its text is `d<i>`, a2ui-shared listValueKey). */
export const tableLinkKey = (i: number): string => `u${i}`;
