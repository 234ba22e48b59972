import { describe, expect, it } from 'vitest';
import { createSupportDeskApp } from '../../examples/support-desk/app.ts';
import { a2uiClientAssets, appClientEntry, appElementsOf, elementModulePath } from '../../src/host-a2ui/client-bundle.ts';
import { indexOfItem, itemActionDetail, itemsOf, wireItemActions } from '../../src/host-a2ui/client/app-elements.ts';
import { createDemoApp } from '../../src/app/index.ts';

/*
 * An app's own elements in its A2UI page clients (issue 22 item 4): which elements an app has,
 * the generated bundle entry (JSON literals only), and that the bundle really holds them; the
 * element contract's pure helpers.
 */
describe('app client bundles', () => {
  const desk = appElementsOf(createSupportDeskApp())!;

  it('an app with an element per component has them all, under its catalogue id; one without any (or missing one) has none', () => {
    expect(desk.catalogId).toBe('https://surfacer.example/support-desk/catalog/v1.json');
    expect(desk.elements.map((e) => [e.component, e.tag])).toEqual([['TicketTable', 'desk-ticket-table'], ['BarChart', 'desk-bar-chart']]);
    expect(elementModulePath(desk.elements[0]!.module)).toMatch(/examples\/support-desk\/elements\/ticket-table\.ts$/);
    expect(appElementsOf({})).toBeUndefined();
    const partial = { catalog: { id: 'https://x.test/c.json' }, components: { list: () => [{ name: 'A', element: { tag: 'x-a', module: '/a.ts' } }, { name: 'B' }] } };
    expect(appElementsOf(partial)).toBeUndefined();
  });

  it('the generated entry imports the page and each module, then starts the page with the components, all as JSON literals', () => {
    const hostile = { catalogId: 'https://x.test/"); alert(1); ("', elements: [{ component: 'A', tag: 'x-a', module: '/tmp/a"b.ts' }] };
    const entry = appClientEntry('v0_9', hostile);
    expect(entry).toContain(`import ${JSON.stringify('/tmp/a"b.ts')};`);
    expect(entry).toContain(`startV09Page(${JSON.stringify({ catalogId: hostile.catalogId, components: [{ name: 'A', tag: 'x-a' }] })});`);
    expect(appClientEntry('v0_8', hostile)).toMatch(/^import \{ startV08Page \} from ".*page-v08\.ts";/);
  });

  it('the desk\'s v0.9 client defines its elements and differs from the plain client; the demo\'s holds the portrait card', async () => {
    const [plain, own] = await Promise.all([a2uiClientAssets('0.9'), a2uiClientAssets('0.9', desk)]);
    expect(plain.appComponents).toBe(false);
    expect(own.appComponents).toBe(true);
    expect(own.script.path).toMatch(/^\/assets\/a2ui-client-v09-[0-9a-f]{16}\.js$/);
    expect(own.script.path).not.toBe(plain.script.path);
    for (const tag of ['desk-ticket-table', 'desk-bar-chart', 'surfacer-item-action']) expect(own.script.contents).toContain(tag);
    expect(plain.script.contents).not.toContain('desk-ticket-table');
    const demo = await a2uiClientAssets('0.8', appElementsOf(createDemoApp())!);
    expect(demo.appComponents).toBe(true);
    expect(demo.script.contents).toContain('demo-portrait-card');
  }, 120_000);
});

describe('the element contract', () => {
  it('reads items as plain objects in index order (arrays, or maps keyed 0, 1, … as v0.8 keeps them)', () => {
    expect(itemsOf([{ key: 'a' }, 3, null, { key: 'b' }])).toEqual([{ key: 'a' }, { key: 'b' }]);
    expect(itemsOf(new Map<string, unknown>([['1', new Map([['key', 'b']])], ['0', new Map([['key', 'a']])]]))).toEqual([{ key: 'a' }, { key: 'b' }]);
    expect(itemsOf(undefined)).toEqual([]);
    expect(indexOfItem([{ key: 'a' }, { key: 'b' }], 'b')).toBe(1);
    expect(indexOfItem([{ key: 'a' }], 'forged')).toBe(-1);
  });

  it('takes an item action event only with a string action and item', () => {
    expect(itemActionDetail(new CustomEvent('x', { detail: { action: 'ticket.take', item: 'T-1' } }))).toEqual({ action: 'ticket.take', item: 'T-1' });
    expect(itemActionDetail(new CustomEvent('x', { detail: { action: 'ticket.take', item: 3 } }))).toBeUndefined();
    expect(itemActionDetail(new CustomEvent('x'))).toBeUndefined();
  });

  it('names wire item actions by their event (v0.9) or name (v0.8); entries without an action are skipped', () => {
    const v09 = [{ label: 'Take', primary: true, action: { event: { name: 'ticket.take', context: {} } } }, { label: 'Broken' }];
    expect(wireItemActions(v09, (a: { event: { name: string } }) => a.event.name).map(({ name, label, primary }) => ({ name, label, primary })))
      .toEqual([{ name: 'ticket.take', label: 'Take', primary: true }]);
    const v08 = [{ label: { literalString: 'Open' }, primary: { literalBoolean: true }, action: { name: 'ticket.open', context: [] } }];
    expect(wireItemActions(v08, (a: { name: string }) => a.name)[0]).toMatchObject({ name: 'ticket.open', label: 'Open', primary: true });
  });
});
