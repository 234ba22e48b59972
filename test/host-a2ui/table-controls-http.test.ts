import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupportDeskApp } from '../../examples/support-desk/app.ts';
import { BASIC_CATALOG_ID } from '../../src/a2ui-v0_9-protocol/index.ts';
import { createActionRegistry } from '../../src/ingress/index.ts';
import { startE2e, type E2eServer } from '../e2e/support/stack.ts';
import { showTable } from '../e2e/support/ticket-table.ts';

/*
 * The A2UI stream offers a table's sort and page controls only when the app takes table.sort and
 * table.page, as the htmx page does: the ingress refuses an action the app did not register (403),
 * so a control for it would be a dead button. The desk registers TABLE_ACTIONS; the same desk
 * without them still shows its tables (ui.show_table) and their row buttons.
 */
const DESK_CATALOG = 'https://surfacer.example/support-desk/catalog/v1.json';

function withoutTableActions() {
  const app = createSupportDeskApp();
  return { ...app, actions: createActionRegistry(app.actions.definitions.filter((d) => !d.name.startsWith('table.'))) };
}

async function snapshotActions(s: E2eServer, catalog: string, version: '0.8' | '0.9'): Promise<string[]> {
  const { c } = await showTable(s);
  const query = `?v=${version}${version === '0.9' ? `&catalog=${encodeURIComponent(catalog)}` : ''}`;
  const response = await fetch(`${s.url}${c.a2ui}/snapshot.jsonl${query}`, { headers: { Authorization: `Bearer ${c.token}` } });
  expect(response.status).toBe(200);
  const text = await response.text();
  // Every action name the stream carries, wherever the version puts it.
  return [...new Set([...text.matchAll(/"(?:name|action)":"((?:table|ticket)\.[a-z_]+)"/g)].map((m) => m[1]!))].sort();
}

describe.each([
  ['with TABLE_ACTIONS', () => createSupportDeskApp(), ['table.page', 'table.sort', 'ticket.take']],
  ['without TABLE_ACTIONS', withoutTableActions, ['ticket.take']],
])('a desk %s, over real HTTP', (_name, app, expected) => {
  let s: E2eServer;
  beforeAll(async () => { s = await startE2e({}, { app: app() }); });
  afterAll(async () => { await s.close(); });

  it.each([
    ['v0.9, app catalogue (the Table component)', DESK_CATALOG, '0.9'],
    ['v0.9, basic catalogue', BASIC_CATALOG_ID, '0.9'],
    ['v0.8', '', '0.8'],
  ] as const)('%s: the stream offers exactly the controls the ingress takes', async (_label, catalog, version) => {
    expect(await snapshotActions(s, catalog, version)).toEqual(expected);
  });
});
