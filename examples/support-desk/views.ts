import type { SurfaceView } from 'surfacer';
import { PRIORITIES, type Ticket } from './tickets.ts';

/** Surface ids of the desk: the queue, the new-ticket form, one ticket's details. */
export const QUEUE = 'queue';
export const NEW_TICKET = 'new-ticket';
export const DETAIL = 'ticket';
export const TICKETS_LIST = 'tickets';
/** The chart's collection: tickets filed per week, under `/ui/weekly`. */
export const WEEKLY = 'weekly';

/**
 * The queue: the desk's own components (components.ts) — a chart of tickets filed per week and
 * the tickets as a sortable table with per-ticket buttons (take, open, resolve). A client without
 * the desk's catalogue gets their fallbacks: lists (the tickets' with the same buttons).
 */
export const queueView: SurfaceView = {
  template: 'desk.queue',
  title: 'Support queue',
  blocks: [
    {
      kind: 'component', component: 'BarChart', name: WEEKLY, path: `/ui/${WEEKLY}`, itemKey: 'label', bind: {}, actions: [], maxItems: 12,
      props: { title: 'Tickets filed per week', unit: 'tickets' },
    },
    {
      kind: 'component', component: 'TicketTable', name: TICKETS_LIST, path: `/committed/${TICKETS_LIST}`, itemKey: 'id',
      props: { caption: 'Open tickets', sortBy: 'id' }, bind: {},
      actions: [
        { name: 'ticket.take', label: 'Take', primary: true },
        { name: 'ticket.open', label: 'Open', primary: false },
        { name: 'ticket.resolve', label: 'Resolve', primary: false },
      ],
      maxItems: 50,
    },
  ],
  actions: [],
};

/** The form for a new ticket; `ticket.submit` files it in the queue. */
export const newTicketView: SurfaceView = {
  template: 'desk.new_ticket',
  title: 'New ticket',
  blocks: [
    { kind: 'field', name: 'subject', label: 'Subject', control: 'text', required: true, maxLength: 120 },
    { kind: 'field', name: 'customer', label: 'Customer', control: 'text', required: false, maxLength: 80 },
    {
      kind: 'field', name: 'priority', label: 'Priority', control: 'select', required: true,
      options: PRIORITIES.map((p) => ({ value: p, label: p })),
    },
    { kind: 'field', name: 'details', label: 'Details', control: 'textarea', required: false, maxLength: 2000 },
  ],
  actions: [
    { name: 'ticket.submit', label: 'File ticket', role: 'submit', primary: true },
    { name: 'ticket.cancel', label: 'Cancel', role: 'cancel', primary: false },
  ],
};

/**
 * One ticket: its fields (under `/ui/ticket`) and its details in two tabs, and a reply written in a
 * modal. The modal's field belongs to the panel's form like any other: "Send reply" posts it.
 */
export function detailView(ticket: Ticket): SurfaceView {
  return {
    template: 'desk.detail',
    title: `Ticket ${ticket.id}`,
    blocks: [
      {
        kind: 'tabs', blocks: [
          {
            kind: 'group', title: 'Overview', layout: 'column', blocks: [
              { kind: 'value', label: 'Subject', path: '/ui/ticket/subject' },
              { kind: 'value', label: 'Customer', path: '/ui/ticket/customer' },
              { kind: 'value', label: 'Priority', path: '/ui/ticket/priority' },
              { kind: 'value', label: 'Status', path: '/ui/ticket/status' },
            ],
          },
          { kind: 'group', title: 'Details', layout: 'column', blocks: [{ kind: 'text', text: ticket.details || 'No details.', tone: 'body' }] },
        ],
      },
      {
        kind: 'modal', label: 'Write a reply', title: `Reply to ${ticket.customer || 'the customer'}`,
        blocks: [{ kind: 'field', name: 'reply', label: 'Reply', control: 'textarea', required: true, maxLength: 2000 }],
      },
    ],
    actions: [
      { name: 'ticket.reply', label: 'Send reply', role: 'submit', primary: true },
      { name: 'ticket.close', label: 'Close', role: 'cancel', primary: false },
    ],
  };
}
