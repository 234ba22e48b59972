import { expect } from 'vitest';
import { newConversation, type Conversation, type E2eServer } from './stack.ts';

/*
 * The table the table browser tests show (Lit pages and the React page): eight tickets, typed
 * columns (badge, en-GB date, de-DE euros, link), five rows a page, newest first, a Take button
 * per row; one subject is markup and one link is `javascript:` (shown as text, never a link).
 */
export const ROWS = [
  ['T-1001', 'Cannot log in after password reset', 'Ada Park', 'urgent', '2026-11-28', 0, 'https://desk.example/T-1001'],
  ['T-1002', 'Invoice shows the wrong address', 'Ben Ortiz', 'normal', '2026-11-29', 129.9, 'https://desk.example/T-1002'],
  ['T-1003', 'Export to CSV is slow', 'Chen Li', 'low', '2026-11-30', 0, 'https://desk.example/T-1003'],
  ['T-1004', 'Refund for a double charge', 'Dara Singh', 'urgent', '2026-12-01', 1249.5, 'https://desk.example/T-1004'],
  ['T-1005', 'Dark mode ignores the setting', 'Eli Novak', 'low', '2026-11-20', 0, 'https://desk.example/T-1005'],
  ['T-1006', 'Two-factor codes arrive late', 'Fay Moreau', 'normal', '2026-11-25', 0, 'https://desk.example/T-1006'],
  ['T-1007', 'Upgrade to the team plan', 'Gus Hale', 'normal', '2026-11-27', 4800, 'https://desk.example/T-1007'],
  ['T-1008', '<script>alert(1)</script> in the subject', 'Hana Ito', 'low', '2026-12-02', 12, 'javascript:alert(1)'],
].map(([id, subject, customer, priority, opened, amount, link]) => ({ id, subject, customer, priority, opened, amount, link }));

/** Opens the ticket table on `queue` of a new conversation. */
export async function showTable(s: E2eServer): Promise<{ c: Conversation; client: ReturnType<E2eServer['client']> }> {
  const client = s.client();
  const c = await newConversation(s, client);
  const shown = await s.handle.conversations.applyHostAnswer(c.cid, {
    rawText: JSON.stringify({
      directives: [{
        type: 'ui.show_table',
        payload: {
          surface: 'queue', title: 'Support queue', table: 'tickets', caption: 'Open tickets', page_size: 5,
          columns: [
            { key: 'id', label: 'Ticket' }, { key: 'subject', label: 'Subject' }, { key: 'customer', label: 'Customer' },
            { key: 'priority', label: 'Priority', type: 'badge' }, { key: 'opened', label: 'Opened', type: 'date', locale: 'en-GB' },
            { key: 'amount', label: 'Amount', type: 'currency', currency: 'EUR', locale: 'de-DE' }, { key: 'link', label: 'Link', type: 'link', sortable: false },
          ],
          rows: ROWS, sort: { column: 'opened', dir: 'desc' },
          actions: [{ name: 'ticket.take', label: 'Take', primary: true }],
        },
      }],
    }),
    tool: 'show_table', label: 'test',
  });
  expect(shown.ok, JSON.stringify(shown)).toBe(true);
  return { c, client };
}

