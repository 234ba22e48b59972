import {
  cellDate, cellNumber, HTTP_URL, pathTokens, TABLE_ROWS_KEY, tableBlocks, tablePage, type DataMap, type DataValue, type Surface, type TableBlock, type TableColumn,
  type TableLocale,
} from '../ui-ir/index.ts';
import { removeAt } from '../ui-ir/pointer.ts';
import { textOf } from './list-view.ts';

/**
 * What a table block shows, the same for every compiler (A2UI v0.8, v0.9 and HTML): its columns
 * with their sort state, the rows of the shown page (ui-ir/tables.ts decides which) as one
 * display string per column, and the pager. Cells are formatted here, on the server, by
 * Surfacer's own rules per locale (no Intl, no machine locale or time zone), so the compiled
 * output is a pure function of the IR:
 *
 * - number: the column's `digits`, grouped; currency: the currency's digits (JPY 0, else 2) and
 *   symbol (its code when it has no common one), placed as the locale writes it;
 * - date: an ISO date (or the date part of an ISO date-time, as written: no time-zone shift),
 *   written the locale's way;
 * - link: http(s) URLs only (anything else is shown as plain text, never as a link);
 * - text, badge, and a value a typed column cannot read: as text (list-view rules).
 */
export interface TableViewColumn {
  readonly key: string;
  readonly label: string;
  readonly type: TableColumn['type'];
  readonly sortable: boolean;
  /** Set on the column the rows are sorted by. */
  readonly sorted?: 'asc' | 'desc';
}

export interface TableViewCell {
  readonly text: string;
  /** A link cell's URL (http/https only). */
  readonly href?: string;
}

export interface TableViewRow {
  readonly key: string;
  readonly cells: readonly TableViewCell[];
}

export interface TableView {
  readonly columns: readonly TableViewColumn[];
  readonly rows: readonly TableViewRow[];
  readonly page: number;
  readonly pages: number;
  readonly total: number;
  /** `Page 2 of 5`, or '' with a single page. */
  readonly pageLabel: string;
  /** `empty` when there is no row, `Rows 11–20 of 45.` when there are several pages, else ''. */
  readonly note: string;
  /** Stored entries left out (no valid key, or a repeated one). */
  readonly invalid: number;
}

interface LocaleRules {
  group: string;
  decimal: string;
  /** Currency symbol after the number (with a no-break space), not before it. */
  symbolAfter: boolean;
  date(d: { y: number; m: number; d: number }): string;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n: number): string => String(n).padStart(2, '0');

const LOCALES: Record<TableLocale, LocaleRules> = {
  'en-US': { group: ',', decimal: '.', symbolAfter: false, date: ({ y, m, d }) => `${MONTHS[m - 1]} ${d}, ${y}` },
  'en-GB': { group: ',', decimal: '.', symbolAfter: false, date: ({ y, m, d }) => `${d} ${MONTHS[m - 1]} ${y}` },
  'de-DE': { group: '.', decimal: ',', symbolAfter: true, date: ({ y, m, d }) => `${pad(d)}.${pad(m)}.${y}` },
  'fr-FR': { group: '\u202F', decimal: ',', symbolAfter: true, date: ({ y, m, d }) => `${pad(d)}/${pad(m)}/${y}` },
  'es-ES': { group: '.', decimal: ',', symbolAfter: true, date: ({ y, m, d }) => `${pad(d)}/${pad(m)}/${y}` },
  'ja-JP': { group: ',', decimal: '.', symbolAfter: false, date: ({ y, m, d }) => `${y}/${pad(m)}/${pad(d)}` },
};

const SYMBOLS: Readonly<Record<string, string>> = { USD: '$', EUR: '€', GBP: '£', JPY: '¥', CHF: 'CHF', INR: '₹', KRW: '₩', CNY: 'CN¥' };
const ZERO_DIGIT_CURRENCIES: ReadonlySet<string> = new Set(['JPY', 'KRW', 'CLP', 'ISK', 'VND']);
const MAX_URL = 2048;

/** `n` with `digits` fraction digits, grouped by threes: the locale's separators, nothing else. */
export function formatNumber(n: number, digits: number, locale: TableLocale): string {
  const rules = LOCALES[locale];
  const abs = Math.abs(n);
  // toFixed writes exponents from 1e21 on: such a number is shown as JavaScript writes it.
  if (abs >= 1e21) return String(n);
  const [whole, fraction] = abs.toFixed(digits).split('.') as [string, string | undefined];
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, rules.group);
  const negative = n < 0 && /[1-9]/.test(`${whole}${fraction ?? ''}`);
  return `${negative ? '-' : ''}${grouped}${fraction === undefined ? '' : `${rules.decimal}${fraction}`}`;
}

export function formatCurrency(n: number, currency: string, locale: TableLocale): string {
  const digits = ZERO_DIGIT_CURRENCIES.has(currency) ? 0 : 2;
  const number = formatNumber(Math.abs(n), digits, locale);
  const symbol = SYMBOLS[currency] ?? currency;
  const sign = n < 0 && /[1-9]/.test(number) ? '-' : '';
  return LOCALES[locale].symbolAfter ? `${sign}${number}\u00A0${symbol}` : `${sign}${symbol}${symbol.length > 1 ? '\u00A0' : ''}${number}`;
}

/** One cell of `column` for a row's value. */
export function formatCell(column: TableColumn, v: DataValue | undefined): TableViewCell {
  switch (column.type) {
    case 'number': { const n = cellNumber(v); return { text: n === undefined ? textOf(v) : formatNumber(n, column.digits, column.locale) }; }
    case 'currency': { const n = cellNumber(v); return { text: n === undefined ? textOf(v) : formatCurrency(n, column.currency, column.locale) }; }
    case 'date': { const d = cellDate(v); return { text: d === undefined ? textOf(v) : LOCALES[column.locale].date(d) }; }
    case 'link': return typeof v === 'string' && v.length <= MAX_URL && HTTP_URL.test(v) ? { text: v, href: v } : { text: textOf(v) };
    default: return { text: textOf(v) };
  }
}

const views = new WeakMap<object, WeakMap<TableBlock, TableView>>();

/** The view of `block` on `surface`; memoised with its page (the same page, the same view). */
export function tableView(surface: Pick<Surface, 'data'>, block: TableBlock): TableView {
  const page = tablePage(surface, block);
  let byBlock = views.get(page);
  if (byBlock === undefined) views.set(page, byBlock = new WeakMap());
  let view = byBlock.get(block);
  if (view === undefined) {
    const start = (page.page - 1) * block.pageSize;
    view = {
      columns: block.columns.map((c) => ({
        key: c.key, label: c.label, type: c.type, sortable: c.sortable,
        ...(page.sort?.column === c.key ? { sorted: page.sort.dir } : {}),
      })),
      rows: page.rows.map((row) => ({
        key: row.key,
        cells: block.columns.map((c) => formatCell(c, Object.hasOwn(row.value, c.key) ? row.value[c.key] : undefined)),
      })),
      page: page.page, pages: page.pages, total: page.total,
      pageLabel: page.pages > 1 ? `Page ${page.page} of ${page.pages}` : '',
      note: page.total === 0 ? block.empty : page.pages > 1 ? `Rows ${start + 1}–${start + page.rows.length} of ${page.total}.` : '',
      invalid: page.invalid,
    };
    byBlock.set(block, view);
  }
  return view;
}

/** What a sort control of `column` sets: the other direction on the sorted column, else ascending. */
export function nextSort(column: TableViewColumn): 'asc' | 'desc' {
  return column.sorted === 'asc' ? 'desc' : 'asc';
}

const hidden = new WeakMap<Surface['data'], WeakMap<Surface['view'], Pick<Surface['data'], 'committed' | 'ui'>>>();

/**
 * `/committed` and `/ui` as an A2UI client may hold them: without the rows of the surface's
 * tables (a client gets the shown page under /view, never every row), nor the rows
 * `ui.show_table` stored (/ui/tables), which stay when another directive gives the panel a view
 * without that table. Memoised per (data, view).
 */
export function withoutTableRows(surface: Pick<Surface, 'data' | 'view'>): Pick<Surface['data'], 'committed' | 'ui'> {
  const tables = tableBlocks(surface.view);
  if (tables.length === 0 && !Object.hasOwn(surface.data.ui, TABLE_ROWS_KEY)) return surface.data;
  let byView = hidden.get(surface.data);
  if (byView === undefined) hidden.set(surface.data, byView = new WeakMap());
  let out = byView.get(surface.view);
  if (out === undefined) {
    let { committed, ui } = surface.data;
    ui = removeAt(ui, [TABLE_ROWS_KEY]) as DataMap;
    for (const block of tables) {
      const [namespace, ...keys] = pathTokens(block.path);
      if (namespace === 'committed') committed = removeAt(committed, keys) as DataMap;
      else ui = removeAt(ui, keys) as DataMap;
    }
    byView.set(surface.view, out = { committed, ui });
  }
  return out;
}
