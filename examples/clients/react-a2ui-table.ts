/// <reference lib="dom" />
/*
 * Surfacer's `Table` for the official React renderer (@a2ui/react v0_9): copy this module into a
 * React app that renders Surfacer's A2UI v0.9 streams. Surfacer emits a table block as `Table`
 * to a client that advertises the app catalogue (docs/a2ui.md "Catalogue negotiation"; over
 * AG-UI: `forwardedProps.a2uiClientCapabilities = {"v0.9": {supportedCatalogIds: [<app id>, <basic id>]}}`),
 * and as basic components otherwise. Uses React, @a2ui/react and @a2ui/web_core, which such an
 * app has already; Surfacer itself does not depend on React.
 *
 *   const document = await (await fetch('/a2ui/catalog/v0.9.json')).json();
 *   const processor = new MessageProcessor([basicCatalog, withSurfacerTable(document)], onAction);
 *
 * The server sorted and paged: the component draws the page it was given — a <table> with a
 * caption, th scope=col, aria-sort and a sort button per sortable heading, row buttons, and
 * Previous / Next — and each button dispatches the component's own action, resolved by the
 * official data context (a row's against that row), the very action the basic fallback's Button
 * carries. Style it with TABLE_CSS (or your own rules for the `surfacer-table` classes).
 */
import { basicCatalog, createBinderlessComponentImplementation, type ReactComponentImplementation } from '@a2ui/react/v0_9';
import { Catalog, type ComponentApi, type ComponentContext } from '@a2ui/web_core/v0_9';
import { createElement as h, useEffect, useState, type ReactNode } from 'react';

type Row = Record<string, unknown>;
interface Column { key: string; label: string; type: string; align: 'start' | 'end'; sorted?: 'asc' | 'desc'; sortAction?: unknown }
interface RowAction { label: string; primary?: boolean; action: unknown }

const isBinding = (v: unknown): v is { path: string } =>
  v !== null && typeof v === 'object' && !Array.isArray(v) && typeof (v as { path?: unknown }).path === 'string';
const HTTP_URL = /^https?:\/\//i;

/** The component's properties, re-read when the server updates it; `rows` and `note` followed in the data model. */
function useTable(context: ComponentContext): { props: Record<string, unknown>; rows: Row[]; note: string } {
  const [state, setState] = useState<{ props: Record<string, unknown>; rows: Row[]; note: string }>({ props: {}, rows: [], note: '' });
  useEffect(() => {
    let bindings: Array<() => void> = [];
    const bind = (): void => {
      for (const off of bindings) off();
      bindings = [];
      const props = { ...(context.componentModel.properties as Record<string, unknown>) };
      let rows: Row[] = [];
      let note = '';
      const read = (value: unknown, set: (v: unknown) => void): void => {
        if (!isBinding(value)) { set(value); return; }
        const sub = context.dataContext.subscribeDynamicValue<unknown>(value as never, (v) => { set(v); setState({ props, rows, note }); });
        bindings.push(() => sub.unsubscribe());
        set(sub.value);
      };
      // Mapped, never filtered: a row's position is its index in the bound list (send's `nested`).
      read(props.rows, (v) => { rows = Array.isArray(v) ? v.map((r): Row => (r !== null && typeof r === 'object' ? r as Row : {})) : []; });
      read(props.note, (v) => { note = typeof v === 'string' ? v : ''; });
      setState({ props, rows, note });
    };
    const sub = context.componentModel.onUpdated.subscribe(bind);
    bind();
    return () => { sub.unsubscribe(); for (const off of bindings) off(); };
  }, [context]);
  return state;
}

function TableView({ context }: { context: ComponentContext }): ReactNode {
  const { props: p, rows, note } = useTable(context);
  const send = (action: unknown, row?: number): void => {
    if (action === undefined) return;
    const data = row === undefined || !isBinding(p.rows) ? context.dataContext : context.dataContext.nested(p.rows.path).nested(String(row));
    void context.dispatchAction(data.resolveAction(action as never));
  };
  const columns = (Array.isArray(p.columns) ? p.columns : []) as Column[];
  const rowActions = (Array.isArray(p.rowActions) ? p.rowActions : []) as RowAction[];
  const caption = typeof p.caption === 'string' && p.caption !== '' ? p.caption : undefined;
  const cls = (c: Column): string => [c.align === 'end' ? 'surfacer-table__end' : '', c.type === 'date' ? 'surfacer-table__date' : ''].join(' ').trim();
  const head: ReactNode[] = columns.map((c) => h('th', {
    key: c.key, scope: 'col', className: cls(c), 'aria-sort': c.sorted === 'asc' ? 'ascending' : c.sorted === 'desc' ? 'descending' : undefined,
  }, c.sortAction === undefined ? c.label : h('button', {
    type: 'button', className: 'surfacer-table__sort', onClick: () => send(c.sortAction),
    'aria-label': `Sort by ${c.label}, ${c.sorted === 'asc' ? 'descending' : 'ascending'}`,
  }, c.label, h('span', { className: 'surfacer-table__arrow', 'aria-hidden': true }, c.sorted === 'asc' ? '▲' : c.sorted === 'desc' ? '▼' : '↕'))));
  if (rowActions.length > 0) head.push(h('th', { key: '#actions', scope: 'col' }, h('span', { className: 'surfacer-table__hidden' }, 'Actions')));
  const body = rows.map((row, r) => h('tr', { key: String(row.key ?? r), 'data-key': String(row.key ?? '') },
    ...columns.map((c, i) => {
      const text = String(row[`d${i}`] ?? '');
      const url = row[`u${i}`];
      return h('td', { key: c.key, className: cls(c), 'data-label': c.label },
        typeof url === 'string' && HTTP_URL.test(url) ? h('a', { href: url, rel: 'noopener noreferrer', target: '_blank' }, text) : h('span', null, text));
    }),
    rowActions.length === 0 ? null : h('td', { key: '#actions', className: 'surfacer-table__actions' }, ...rowActions.map((a, i) => h('button', {
      key: i, type: 'button', className: a.primary === true ? 'surfacer-table__button surfacer-table__button--primary' : 'surfacer-table__button',
      onClick: () => send(a.action, r),
    }, a.label)))));
  const pageLabel = typeof p.pageLabel === 'string' ? p.pageLabel : '';
  const pager = p.previousAction === undefined && p.nextAction === undefined ? null : h('nav', { className: 'surfacer-table__pager', 'aria-label': `${caption ?? 'Table'} pages` },
    p.previousAction === undefined ? null : h('button', { type: 'button', className: 'surfacer-table__button', onClick: () => send(p.previousAction) }, 'Previous'),
    h('span', { className: 'surfacer-table__muted' }, pageLabel),
    p.nextAction === undefined ? null : h('button', { type: 'button', className: 'surfacer-table__button', onClick: () => send(p.nextAction) }, 'Next'));
  return h('div', { className: 'surfacer-table' },
    h('div', { className: 'surfacer-table__scroll' }, h('table', null,
      caption === undefined ? null : h('caption', null, caption),
      h('thead', null, h('tr', null, ...head)),
      h('tbody', null, ...body))),
    pager,
    note === '' ? null : h('p', { className: 'surfacer-table__note surfacer-table__muted' }, note));
}

/** The Table implementation, its props checked by `schema` (the catalogue's Table entry, as the official loader reads it). */
export function surfacerTable(schema: ComponentApi['schema']): ReactComponentImplementation {
  return createBinderlessComponentImplementation({ name: 'Table', schema }, TableView);
}

/**
 * The app catalogue as a React client holds it: the official basic components and functions, and
 * Table, from the server's catalogue document (GET /a2ui/catalog/v0.9.json; public, cacheable):
 * its id, and Table's schema as the official `Catalog.fromSchema` reads it — generated by the
 * server from the zod schema it validates with, so the client checks what the server checked.
 */
export function withSurfacerTable(catalogDocument: unknown): Catalog<ReactComponentImplementation> {
  const loaded = Catalog.fromSchema(catalogDocument as never);
  const table = loaded.components.get('Table');
  if (table === undefined) throw new Error(`catalogue ${loaded.id} has no Table`);
  return new Catalog(loaded.id, [...basicCatalog.components.values(), surfacerTable(table.schema)], [...basicCatalog.functions.values()]);
}

/** The look of Surfacer's htmx table; one card per row when narrower than 44rem. */
export const TABLE_CSS = `
.surfacer-table { container-type: inline-size; margin: .25rem 0; }
.surfacer-table__scroll { overflow-x: auto; }
.surfacer-table table { border-collapse: collapse; width: 100%; font-size: .95rem; }
.surfacer-table caption { text-align: start; font-weight: 600; padding-bottom: .4rem; }
.surfacer-table th, .surfacer-table td { border-bottom: 1px solid #d1d5db; padding: .45rem .5rem; text-align: start; vertical-align: middle; }
.surfacer-table th { font-size: .85rem; color: #6b7280; font-weight: 600; white-space: nowrap; }
.surfacer-table th[aria-sort] { color: inherit; }
.surfacer-table .surfacer-table__end { text-align: end; font-variant-numeric: tabular-nums; }
.surfacer-table .surfacer-table__date { white-space: nowrap; }
.surfacer-table a { overflow-wrap: anywhere; }
.surfacer-table button { font: inherit; cursor: pointer; margin: 0; }
.surfacer-table .surfacer-table__sort { color: inherit; background: none; border: 0; padding: .15rem .1rem; display: inline-flex; gap: .3rem; font-weight: 600; }
.surfacer-table .surfacer-table__sort:hover { text-decoration: underline; }
.surfacer-table__arrow { font-size: .75em; opacity: .6; }
.surfacer-table th[aria-sort] .surfacer-table__arrow { opacity: 1; }
.surfacer-table__actions { white-space: nowrap; text-align: end; }
.surfacer-table .surfacer-table__button { font-size: .9em; padding: .3rem .7rem; margin: .1rem 0 .1rem .3rem; border: 1px solid #d1d5db; border-radius: 6px; background: #fff; color: inherit; }
.surfacer-table .surfacer-table__button--primary { background: #2b5d9b; border-color: #2b5d9b; color: #fff; }
.surfacer-table__pager { display: flex; flex-wrap: wrap; align-items: center; justify-content: flex-end; gap: .5rem; margin-top: .5rem; }
.surfacer-table__muted { color: #6b7280; font-size: .9rem; }
.surfacer-table__note { margin: .4rem 0 0; }
.surfacer-table__hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
@container (max-width: 44rem) {
  .surfacer-table table, .surfacer-table tbody, .surfacer-table tr, .surfacer-table td { display: block; }
  .surfacer-table thead tr { display: flex; flex-wrap: wrap; gap: .25rem .75rem; border-bottom: 1px solid #d1d5db; }
  .surfacer-table th { border: 0; padding: .25rem 0; }
  .surfacer-table tbody tr { border-bottom: 1px solid #d1d5db; padding: .4rem 0; }
  .surfacer-table td, .surfacer-table td.surfacer-table__end { border: 0; padding: .15rem 0; display: grid; grid-template-columns: 7rem 1fr; gap: .5rem; text-align: start; }
  .surfacer-table td::before { content: attr(data-label); color: #6b7280; font-size: .85rem; }
  .surfacer-table td > * { justify-self: start; }
  .surfacer-table td.surfacer-table__actions { display: flex; justify-content: flex-end; }
  .surfacer-table td.surfacer-table__actions::before { content: none; }
}
`;
