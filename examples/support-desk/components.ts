import { defineComponent, fallbackListOf, z, type Block } from 'surfacer';
import { Ticket } from './tickets.ts';
import { SORT_KEYS } from './ticket-order.ts';

/**
 * The desk's own components (docs/components.md): the queue as a sortable table and a small
 * chart of tickets per week. Each is shown three ways: on the A2UI pages by its Lit element
 * (elements/, bundled into the page clients), on the htmx page by its Eta template (a plain
 * table, no JavaScript needed), and to any other A2UI client by its fallback, made of basic
 * blocks. Their item actions (Take, Open, Resolve) reach the same handlers from all three.
 */
export const DESK_CATALOG_ID = 'https://surfacer.example/support-desk/catalog/v1.json';

/** Where an element module is, for the page bundler (relative to this file, wherever it runs from). */
const here = (path: string): string => new URL(path, import.meta.url).href;

export const TicketTable = defineComponent({
  name: 'TicketTable',
  description: 'The support queue as a table: id, subject, customer, priority and status per ticket, sortable by any column, with per-ticket buttons.',
  props: z.object({
    caption: z.string().min(1).max(120).optional().describe('shown above the table'),
    sortBy: z.enum(SORT_KEYS).default('id').describe('the column the rows are sorted by at first (priority: urgent first)'),
  }),
  item: Ticket,
  // Rows sorted on the server for the htmx page (the element sorts in the browser); the buttons
  // are the compiler's item forms, which work without JavaScript.
  html: [
    '<% const rank = { urgent: 0, normal: 1, low: 2 }; const by = it.props.sortBy || "id"; %>',
    '<% const cmp = (a, b) => by === "priority" ? (rank[a.value.priority] ?? 9) - (rank[b.value.priority] ?? 9) : String(a.value[by] ?? "").localeCompare(String(b.value[by] ?? "")); %>',
    '<% const rows = [...it.items].sort((a, b) => cmp(a, b) || String(a.value.id).localeCompare(String(b.value.id))); %>',
    '<section class="ticket-table" data-list="<%= it.name %>"><div class="ticket-table__scroll"><table>',
    '<% if (it.props.caption) { %><caption><%= it.props.caption %></caption><% } %>',
    '<thead><tr><th scope="col" class="ticket-table__id">Ticket</th><th scope="col">Subject</th><th scope="col" class="ticket-table__customer">Customer</th><th scope="col">Priority</th><th scope="col">Status</th>',
    '<% if (it.actions.length > 0) { %><th scope="col"><span class="visually-hidden">Actions</span></th><% } %></tr></thead>',
    '<tbody><% for (const item of rows) { %><tr class="ticket-table__row" id="<%= item.id %>" data-key="<%= item.key %>">',
    '<td class="ticket-table__id"><%= item.value.id %></td><td><%= item.value.subject %></td><td class="ticket-table__customer"><%= item.value.customer %></td>',
    '<td><span class="badge ticket-table__priority--<%= item.value.priority %>"><%= item.value.priority %></span></td><td class="ticket-table__status"><%= item.value.status %></td>',
    '<% if (it.actions.length > 0) { %><td class="ticket-table__actions"><% for (const b of item.buttons) { %><button type="submit" class="button<%= b.primary ? " button--primary" : "" %>" form="<%= item.formId %>" name="_action" value="<%= b.name %>"><%= b.label %></button><% } %></td><% } %>',
    '</tr><% } %></tbody></table></div>',
    '<% if (it.note) { %><p class="ticket-table__note"><%= it.note %></p><% } %></section>',
  ].join('\n'),
  // The htmx page's table, like the element's: priority chips, quiet headings, compact buttons
  // (the page's own .button and .badge, restyled only inside the table); on a phone the
  // ticket and customer columns go, as in the element.
  css: `
.ticket-table__scroll { overflow-x: auto; }
.ticket-table table { width: 100%; border-collapse: collapse; font-size: .95rem; }
.ticket-table caption { text-align: start; font-weight: 600; padding: 0 0 .5rem; }
.ticket-table th, .ticket-table td { text-align: start; padding: .45rem .5rem; border-bottom: 1px solid var(--line, #d1d5db); vertical-align: middle; }
.ticket-table thead th { font-size: .8rem; font-weight: 600; color: var(--muted, #6b7280); text-transform: uppercase; letter-spacing: .04em; }
.ticket-table__row:hover { background: var(--tint, #f8fafc); }
.ticket-table .badge { display: inline-block; padding: .05rem .5rem; border: 0; border-radius: 999px; background: #eef2ff; color: #3730a3; font-size: .85em; }
.ticket-table .ticket-table__priority--urgent { background: #fee2e2; color: #991b1b; }
.ticket-table .ticket-table__priority--low { background: #f1f5f9; color: #4b5563; }
.ticket-table__actions { white-space: nowrap; }
.ticket-table__actions .button { padding: .25rem .6rem; font-size: .9em; margin: .1rem .15rem; }
.ticket-table__note { margin: .5rem 0 0; color: var(--muted, #6b7280); font-size: .9rem; }
@media (max-width: 35rem) {
  .ticket-table__id, .ticket-table__customer { display: none; }
  .ticket-table th, .ticket-table td { padding: .4rem .25rem; }
  .ticket-table__actions { white-space: normal; }
  .ticket-table__actions .button { padding: .25rem .45rem; }
}
`,
  fallback({ block, props }): Block[] {
    return [{
      ...fallbackListOf(block),
      ...(props.caption === undefined ? {} : { title: props.caption }),
      display: [
        { kind: 'text', field: 'subject', style: 'title' },
        { kind: 'text', field: 'customer', style: 'caption' },
        { kind: 'badge', field: 'priority' },
        { kind: 'value', field: 'status', label: 'Status' },
      ],
      empty: 'The queue is empty. Say "new ticket" to file one.',
    }];
  },
  element: { tag: 'desk-ticket-table', module: here('./elements/ticket-table.ts') },
});

/** One bar: its label is its key (a collection's items have keys; the A2UI v0.8 wire carries lists of objects only as data). */
const Bar = z.object({ label: z.string().min(1).max(24), value: z.number().int().min(0).max(1_000_000) });

export const BarChart = defineComponent({
  name: 'BarChart',
  description: 'A small bar chart of counts, one bar per item (e.g. tickets filed per week).',
  props: z.object({
    title: z.string().min(1).max(100).describe('what the bars count'),
    unit: z.string().min(1).max(20).optional().describe('the unit of the values, e.g. "tickets"'),
  }),
  item: Bar,
  // One <meter> per bar: a bar chart the browser draws without CSS or JavaScript.
  html: [
    '<% const max = Math.max(1, ...it.items.map((b) => Number(b.value.value) || 0)); %>',
    '<figure class="bar-chart"><figcaption><%= it.props.title %></figcaption><dl class="bar-chart__bars">',
    '<% for (const b of it.items) { %><div class="bar-chart__bar"><dt><%= b.value.label %></dt>',
    '<dd><meter min="0" max="<%= max %>" value="<%= b.value.value %>"><%= b.value.value %></meter> <span class="bar-chart__value"><%= b.value.value %><%= it.props.unit ? " " + it.props.unit : "" %></span></dd></div><% } %>',
    '</dl></figure>',
  ].join('\n'),
  // Each meter drawn as a bar in the page's accent colour, its label before it and its count
  // after. Chromium and Firefox name a meter's parts differently: one rule each (a selector list
  // with a pseudo-element a browser does not know is dropped whole).
  css: `
.bar-chart { margin: 0; }
.bar-chart figcaption { font-weight: 600; margin-bottom: .5rem; }
.bar-chart__bars { margin: 0; display: grid; gap: .35rem; }
.bar-chart__bar { display: grid; grid-template-columns: 3.5rem 1fr; align-items: center; gap: .5rem; }
.bar-chart__bar dt { font-size: .85rem; color: var(--muted, #6b7280); }
.bar-chart__bar dd { margin: 0; display: flex; align-items: center; gap: .5rem; }
.bar-chart meter { flex: 1 1 auto; min-width: 0; height: 1.1rem; appearance: none; background: var(--tint, #eef2ff); border-radius: 4px; }
.bar-chart meter::-webkit-meter-bar { background: var(--tint, #eef2ff); border: 0; border-radius: 4px; height: 1.1rem; }
.bar-chart meter::-webkit-meter-optimum-value { background: var(--accent, #1d4ed8); border-radius: 4px; }
.bar-chart meter::-moz-meter-bar { background: var(--accent, #1d4ed8); border-radius: 4px; }
.bar-chart__value { flex: none; min-width: 5.5rem; font-size: .85rem; font-variant-numeric: tabular-nums; }
`,
  fallback({ block, props }): Block[] {
    return [{
      ...fallbackListOf(block),
      title: props.title, empty: 'No figures yet.',
      display: [{ kind: 'text', field: 'label', style: 'caption' }, { kind: 'value', field: 'value', label: props.unit ?? 'Count' }],
    }];
  },
  element: { tag: 'desk-bar-chart', module: here('./elements/bar-chart.ts') },
});

export const DESK_COMPONENTS = [TicketTable, BarChart] as const;
