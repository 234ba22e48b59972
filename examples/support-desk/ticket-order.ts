/**
 * The queue table's columns and their order, shared by the TicketTable's HTML template (the
 * server sorts for the htmx page) and its element (the browser sorts on the A2UI pages).
 */
export const SORT_COLUMNS = [
  { key: 'id', label: 'Ticket' },
  { key: 'subject', label: 'Subject' },
  { key: 'customer', label: 'Customer' },
  { key: 'priority', label: 'Priority' },
  { key: 'status', label: 'Status' },
] as const;
export type SortColumn = (typeof SORT_COLUMNS)[number]['key'];
export const SORT_KEYS = SORT_COLUMNS.map((c) => c.key) as [SortColumn, ...SortColumn[]];

/** Urgent first when sorting by priority (ascending = most pressing first). */
const PRIORITY_RANK: Record<string, number> = { urgent: 0, normal: 1, low: 2 };

export function compareTickets(a: Record<string, unknown>, b: Record<string, unknown>, column: SortColumn): number {
  if (column === 'priority') {
    const d = (PRIORITY_RANK[String(a.priority)] ?? 9) - (PRIORITY_RANK[String(b.priority)] ?? 9);
    if (d !== 0) return d;
  } else {
    const d = String(a[column] ?? '').localeCompare(String(b[column] ?? ''));
    if (d !== 0) return d;
  }
  return String(a.id ?? '').localeCompare(String(b.id ?? ''));
}
