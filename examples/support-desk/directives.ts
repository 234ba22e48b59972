import { defineDirective, findLiveSurface, openSurface, z, type DirectiveDefinition } from 'surfacer';
import { showQueue } from './actions.ts';
import { PRIORITIES } from './tickets.ts';
import { NEW_TICKET, newTicketView, QUEUE } from './views.ts';

const ShowQueuePayload = z.object({}).strict();

export const showQueueDirective = defineDirective<z.infer<typeof ShowQueuePayload>>({
  type: 'desk.show_queue',
  aliases: ['show_queue', 'desk.queue', 'queue', 'desk.showQueue'],
  description: 'Open the support queue: the open tickets, each with Take, Open and Resolve buttons.',
  payload: ShowQueuePayload,
  example: {},
  apply: (ir, _payload, draw) => showQueue(ir, draw),
});

const NewTicketPayload = z.object({
  subject: z.string().min(1).max(120).optional().describe('prefilled subject'),
  customer: z.string().max(80).optional().describe('prefilled customer name'),
  priority: z.enum(PRIORITIES).optional().describe('prefilled priority; default normal'),
  details: z.string().max(2000).optional().describe('prefilled details'),
}).strict();

export const newTicketDirective = defineDirective<z.infer<typeof NewTicketPayload>>({
  type: 'desk.new_ticket',
  aliases: ['new_ticket', 'desk.newTicket', 'ticket.new', 'file_ticket'],
  description: 'Open the new-ticket form, prefilled with what the user already said. The user files it.',
  payload: NewTicketPayload,
  example: { subject: 'Printer on floor 2 is jammed', priority: 'normal' },
  apply(ir, p, draw) {
    const draft = { subject: p.subject ?? '', customer: p.customer ?? '', priority: p.priority ?? 'normal', details: p.details ?? '' };
    // Replacing an open form keeps what the user typed unless the model prefills it anew.
    const open = findLiveSurface(ir, NEW_TICKET);
    return { ok: true, ir: openSurface(ir, { id: NEW_TICKET, view: newTicketView, draft: { ...open?.data.draft, ...draft } }, draw) };
  },
});

export const DESK_DIRECTIVES: readonly DirectiveDefinition<any>[] = [showQueueDirective, newTicketDirective];
export { QUEUE };
