import { describe, expect, it } from 'vitest';
import { createListDirectives, createTableDirective } from '../../../src/collections/index.ts';
import { compileConversationToA2ui } from '../../../src/compiler/a2ui-v0_8/index.ts';
import { compileConversationToA2uiV09 } from '../../../src/compiler/a2ui-v0_9/index.ts';
import { compileConversationToHtml } from '../../../src/compiler/html/index.ts';
import { validateA2uiV09Messages } from '../../../src/compiler/index.ts';
import { appCatalogSpecV09 } from '../../../src/compiler/components/index.ts';
import { testComponents, TEST_CATALOG_ID } from '../../support/components.ts';
import { formatCell, formatCurrency, formatNumber, tableView } from '../../../src/compiler/table-view.ts';
import { DEFAULT_LIMITS } from '../../../src/directives/index.ts';
import {
  createSeededSource, draw, emptyConversation, TableBlock, TableColumn, tableBlocks, writeTableState, type ConversationIr,
} from '../../../src/ui-ir/index.ts';

const column = (over: Partial<TableColumn>): TableColumn => TableColumn.parse({ key: 'v', label: 'V', ...over });

describe('table cells: formatted by Surfacer\'s own rules per locale (no machine locale, no time zone)', () => {
  it('writes numbers with the locale\'s separators and the column\'s digits', () => {
    expect(formatNumber(1234567.891, 2, 'en-US')).toBe('1,234,567.89');
    expect(formatNumber(1234567.891, 2, 'de-DE')).toBe('1.234.567,89');
    expect(formatNumber(1234567.891, 0, 'fr-FR')).toBe('1\u202F234\u202F568');
    expect(formatNumber(-0.001, 2, 'en-US')).toBe('0.00');
    expect(formatNumber(-12.5, 1, 'en-GB')).toBe('-12.5');
  });

  it('writes currencies with their digits and symbol where the locale puts it; an unknown code by its code', () => {
    expect(formatCurrency(1234.5, 'USD', 'en-US')).toBe('$1,234.50');
    expect(formatCurrency(1234.5, 'EUR', 'de-DE')).toBe('1.234,50\u00A0€');
    expect(formatCurrency(1234.5, 'JPY', 'ja-JP')).toBe('¥1,235');
    expect(formatCurrency(-3, 'XYZ', 'en-US')).toBe('-XYZ\u00A03.00');
  });

  it('writes ISO dates the locale\'s way, the date part of a date-time as written, and anything else as text', () => {
    const date = (locale: TableColumn['locale'], v: string) => formatCell(column({ type: 'date', locale }), v).text;
    expect(date('en-US', '2026-12-02')).toBe('Dec 2, 2026');
    expect(date('en-GB', '2026-12-02T23:30:00-08:00')).toBe('2 Dec 2026');
    expect(date('de-DE', '2024-02-29')).toBe('29.02.2024');
    expect(date('ja-JP', '2026-12-02')).toBe('2026/12/02');
    expect(date('en-US', '2026-02-30')).toBe('2026-02-30');
  });

  it('numeric text longer than a double holds (over 308 digits) is shown as given, never "Infinity", and sorts as the largest', () => {
    const huge = `9${'0'.repeat(320)}`;
    for (const type of ['number', 'currency'] as const) {
      expect(formatCell(column({ type }), huge).text).toBe(huge);
      expect(formatCell(column({ type }), `-${huge}`).text).toBe(`-${huge}`);
    }
    const { ir, next } = tableIr(0);
    const rows = [{ id: 'big', total: huge }, { id: 'small', total: 5 }, { id: 'neg', total: `-${huge}` }, { id: 'big2', total: huge }];
    const withRows = { ...ir, surfaces: ir.surfaces.map((s) => ({ ...s, data: { ...s.data, ui: { ...s.data.ui, tables: { orders: rows } } } })) };
    const sorted = writeTableState(withRows as ConversationIr, 'main', 'orders', { sort: { column: 'total', dir: 'asc' }, page: 1 }, next());
    if (!sorted.ok) throw new Error('not sorted');
    const surface = sorted.ir.surfaces[0]!;
    const view = tableView(surface, tableBlocks(surface.view)[0]!);
    expect(view.rows.map((r) => r.key)).toEqual(['neg', 'small', 'big']);
    expect(JSON.stringify(compileConversationToHtml(sorted.ir).html)).not.toContain('Infinity');
  });

  it('links only http(s) URLs; a cell a typed column cannot read is shown as text', () => {
    expect(formatCell(column({ type: 'link' }), 'https://example.com/a?b=1')).toEqual({ text: 'https://example.com/a?b=1', href: 'https://example.com/a?b=1' });
    expect(formatCell(column({ type: 'link' }), 'javascript:alert(1)')).toEqual({ text: 'javascript:alert(1)' });
    expect(formatCell(column({ type: 'number' }), 'n/a')).toEqual({ text: 'n/a' });
    expect(formatCell(column({ type: 'currency' }), true)).toEqual({ text: 'Yes' });
  });
});

function tableIr(rows: number, pageSize = 3): { ir: ConversationIr; next: () => ReturnType<typeof draw> } {
  const source = createSeededSource('table-test');
  const next = (): ReturnType<typeof draw> => draw(source);
  const directive = createTableDirective({ itemActions: ['list.choose'] });
  const payload = directive.payload.parse({
    title: 'Orders', table: 'orders', caption: 'Recent <orders>', page_size: pageSize,
    columns: [{ key: 'who', label: 'Customer' }, { key: 'total', label: 'Total', type: 'currency' }, { key: 'site', label: 'Site', type: 'link' }],
    rows: Array.from({ length: rows }, (_, i) => ({ id: `o${i}`, who: `<b>${String.fromCharCode(90 - i)}</b>`, total: i * 10, site: i % 2 === 0 ? 'https://e.example/' : 'javascript:x' })),
    actions: [{ name: 'list.choose', label: 'Open' }],
  });
  const applied = directive.apply(emptyConversation('c1'), payload, next(), { limits: DEFAULT_LIMITS });
  if (!applied.ok) throw new Error(JSON.stringify(applied.error));
  return { ir: applied.ir, next };
}

describe('the table on the htmx page', () => {
  it('is an accessible <table>: caption, th scope=col, aria-sort on the sorted column only, every string escaped', () => {
    const { ir, next } = tableIr(5);
    const sorted = writeTableState(ir, 'main', 'orders', { sort: { column: 'total', dir: 'desc' }, page: 1 }, next());
    if (!sorted.ok) throw new Error('not sorted');
    const html = compileConversationToHtml(sorted.ir).html;
    expect(html).toContain('<caption class="table__caption">Recent &lt;orders&gt;</caption>');
    expect(html.match(/<th scope="col"/g)?.length).toBe(4);
    expect(html.match(/aria-sort="/g)).toEqual(['aria-sort="']);
    expect(html).toMatch(/table__head--currency" aria-sort="descending">/);
    expect(html).not.toContain('<b>');
    expect(html).toContain('&lt;b&gt;');
    expect(html).not.toMatch(/href="javascript/);
    expect(html).not.toContain('<script');
  });

  it('holds only the shown page; sort headings and pager are form buttons that work without JavaScript', () => {
    const { ir } = tableIr(7);
    const surface = ir.surfaces[0]!;
    const block = tableBlocks(surface.view)[0]!;
    const view = tableView(surface, block);
    const html = compileConversationToHtml(ir).html;
    const rows = [...html.matchAll(/<tr id="[^"]+" data-key="([^"]+)"/g)].map((m) => m[1]);
    expect(rows).toEqual(view.rows.map((r) => r.key));
    expect(rows.length).toBe(3);
    // Every control button names an existing form holding what it sets.
    for (const [, form] of html.matchAll(/<button type="submit" class="[^"]*" form="([^"]+)" name="_action" value="table\.(?:sort|page)"/g)) {
      expect(html).toContain(`<form id="${form}"`);
    }
    expect(html).toContain('<input type="hidden" name="page" value="2">');
    expect(html).toContain('<input type="hidden" name="dir" value="asc">');
    expect(html).toContain('Page 1 of 3');
  });
});

describe('the htmx page offers only the table controls the app takes', () => {
  it('without table.sort / table.page among the app\'s actions: no sort heading, no pager, no control form (a click would be 403)', () => {
    const { ir } = tableIr(7);
    const controls = (html: string) => ({
      sort: (html.match(/value="table\.sort"/g) ?? []).length,
      page: (html.match(/value="table\.page"/g) ?? []).length,
      forms: (html.match(/<form id="[^"]+-(?:sort-[^"]+|page-\d+)-form"/g) ?? []).length,
    });
    const all = controls(compileConversationToHtml(ir).html);
    expect(all.sort).toBeGreaterThan(0);
    expect(all.page).toBeGreaterThan(0);
    expect(controls(compileConversationToHtml(ir, { allowedActions: ['table.sort', 'table.page'] }).html)).toEqual(all);
    expect(controls(compileConversationToHtml(ir, { allowedActions: [] }).html)).toEqual({ sort: 0, page: 0, forms: 0 });
    const sortOnly = controls(compileConversationToHtml(ir, { allowedActions: ['table.sort'] }).html);
    expect(sortOnly).toMatchObject({ sort: all.sort, page: 0 });
    const html = compileConversationToHtml(ir, { allowedActions: [] }).html;
    // The page of rows and its label are still shown: only the controls go.
    expect(html).toContain('Page 1 of 3');
    expect(html.match(/<tr id="[^"]+" data-key="/g)?.length).toBe(3);
  });
});

describe('ui.show_table budgets and IR rules', () => {
  it('refuses more columns, a larger page or more rows than the limits allow, with DIRECTIVE_BUDGET_EXCEEDED and a pointer', () => {
    const directive = createTableDirective({ itemActions: [] });
    const base = { title: 'T', columns: [{ key: 'a', label: 'A' }], rows: [{ id: 'x', a: 1 }] };
    const apply = (p: object, limits = DEFAULT_LIMITS) => directive.apply(emptyConversation('c1'), directive.payload.parse({ ...base, ...p }), draw(createSeededSource('b')), { limits });
    expect(apply({}, { ...DEFAULT_LIMITS, maxTableColumns: 0 })).toMatchObject({ ok: false, error: { code: 'DIRECTIVE_BUDGET_EXCEEDED', pointer: '/columns' } });
    expect(apply({ page_size: 60 })).toMatchObject({ ok: false, error: { code: 'DIRECTIVE_BUDGET_EXCEEDED', pointer: '/page_size' } });
    expect(apply({}, { ...DEFAULT_LIMITS, maxTableRows: 0 })).toMatchObject({ ok: false, error: { code: 'DIRECTIVE_BUDGET_EXCEEDED', pointer: '/rows' } });
    expect(apply({})).toMatchObject({ ok: true });
  });

  it('the IR refuses repeated column keys, an initial sort by a column it cannot sort by, and rows under /ui/table_state', () => {
    const ok = { kind: 'table', name: 't', path: '/ui/tables/t', columns: [{ key: 'a', label: 'A' }] };
    expect(TableBlock.safeParse(ok).success).toBe(true);
    expect(TableBlock.safeParse({ ...ok, columns: [{ key: 'a', label: 'A' }, { key: 'a', label: 'B' }] }).success).toBe(false);
    expect(TableBlock.safeParse({ ...ok, sort: { column: 'b' } }).success).toBe(false);
    expect(TableBlock.safeParse({ ...ok, columns: [{ key: 'a', label: 'A', sortable: false }], sort: { column: 'a' } }).success).toBe(false);
    expect(TableBlock.safeParse({ ...ok, path: '/ui/table_state/t' }).success).toBe(false);
  });
});

describe('rows never all reach an A2UI client', () => {
  it('a table panel given another view (a list on the same panel): the rows ui.show_table stored stay in the IR, not in any A2UI data model', () => {
    const { ir, next } = tableIr(8);
    const showList = createListDirectives({ itemActions: ['list.choose'] })[0]!;
    const listed = showList.apply(ir, showList.payload.parse({ title: 'Picks', fields: [{ name: 'name', show: 'title' }], items: [{ id: 'a', name: 'Alpha' }] }), next(), { limits: DEFAULT_LIMITS });
    if (!listed.ok) throw new Error(JSON.stringify(listed.error));
    const surface = listed.ir.surfaces.find((x) => x.lifecycle !== 'deleted' && x.view.blocks.some((b) => b.kind === 'list'))!;
    expect(tableBlocks(surface.view)).toEqual([]);
    expect(Object.keys(surface.data.ui)).toContain('tables');
    for (const compiled of [compileConversationToA2uiV09(listed.ir), compileConversationToA2ui(listed.ir)]) {
      const wire = JSON.stringify(compiled);
      expect(wire).toContain('Alpha');
      // A row the table never showed (its first page held three of eight).
      expect(wire).not.toContain('o7');
    }
  });
});

describe('the v0.9 validator on the app catalogue\'s Table', () => {
  // The compiler emits only allowlisted actions; the validator is the safety net under it and
  // checks every place a Table carries one, as it checks a Button's.
  const spec = appCatalogSpecV09(testComponents(), TEST_CATALOG_ID);
  const act = (name: string) => ({ event: { name, context: { table: 't' } } });
  const stream = (names: { sort: string; next: string; prev: string; row: string }) => [
    { version: 'v0.9', createSurface: { surfaceId: 's~1', catalogId: TEST_CATALOG_ID } },
    { version: 'v0.9', updateComponents: { surfaceId: 's~1', components: [
      { id: 'root', component: 'Column', children: ['tb'] },
      { id: 'tb', component: 'Table', columns: [{ key: 'a', label: 'A', type: 'text', align: 'start', sortAction: act(names.sort) }],
        rows: { path: '/view/t/items' }, note: { path: '/view/t/note' }, page: 2, pages: 3, total: 30, pageLabel: 'Page 2 of 3',
        previousAction: act(names.prev), nextAction: act(names.next), rowActions: [{ label: 'Take', action: act(names.row) }] },
    ] } },
  ];
  const allowed = { appCatalog: spec, allowedActions: ['table.sort', 'table.page', 'ticket.take'] };

  it('accepts a Table whose actions are all allowlisted', () => {
    expect(validateA2uiV09Messages(stream({ sort: 'table.sort', next: 'table.page', prev: 'table.page', row: 'ticket.take' }), allowed)).toEqual([]);
  });

  it('names each action that is not, where it is', () => {
    const found = validateA2uiV09Messages(stream({ sort: 'evil.sort', next: 'evil.next', prev: 'evil.prev', row: 'evil.row' }), allowed);
    const at = '/1/updateComponents/components/1';
    expect(found.map((f) => [f.code, f.pointer])).toEqual([
      ['A2UI_S2C_ACTION_NOT_ALLOWED', `${at}/columns/0/sortAction/event/name`], ['A2UI_S2C_ACTION_NOT_ALLOWED', `${at}/rowActions/0/action/event/name`],
      ['A2UI_S2C_ACTION_NOT_ALLOWED', `${at}/previousAction/event/name`], ['A2UI_S2C_ACTION_NOT_ALLOWED', `${at}/nextAction/event/name`],
    ]);
  });
});
