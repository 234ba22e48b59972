import type { ConversationIr, Planner, PlannerInput, PlannerOutput } from 'surfacer';
import { queueTickets } from './actions.ts';
import { PRIORITIES, SAMPLE_TICKETS } from './tickets.ts';

/**
 * The desk's offline planner: deterministic keywords, answering with the same JSON envelope a
 * model sends, so its output takes the parse → validate → run path a model's does.
 */
type Plan = { rule: string; text: string; directives: { type: string; payload: Record<string, unknown> }[] };

const NOTE = '(Offline planner: no language model is connected, so I follow simple keywords.)';

const has = (text: string, ...words: string[]): boolean => words.some((w) => new RegExp(`\\b${w}`, 'i').test(text));

/** "… about the printer" / "… : the printer" → "the printer" as a subject. */
function subjectFrom(text: string): string | undefined {
  const match = /\b(?:about|regarding|re:)\s+(.{1,120}?)[.!?]?$/i.exec(text.trim());
  return match?.[1]?.trim();
}

export function deskPlanFor(text: string, ir: ConversationIr): Plan {
  if (has(text, 'new', 'file', 'report', 'problem', 'broken', 'issue')) {
    const subject = subjectFrom(text);
    const priority = PRIORITIES.find((p) => has(text, p)) ?? (has(text, 'asap', 'urgent', 'down') ? 'urgent' : undefined);
    return {
      rule: 'new_ticket',
      text: `Here is a new ticket. Fill it in and file it.`,
      directives: [{ type: 'desk.new_ticket', payload: { ...(subject ? { subject } : {}), ...(priority ? { priority } : {}) } }],
    };
  }
  if (has(text, 'table', 'sort', 'all tickets')) {
    // The queue's tickets as they are now (the samples before the queue was opened), as a table
    // sorted and paged on the server; the queue keeps the buttons that change a ticket.
    const listed = ir.surfaces === undefined ? [] : queueTickets(ir);
    const rows = (listed.length > 0 ? listed : SAMPLE_TICKETS).map(({ id, subject, customer, priority, status }) => ({ id, subject, customer, priority, status }));
    return {
      rule: 'ticket_table',
      text: `Here are the tickets as a table. Sort it by any column; the queue has the buttons.`,
      directives: [{
        type: 'ui.show_table',
        payload: {
          surface: 'tickets', table: 'all_tickets', title: 'All tickets', caption: `${rows.length} tickets`,
          columns: [
            { key: 'id', label: 'Ticket' }, { key: 'subject', label: 'Subject' }, { key: 'customer', label: 'Customer' },
            { key: 'priority', label: 'Priority', type: 'badge' }, { key: 'status', label: 'Status', type: 'badge' },
          ],
          rows, sort: { column: 'id', dir: 'desc' }, page_size: 10,
        },
      }],
    };
  }
  return {
    rule: 'queue',
    text: `Here is the queue. Take a ticket, open it, or resolve it; say "new ticket" to file one.`,
    directives: [{ type: 'desk.show_queue', payload: {} }],
  };
}

export function createDeskPlanner(): Planner {
  return {
    name: 'offline',
    label: 'Offline desk planner (no language model connected)',
    async plan(input: PlannerInput, signal: AbortSignal): Promise<PlannerOutput> {
      signal.throwIfAborted();
      const chosen = deskPlanFor(input.text, input.ir);
      // Said once, in the first reply: the label tells the rest of the time.
      const plan = input.ir.transcript.some((e) => e.role === 'assistant') ? chosen : { ...chosen, text: `${chosen.text} ${NOTE}` };
      return {
        rawText: JSON.stringify({ assistant_text: plan.text, directives: plan.directives }),
        provider: 'offline', model: 'support-desk-keywords-v1', llmMs: 0, meta: { rule: plan.rule, offline: true },
      };
    },
  };
}
