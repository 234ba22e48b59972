import { createListDirectives, createTableDirective, defineApp, itemActionNames, LIST_ACTIONS, TABLE_ACTIONS, type AppDefinition } from 'surfacer';
import { DESK_ACTIONS } from './actions.ts';
import { DESK_CATALOG_ID, DESK_COMPONENTS } from './components.ts';
import { DESK_DIRECTIVES } from './directives.ts';
import { createDeskPlanner } from './planner.ts';

export const DESK_APP_NAME = 'Support Desk';

/**
 * A support desk on Surfacer's public API only: a queue of tickets (its own TicketTable with
 * per-item Take, Open and Resolve, and a BarChart of tickets per week), a new-ticket form, a
 * ticket panel (tabs and a reply modal), the generic list directives so a model may also show
 * lists of its own (e.g. suggested answers) with Choose / Remove, and ui.show_table with the
 * table controls, so a model may show tickets as a table sorted and paged on the server.
 */
export function createSupportDeskApp(): AppDefinition {
  const actions = [...DESK_ACTIONS, ...LIST_ACTIONS, ...TABLE_ACTIONS];
  return defineApp({
    name: DESK_APP_NAME,
    directives: [
      ...DESK_DIRECTIVES, ...createListDirectives({ itemActions: itemActionNames(actions), components: DESK_COMPONENTS }),
      // Tickets (or anything a model read) as a table sorted and paged on the server.
      createTableDirective({ itemActions: itemActionNames(actions) }),
    ],
    actions,
    // Its own components (a ticket table, a bar chart) under its own catalogue id.
    components: DESK_COMPONENTS,
    catalog: { id: DESK_CATALOG_ID },
    offlinePlanner: createDeskPlanner(),
    // The words around the panels are the desk's own (the host's defaults are neutral).
    texts: {
      description: 'File, take and resolve support tickets by asking for them.',
      placeholder: 'e.g. new ticket about the printer',
      emptyState: 'No queue open yet. Ask for “the queue” or a “new ticket”.',
      hints: ['show the queue', 'new ticket about the printer, urgent'],
    },
    // A dark desk with square-ish corners and a teal accent (the demo app is light and violet).
    theme: { primaryColor: '#0f766e', fontFamily: '"Segoe UI", Helvetica, Arial, sans-serif', radius: 4, mode: 'dark' },
  });
}
