import { z } from 'surfacer';

/** A ticket as the queue stores it (at `/committed/tickets` of the queue panel). */
export const Ticket = z.object({
  id: z.string().regex(/^T-\d{4,6}$/),
  subject: z.string().min(1).max(120),
  customer: z.string().max(80),
  priority: z.enum(['low', 'normal', 'urgent']),
  status: z.enum(['new', 'taken']),
  details: z.string().max(2000),
});
export type Ticket = z.infer<typeof Ticket>;

export const PRIORITIES = Ticket.shape.priority.options;

/** The queue an empty desk starts with, so a newcomer sees a list at once. */
export const SAMPLE_TICKETS: readonly Ticket[] = [
  { id: 'T-1001', subject: 'Cannot log in after password reset', customer: 'Ada Park', priority: 'urgent', status: 'new',
    details: 'The reset link works, the new password is refused.' },
  { id: 'T-1002', subject: 'Invoice shows the wrong address', customer: 'Ben Ortiz', priority: 'normal', status: 'new',
    details: 'The March invoice still has the old office address.' },
  { id: 'T-1003', subject: 'Export to CSV is slow', customer: 'Chen Li', priority: 'low', status: 'new',
    details: 'Exports of 10,000 rows take a minute.' },
];

/** Tickets filed in each of the last six weeks (the queue's chart; sample figures). */
export const WEEKLY_FILED: readonly { label: string; value: number }[] = [
  { label: 'W14', value: 12 }, { label: 'W15', value: 9 }, { label: 'W16', value: 15 },
  { label: 'W17', value: 7 }, { label: 'W18', value: 11 }, { label: 'W19', value: 3 },
];

/** The next free id after the ones in `tickets` (T-1004 after T-1003). */
export function nextTicketId(tickets: readonly { id?: unknown }[]): string {
  const numbers = tickets.map((t) => (typeof t.id === 'string' ? Number(t.id.slice(2)) : 0)).filter(Number.isFinite);
  return `T-${Math.max(1000, ...numbers) + 1}`;
}

/** The tickets a queue surface holds; anything that is not a ticket is left out. */
export function ticketsOf(value: unknown): Ticket[] {
  return Array.isArray(value) ? value.flatMap((t) => {
    const parsed = Ticket.safeParse(t);
    return parsed.success ? [parsed.data] : [];
  }) : [];
}
