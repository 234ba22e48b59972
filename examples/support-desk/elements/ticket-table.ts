/// <reference lib="dom" />
/*
 * <desk-ticket-table>: the support queue as a table on the A2UI pages (the TicketTable
 * component's element, bundled into the page clients). Sorting is the element's own business:
 * a click on a column heading sorts by it (again: the other way), nothing goes to the server.
 * The page sets `props`, `items` (each `{key, …ticket}`), `note` and `actions` (docs/components.md); a row's button
 * dispatches `surfacer-item-action` with the action's name and the ticket's key, and the page
 * sends it exactly as the fallback list's button would.
 */
import { css, html, LitElement, nothing } from 'lit';
import { compareTickets, SORT_COLUMNS, type SortColumn } from '../ticket-order.ts';

interface Action { name: string; label: string; primary: boolean }

export class DeskTicketTable extends LitElement {
  static override properties = {
    props: { attribute: false },
    items: { attribute: false },
    note: { attribute: false },
    actions: { attribute: false },
    sortBy: { state: true },
    descending: { state: true },
  };

  // Declared, set in the constructor: a class field would shadow Lit's reactive accessor.
  declare props: { caption?: string; sortBy?: SortColumn };
  declare items: Record<string, unknown>[];
  declare note: string;
  declare actions: Action[];
  /** Undefined until the user sorts: the order the app asked for (`props.sortBy`) holds. */
  declare sortBy: SortColumn | undefined;
  declare descending: boolean;

  constructor() {
    super();
    this.props = {};
    this.items = [];
    this.note = '';
    this.actions = [];
    this.sortBy = undefined;
    this.descending = false;
  }

  static override styles = css`
    :host { display: block; font: inherit; color: var(--text, #1f2937); }
    .wrap { overflow-x: auto; }
    table { width: 100%; border-collapse: collapse; font-size: 0.95rem; }
    caption { text-align: start; font-weight: 600; padding: 0 0 0.5rem; }
    th, td { text-align: start; padding: 0.45rem 0.5rem; border-bottom: 1px solid var(--line, #d1d5db); vertical-align: middle; }
    th button { font: inherit; font-weight: 600; background: none; border: 0; padding: 0; cursor: pointer; color: inherit; }
    th button:focus-visible, td button:focus-visible { outline: 2px solid var(--accent, #1d4ed8); outline-offset: 2px; }
    .arrow { color: var(--muted, #6b7280); font-size: 0.8em; }
    .priority { display: inline-block; padding: 0.05rem 0.5rem; border-radius: 999px; background: #eef2ff; color: #3730a3; font-size: 0.85em; }
    .priority--urgent { background: #fee2e2; color: #991b1b; }
    .actions { display: flex; gap: 0.35rem; flex-wrap: wrap; }
    .actions button { font: inherit; font-size: 0.9em; padding: 0.3rem 0.7rem; border-radius: var(--radius, 6px); border: 1px solid var(--line, #d1d5db); background: var(--panel, #fff); color: inherit; cursor: pointer; }
    .actions button.primary { background: var(--accent, #1d4ed8); border-color: var(--accent, #1d4ed8); color: var(--accent-text, #fff); }
    .empty { color: var(--muted, #6b7280); }
    @media (max-width: 560px) {
      .col-customer, .col-id { display: none; }
      th, td { padding: 0.4rem 0.25rem; }
      .actions button { padding: 0.25rem 0.45rem; }
    }
  `;

  #sort(column: SortColumn): void {
    const current = this.sortBy ?? this.props.sortBy ?? 'id';
    this.descending = current === column ? !this.descending : false;
    this.sortBy = column;
  }

  override render() {
    const column = this.sortBy ?? this.props.sortBy ?? 'id';
    const rows = [...this.items].sort((a, b) => compareTickets(a, b, column) * (this.descending ? -1 : 1));
    const label = SORT_COLUMNS.find((c) => c.key === column)?.label ?? column;
    return html`<div class="wrap"><table aria-describedby="sorted">
      ${this.props.caption ? html`<caption>${this.props.caption}</caption>` : nothing}
      <thead><tr>
        ${SORT_COLUMNS.map((c) => html`<th scope="col" class="col-${c.key}" aria-sort=${c.key === column ? (this.descending ? 'descending' : 'ascending') : 'none'}>
          <button type="button" @click=${() => this.#sort(c.key)}>${c.label}
            <span class="arrow" aria-hidden="true">${c.key === column ? (this.descending ? '▼' : '▲') : ''}</span></button></th>`)}
        ${this.actions.length === 0 ? nothing : html`<th scope="col"><span class="arrow">Actions</span></th>`}
      </tr></thead>
      <tbody>
        ${rows.length === 0 ? html`<tr><td class="empty" colspan="6">No tickets.</td></tr>` : rows.map((t) => html`<tr data-key=${String(t.key)}>
          <td class="col-id">${String(t.id ?? '')}</td>
          <td class="col-subject">${String(t.subject ?? '')}</td>
          <td class="col-customer">${String(t.customer ?? '')}</td>
          <td class="col-priority"><span class="priority priority--${String(t.priority)}">${String(t.priority ?? '')}</span></td>
          <td class="col-status">${String(t.status ?? '')}</td>
          ${this.actions.length === 0 ? nothing : html`<td><div class="actions">${this.actions.map((a) => html`<button type="button"
            class=${a.primary ? 'primary' : ''} @click=${() => this.#act(a.name, String(t.key))}>${a.label}</button>`)}</div></td>`}
        </tr>`)}
      </tbody>
    </table>
    ${this.note ? html`<p class="note">${this.note}</p>` : nothing}
    <p id="sorted" hidden>Sorted by ${label}, ${this.descending ? 'descending' : 'ascending'}</p></div>`;
  }

  #act(action: string, item: string): void {
    this.dispatchEvent(new CustomEvent('surfacer-item-action', { detail: { action, item }, bubbles: true, composed: true }));
  }
}

if (customElements.get('desk-ticket-table') === undefined) customElements.define('desk-ticket-table', DeskTicketTable);
