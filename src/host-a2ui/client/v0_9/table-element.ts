/// <reference lib="dom" />
/*
 * <surfacer-table>: the app catalogue's `Table` (compiler/components/table-component.ts) on the
 * v0.9 page, shipped with Surfacer in every page bundle. The official surface renders it through
 * the catalogue entry's tagName with `.context` (its ComponentContext), as it does the app's
 * wrappers. The server sorted and paged: the element draws the page it was given — an accessible
 * <table> (caption, th scope=col, aria-sort, a sort button per sortable heading), previous / next,
 * a row's buttons — and each button dispatches the component's own action, resolved by the
 * official data context (a row's against that row), so the server gets exactly what the basic
 * fallback's Button sends. Looks like the htmx page's table; narrower than 44rem, one card per row.
 */
import type { ComponentContext } from '@a2ui/web_core/v0_9';
import { css, html, LitElement, nothing } from 'lit';
import { ContextHold } from './context-hold.ts';

type WireAction = unknown;
interface Column { key: string; label: string; type: string; align: 'start' | 'end'; sorted?: 'asc' | 'desc'; sortAction?: WireAction }
interface RowAction { label: string; primary?: boolean; action: WireAction }
type Row = Record<string, unknown>;

const isBinding = (v: unknown): v is { path: string } =>
  v !== null && typeof v === 'object' && !Array.isArray(v) && typeof (v as { path?: unknown }).path === 'string';
const HTTP_URL = /^https?:\/\//i;

export const TABLE_TAG = 'surfacer-table';

export class SurfacerTable extends LitElement {
  static override properties = { rows: { state: true }, note: { state: true }, props: { state: true } };

  declare rows: Row[];
  declare note: string;
  declare props: Record<string, unknown>;
  #hold = new ContextHold();

  constructor() {
    super();
    this.rows = [];
    this.note = '';
    this.props = {};
  }

  set context(context: ComponentContext) {
    this.#hold.take(context, () => this.#bind());
  }

  get context(): ComponentContext | undefined {
    return this.#hold.context;
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#hold.release();
    for (const off of this.#bindings) off();
    this.#bindings = [];
  }

  #bindings: Array<() => void> = [];

  #bind(): void {
    const context = this.#hold.context;
    if (context === undefined) return;
    for (const off of this.#bindings) off();
    this.#bindings = [];
    this.props = { ...(context.componentModel.properties as Record<string, unknown>) };
    const read = (value: unknown, set: (v: unknown) => void): void => {
      if (!isBinding(value)) { set(value); return; }
      const sub = context.dataContext.subscribeDynamicValue<unknown>(value as never, set);
      this.#bindings.push(() => sub.unsubscribe());
      set(sub.value);
    };
    // Mapped, never filtered: a row's position is its index in the bound list (#send's `nested`).
    read(this.props.rows, (v) => { this.rows = Array.isArray(v) ? v.map((r): Row => (r !== null && typeof r === 'object' ? r as Row : {})) : []; });
    read(this.props.note, (v) => { this.note = typeof v === 'string' ? v : ''; });
  }

  #send(action: WireAction, row?: number): void {
    const context = this.#hold.context;
    if (context === undefined || action === undefined) return;
    const rows = this.props.rows;
    const data = row === undefined || !isBinding(rows) ? context.dataContext : context.dataContext.nested(rows.path).nested(String(row));
    void context.dispatchAction(data.resolveAction(action as never));
  }

  static override styles = css`
    :host { display: block; color: var(--text, #1f2937); container-type: inline-size; margin: .25rem 0; }
    .scroll { overflow-x: auto; }
    table { border-collapse: collapse; width: 100%; font-size: .95rem; }
    caption { text-align: start; font-weight: 600; padding-bottom: .4rem; }
    th, td { border-bottom: 1px solid var(--line, #d1d5db); padding: .45rem .5rem; text-align: start; vertical-align: middle; }
    th { font-size: .85rem; color: var(--muted, #6b7280); font-weight: 600; white-space: nowrap; }
    th[aria-sort] { color: inherit; }
    .end { text-align: end; font-variant-numeric: tabular-nums; }
    .date { white-space: nowrap; }
    a { color: var(--accent, #1d4ed8); overflow-wrap: anywhere; }
    button { font: inherit; cursor: pointer; border-radius: var(--radius, 6px); }
    button:focus-visible { outline: 2px solid var(--accent, #1d4ed8); outline-offset: 2px; }
    .sort { color: inherit; background: none; border: 0; padding: .15rem .1rem; display: inline-flex; align-items: center; gap: .3rem; font-weight: 600; }
    .sort:hover { color: var(--accent, #1d4ed8); text-decoration: underline; }
    .arrow { font-size: .75em; opacity: .6; }
    th[aria-sort] .arrow { opacity: 1; color: var(--accent, #1d4ed8); }
    .actions { white-space: nowrap; text-align: end; }
    .btn { font-size: .9em; padding: .3rem .7rem; margin: .1rem 0 .1rem .3rem; border: 1px solid var(--line, #d1d5db); background: var(--panel, #fff); color: inherit; }
    .btn.primary { background: var(--accent, #1d4ed8); border-color: var(--accent, #1d4ed8); color: #fff; }
    .pager { display: flex; flex-wrap: wrap; align-items: center; justify-content: flex-end; gap: .5rem; margin-top: .5rem; }
    .muted { color: var(--muted, #6b7280); font-size: .9rem; }
    .note { margin: .4rem 0 0; }
    .hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
    @container (max-width: 44rem) {
      table, tbody, tr, td { display: block; }
      thead tr { display: flex; flex-wrap: wrap; gap: .25rem .75rem; border-bottom: 1px solid var(--line, #d1d5db); }
      th { border: 0; padding: .25rem 0; }
      tbody tr { border-bottom: 1px solid var(--line, #d1d5db); padding: .4rem 0; }
      td, td.end { border: 0; padding: .15rem 0; display: grid; grid-template-columns: 7rem 1fr; gap: .5rem; text-align: start; }
      td::before { content: attr(data-label); color: var(--muted, #6b7280); font-size: .85rem; }
      td > * { justify-self: start; }
      td.actions { display: flex; justify-content: flex-end; }
      td.actions::before { content: none; }
    }
  `;

  override render() {
    const p = this.props;
    const columns = (Array.isArray(p.columns) ? p.columns : []) as Column[];
    const rowActions = (Array.isArray(p.rowActions) ? p.rowActions : []) as RowAction[];
    const caption = typeof p.caption === 'string' && p.caption !== '' ? p.caption : undefined;
    const pageLabel = typeof p.pageLabel === 'string' ? p.pageLabel : '';
    const sortWord = (dir: 'asc' | 'desc' | undefined): string => (dir === 'asc' ? 'ascending' : dir === 'desc' ? 'descending' : '');
    return html`<div class="scroll"><table>
      ${caption === undefined ? nothing : html`<caption>${caption}</caption>`}
      <thead><tr>
        ${columns.map((c) => html`<th scope="col" class=${c.align === 'end' ? 'end' : ''} aria-sort=${c.sorted === undefined ? nothing : sortWord(c.sorted)}>
          ${c.sortAction === undefined ? c.label : html`<button type="button" class="sort" @click=${() => this.#send(c.sortAction)}
            aria-label=${`Sort by ${c.label}${c.sorted === 'asc' ? ', descending' : ', ascending'}`}>${c.label}<span class="arrow" aria-hidden="true">${c.sorted === 'asc' ? '▲' : c.sorted === 'desc' ? '▼' : '↕'}</span></button>`}</th>`)}
        ${rowActions.length === 0 ? nothing : html`<th scope="col"><span class="hidden">Actions</span></th>`}
      </tr></thead>
      <tbody>${this.rows.map((row, r) => html`<tr data-key=${String(row.key ?? '')}>
        ${columns.map((c, i) => {
          const text = String(row[`d${i}`] ?? '');
          const url = row[`u${i}`];
          const cls = [c.align === 'end' ? 'end' : '', c.type === 'date' ? 'date' : ''].join(' ').trim();
          return html`<td class=${cls} data-label=${c.label}>${typeof url === 'string' && HTTP_URL.test(url)
            ? html`<a href=${url} rel="noopener noreferrer" target="_blank">${text}</a>` : html`<span>${text}</span>`}</td>`;
        })}
        ${rowActions.length === 0 ? nothing : html`<td class="actions">${rowActions.map((a) => html`<button type="button"
          class=${a.primary === true ? 'btn primary' : 'btn'} @click=${() => this.#send(a.action, r)}>${a.label}</button>`)}</td>`}
      </tr>`)}</tbody>
    </table></div>
    ${p.previousAction === undefined && p.nextAction === undefined ? nothing : html`<nav class="pager" aria-label=${`${caption ?? 'Table'} pages`}>
      ${p.previousAction === undefined ? nothing : html`<button type="button" class="btn" @click=${() => this.#send(p.previousAction)}>Previous</button>`}
      <span class="muted">${pageLabel}</span>
      ${p.nextAction === undefined ? nothing : html`<button type="button" class="btn" @click=${() => this.#send(p.nextAction)}>Next</button>`}
    </nav>`}
    ${this.note === '' ? nothing : html`<p class="note muted">${this.note}</p>`}`;
  }
}

if (customElements.get(TABLE_TAG) === undefined) customElements.define(TABLE_TAG, SurfacerTable);
