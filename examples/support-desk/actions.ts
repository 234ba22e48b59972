import {
  checkedItem, closeSurface, defineAction, fieldContextSchema, findLiveSurface, makeError, openSurface, writeListItems, z,
  type ActionDefinition, type ConversationIr, type DataValue, type Draw, type TransitionResult,
} from 'surfacer';
import { nextTicketId, SAMPLE_TICKETS, ticketsOf, WEEKLY_FILED, type Ticket } from './tickets.ts';
import { DETAIL, detailView, QUEUE, queueView, TICKETS_LIST, WEEKLY } from './views.ts';

const NO_VALUES = z.object({}) as unknown as z.ZodType<Record<string, unknown>>;
type Failure = Extract<TransitionResult, { ok: false }>;

/** The queue's tickets (empty when it is not open). */
export function queueTickets(ir: ConversationIr): Ticket[] {
  return ticketsOf(findLiveSurface(ir, QUEUE)?.data.committed[TICKETS_LIST]);
}

/** Opens the queue (seeded with the sample tickets the first time) and writes `tickets` into it. */
export function showQueue(ir: ConversationIr, draw: Draw, tickets?: readonly Ticket[]): TransitionResult {
  const open = findLiveSurface(ir, QUEUE);
  const items = tickets ?? (open === undefined ? SAMPLE_TICKETS : queueTickets(ir));
  const opened = open === undefined
    ? openSurface(ir, { id: QUEUE, view: queueView, ui: { [WEEKLY]: WEEKLY_FILED.map((w) => ({ ...w })) } }, draw)
    : ir;
  return writeListItems(opened, QUEUE, TICKETS_LIST, items.map((t) => ({ ...t }) as DataValue), draw);
}

/** The ticket a per-item action names, re-read from the queue (ingress checked it is shown). */
function ticketOf(ir: ConversationIr, context: Record<string, unknown>): ({ ok: true } & Found) | Failure {
  const surface = findLiveSurface(ir, QUEUE);
  const found = surface === undefined ? undefined : checkedItem(surface, context);
  if (found !== undefined && !found.ok) return found;
  const all = queueTickets(ir);
  const ticket = found === undefined ? undefined : all.find((t) => t.id === found.item.key);
  if (ticket === undefined) return { ok: false, error: makeError('A2UI_C2S_ITEM_UNKNOWN', `no ticket ${JSON.stringify(context.item)} in the queue`) };
  return { ok: true, ticket, all };
}

export const ticketSubmitAction = defineAction({
  name: 'ticket.submit',
  description: 'File the new ticket in the queue.',
  contextSchema: (surface) => fieldContextSchema(surface),
  handle(ir, surface, context, draw) {
    // The queue as it will be shown: the samples when it is not open yet.
    const base = findLiveSurface(ir, QUEUE) === undefined ? [...SAMPLE_TICKETS] : queueTickets(ir);
    const id = nextTicketId(base);
    const ticket: Ticket = {
      id, subject: String(context.subject).trim(), customer: String(context.customer ?? '').trim(),
      priority: context.priority as Ticket['priority'], status: 'new', details: String(context.details ?? '').trim(),
    };
    const closed = closeSurface(ir, surface.id, draw);
    if (!closed.ok) return closed;
    const shown = showQueue(closed.ir, draw, [...base, ticket]);
    return shown.ok ? { ok: true, ir: shown.ir, toast: { level: 'success', text: `Filed ${id}` } } : shown;
  },
});

export const ticketCancelAction = defineAction({
  name: 'ticket.cancel',
  description: 'Close the new-ticket form without filing it.',
  contextSchema: () => NO_VALUES,
  handle(ir, surface, _context, draw) {
    const closed = closeSurface(ir, surface.id, draw);
    return closed.ok ? { ok: true, ir: closed.ir, toast: { level: 'info', text: 'Not filed' } } : closed;
  },
});

type Found = { ticket: Ticket; all: Ticket[] };

/** A per-item action of the queue: `update` gets the ticket the button belongs to. */
function ticketAction(name: string, description: string, update: (ir: ConversationIr, found: Found, draw: Draw) =>
  ReturnType<ActionDefinition['handle']>): ActionDefinition {
  return defineAction({
    name, description, scope: 'item', contextSchema: () => NO_VALUES,
    handle(ir, _surface, context, draw) {
      const found = ticketOf(ir, context);
      return found.ok ? update(ir, found, draw) : found;
    },
  });
}

/** Writes the queue's tickets; on success the toast says `text`. */
function writeQueue(ir: ConversationIr, tickets: readonly Ticket[], draw: Draw, text: string): ReturnType<ActionDefinition['handle']> {
  const written = writeListItems(ir, QUEUE, TICKETS_LIST, tickets.map((t) => ({ ...t }) as DataValue), draw);
  return written.ok ? { ok: true, ir: written.ir, toast: { level: 'success', text } } : written;
}

/** Take: the ticket is yours (status "taken"); taking a taken ticket changes nothing. */
export const ticketTakeAction = ticketAction('ticket.take', 'Take a ticket from the queue.', (ir, { ticket, all }, draw) =>
  writeQueue(ir, all.map((t) => (t.id === ticket.id ? { ...t, status: 'taken' as const } : t)), draw, `You took ${ticket.id}`));

export const ticketOpenAction = ticketAction('ticket.open', 'Show one ticket in its own panel.', (ir, { ticket }, draw) => {
  const { details: _details, ...shown } = ticket;
  return { ok: true, ir: openSurface(ir, { id: DETAIL, view: detailView(ticket), ui: { ticket: shown } }, draw) };
});

export const ticketResolveAction = ticketAction('ticket.resolve', 'Resolve a ticket: it leaves the queue.', (ir, { ticket, all }, draw) =>
  writeQueue(ir, all.filter((t) => t.id !== ticket.id), draw, `Resolved ${ticket.id}`));

export const ticketCloseAction = defineAction({
  name: 'ticket.close',
  description: 'Close the ticket panel.',
  contextSchema: () => NO_VALUES,
  handle(ir, surface, _context, draw) {
    const closed = closeSurface(ir, surface.id, draw);
    return closed.ok ? { ok: true, ir: closed.ir } : closed;
  },
});

/** Send reply: the reply written in the ticket panel's modal; the panel closes and says to whom it went. */
export const ticketReplyAction = defineAction({
  name: 'ticket.reply',
  description: 'Send the reply written in the ticket panel to the customer.',
  contextSchema: (surface) => fieldContextSchema(surface),
  handle(ir, surface, context, draw) {
    const ticket = surface.data.ui['ticket'] as { id?: unknown; customer?: unknown } | undefined;
    const closed = closeSurface(ir, surface.id, draw);
    if (!closed.ok) return closed;
    const to = typeof ticket?.customer === 'string' && ticket.customer !== '' ? ticket.customer : 'the customer';
    const words = String(context.reply).trim().split(/\s+/).length;
    return { ok: true, ir: closed.ir, toast: { level: 'success', text: `Reply on ${String(ticket?.id)} sent to ${to} (${words} words)` } };
  },
});

export const DESK_ACTIONS: readonly ActionDefinition[] = [
  ticketSubmitAction, ticketCancelAction, ticketTakeAction, ticketOpenAction, ticketResolveAction, ticketCloseAction, ticketReplyAction,
];
