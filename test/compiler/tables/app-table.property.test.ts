import { BASIC_COMPONENTS, BASIC_FUNCTIONS, Catalog, ComponentContext, MessageProcessor } from '@a2ui/web_core/v0_9';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createClientSimV09 } from '../../../src/clientsim/index.ts';
import { isFinding } from '../../../src/compiler/a2ui-shared/index.ts';
import { appCatalogSpecV09, appCatalogV09 } from '../../../src/compiler/components/index.ts';
import { compileA2uiV09Update, validateA2uiV09Messages, type A2uiV09Message } from '../../../src/compiler/index.ts';
import { tableView } from '../../../src/compiler/table-view.ts';
import { tableBlocks, type ConversationIr } from '../../../src/ui-ir/index.ts';
import { applyTransitions, arbTableHistory } from '../../support/arbitraries-ir.ts';
import { newOracle, officialClick, type Oracle } from '../../support/a2ui-v0_9-oracle.ts';
import { TEST_CATALOG_ID, testComponents } from '../../support/components.ts';
import { errorIndexes, expectSameStateV09, runBothV09 } from '../../clientsim/v0_9/compare.ts';

/**
 * The app catalogue's `Table` over generated table histories: every stream compiled for a v0.9
 * client holding the app catalogue (init and updates) is accepted by the official processor
 * holding the generated catalogue document and by our validator, ClientSim ends in the state
 * the official processor ends in, each table block is one `Table` (no basic layout of it), and
 * the actions the Table carries, resolved as the official client resolves them, are exactly the
 * actions the basic fallback's Buttons send for the same IR (so the same handlers apply them).
 */
const RUNS = 120;
const LONG = 600_000;
const registry = testComponents();
const app = { components: { registry, catalog: 'app' as const, catalogId: TEST_CATALOG_ID } };
const basic = { components: { registry, catalog: 'basic' as const } };
const document = appCatalogV09(registry, TEST_CATALOG_ID);
const spec = appCatalogSpecV09(registry, TEST_CATALOG_ID);

/**
 * The official processor as a real client of the app catalogue holds it (the Lit and React pages):
 * the official basic components, and Table as the generated document describes it (read by the
 * official Catalog.fromSchema).
 */
function appOracle(): Oracle {
  const loaded = Catalog.fromSchema(JSON.parse(JSON.stringify(document)));
  const catalog = new Catalog(TEST_CATALOG_ID, [...BASIC_COMPONENTS, loaded.components.get('Table')!], BASIC_FUNCTIONS);
  const actions: unknown[] = [];
  return { processor: new MessageProcessor([catalog], (a) => { actions.push(a); }), catalog, actions };
}

function stream(irs: readonly ConversationIr[], options: typeof app | typeof basic): A2uiV09Message[] {
  const out: A2uiV09Message[] = [];
  const types = new Map<string, Map<string, string>>();
  for (let i = 1; i < irs.length; i += 1) {
    const result = compileA2uiV09Update(irs[i - 1], irs[i]!, options);
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    for (const b of result.batches) {
      expect(b.recovery, JSON.stringify(b.errors)).toBe('none');
      const appCatalog = options.components.catalog === 'app' ? { appCatalog: spec } : {};
      expect(validateA2uiV09Messages(b.messages, { incremental: true, priorTypes: types, ...appCatalog }).filter(isFinding)).toEqual([]);
      for (const m of b.messages) {
        if ('updateComponents' in m) for (const c of m.updateComponents.components) types.get(m.updateComponents.surfaceId)?.set(c.id, c.component) ?? types.set(m.updateComponents.surfaceId, new Map([[c.id, c.component]]));
      }
      out.push(...b.messages);
    }
  }
  return out;
}

type Sent = { name: string; context: unknown };
const key = (s: Sent): string => JSON.stringify([s.name, s.context]);

/**
 * What the official client sends from every shown Table's actions (a Table of an earlier view
 * stays on the client unreferenced: not shown): controls as they are, row actions per shown row.
 */
function tableActions(run: ReturnType<typeof runBothV09>): Sent[] {
  const out: Sent[] = [];
  const oracle = run.oracle;
  for (const [surfaceId, snapshot] of run.sim.surfaces()) {
    const surface = oracle.processor.model.getSurface(surfaceId)!;
    for (const node of snapshot.tree.nodes) {
      if (node.type !== 'Table') continue;
      const id = node.id;
      const component = surface.componentsModel.get(id)!;
      const context = new ComponentContext(surface, id, '/');
      const p = component.properties as Record<string, any>;
      const resolve = (action: unknown, dataContext = context.dataContext): Sent => {
        const resolved = dataContext.resolveAction(action as never) as { event: { name: string; context: unknown } };
        return JSON.parse(JSON.stringify({ name: resolved.event.name, context: resolved.event.context })) as Sent;
      };
      for (const c of p.columns as Array<{ sortAction?: unknown }>) if (c.sortAction !== undefined) out.push(resolve(c.sortAction));
      if (p.previousAction !== undefined) out.push(resolve(p.previousAction));
      if (p.nextAction !== undefined) out.push(resolve(p.nextAction));
      const rows = context.dataContext.resolveDynamicValue(p.rows) as unknown[];
      for (const a of (p.rowActions ?? []) as Array<{ action: unknown }>) {
        rows.forEach((_, i) => out.push(resolve(a.action, context.dataContext.nested(p.rows.path).nested(String(i)))));
      }
    }
  }
  return out;
}

/** What the basic fallback's Buttons of tables send (clicked as the official renderer clicks them). */
function fallbackTableActions(run: ReturnType<typeof runBothV09>, prefixes: readonly string[]): Sent[] {
  const out: Sent[] = [];
  for (const [surfaceId, snapshot] of run.sim.surfaces()) {
    for (const node of snapshot.tree.nodes) {
      if (node.type !== 'Button' || node.state !== 'resolved') continue;
      const click = officialClick(run.oracle, surfaceId, node.id, node.dataPath);
      if (!click.ok) continue;
      const wire = JSON.parse(JSON.stringify(click.action)) as Sent;
      // A table's basic layout has the ids the Table's would: `<table base>.…`.
      if (prefixes.some((p) => p === `${surfaceId} ${node.id.slice(0, p.length - surfaceId.length - 1)}`)) out.push({ name: wire.name, context: wire.context });
    }
  }
  return out;
}

describe('the app catalogue\'s Table over generated table histories (v0.9)', () => {
  it(`accepted by the official processor with the app catalogue and our validator; ClientSim agrees; its actions are the fallback's (${RUNS} runs)`, () => {
    let tables = 0;
    let controls = 0;
    fc.assert(fc.property(arbTableHistory, (ops) => {
      const irs = applyTransitions(ops);
      const last = irs[irs.length - 1]!;
      const messages = stream(irs, app);
      const run = runBothV09(messages, { sim: createClientSimV09({ appCatalog: spec }), oracle: appOracle() });
      expect(run.refused, JSON.stringify([...run.reasons])).toEqual([]);
      expect(errorIndexes(run.violations)).toEqual([]);
      expectSameStateV09(run.sim, run.oracle);
      const shown = last.surfaces.filter((s) => s.lifecycle !== 'deleted').flatMap((s) => tableBlocks(s.view).map((b) => ({ s, b })));
      const emitted = messages.flatMap((m) => ('updateComponents' in m ? m.updateComponents.components : []));
      // Each table is one Table, with no basic component of its own (the fallback's sort Buttons, List of rows, pager).
      const tableIds = [...new Set(emitted.filter((c) => c.component === 'Table').map((c) => c.id))];
      for (const { b } of shown) expect(tableIds.some((id) => id.includes(`t-${b.name}`))).toBe(true);
      for (const id of tableIds) expect([...new Set(emitted.filter((c) => c.id.startsWith(id.slice(0, -'Table'.length))).map((c) => c.id))]).toEqual([id]);
      tables += shown.length;
      // The same IR compiled for a basic client: its table Buttons send exactly what the Table's actions send.
      const fallback = runBothV09(stream([irs[0]!, last], basic));
      const prefixes = [...run.sim.surfaces()].flatMap(([surfaceId, snapshot]) => snapshot.tree.nodes
        .filter((n) => n.type === 'Table').map((n) => `${surfaceId} ${n.id.slice(0, -'Table'.length)}`));
      const ours = tableActions(run).map(key).sort();
      expect(ours).toEqual(fallbackTableActions(fallback, prefixes).map(key).sort());
      controls += ours.length;
      for (const { s, b } of shown) expect(tableView(s, b).rows.length).toBeLessThanOrEqual(b.pageSize);
    }), { numRuns: RUNS });
    expect(tables).toBeGreaterThan(50);
    expect(controls).toBeGreaterThan(50);
  }, LONG);
});
