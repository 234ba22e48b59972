import fc from 'fast-check';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { EPOCH_CLOCK } from '../../../src/clientsim/index.ts';
import {
  collectA2uiComponentTypes, collectA2uiV09ComponentTypes, compileA2uiUpdate, compileA2uiV09Update,
  validateA2uiMessages, validateA2uiV09Messages,
} from '../../../src/compiler/index.ts';
import { compileConversationToHtml } from '../../../src/compiler/html/index.ts';
import { tableView } from '../../../src/compiler/table-view.ts';
import { buildUserAction, type ActionDetail } from '../../../src/host-a2ui/client/actions.ts';
import { pathTokens, tableBlocks, type ConversationIr } from '../../../src/ui-ir/index.ts';
import { encodeA2uiSurfaceId } from '../../../src/compiler/a2ui-shared/index.ts';
import { applyTransitions, arbTableHistory } from '../../support/arbitraries-ir.ts';
import { errorsOf, expectSameState, runBoth } from '../../clientsim/compare.ts';
import { clickEveryButtonV09, errorIndexes, expectSameStateV09, runBothV09 } from '../../clientsim/v0_9/compare.ts';
import { silenceWc } from '../a2ui-v0_8/wc-oracle.ts';

/**
 * Tables over generated histories (rows of every shape, columns of every type and locale, sorts
 * and pages changed by the controls' transition, rows rewritten, other transitions between):
 * every compiled stream, init and updates, is accepted by the official v0.8 and v0.9 processors
 * and by our validators, ClientSim ends in the state the official processor ends in, every
 * Button (sort, page, row) sends the same action from ClientSim as from the official client
 * code, and a client holds the shown page's rows and no other (the stored array stays on the
 * server); the htmx page shows the same rows.
 */
const RUNS = 200;
const LONG = 600_000;

beforeEach(() => {
  silenceWc();
  return () => { vi.restoreAllMocks(); };
});

function stream(irs: readonly ConversationIr[], version: '0.8' | '0.9'): unknown[] {
  const out: unknown[] = [];
  const types = new Map<string, Map<string, string>>();
  for (let i = 1; i < irs.length; i += 1) {
    const result = version === '0.8' ? compileA2uiUpdate(irs[i - 1], irs[i]!) : compileA2uiV09Update(irs[i - 1], irs[i]!);
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    for (const b of result.batches) {
      expect(b.recovery, JSON.stringify(b.errors)).toBe('none');
      if (version === '0.8') {
        expect(validateA2uiMessages(b.messages, { incremental: true, priorTypes: types })).toEqual([]);
        collectA2uiComponentTypes(b.messages, types);
      } else {
        expect(validateA2uiV09Messages(b.messages, { incremental: true, priorTypes: types }).filter((v) => v.severity !== 'warning')).toEqual([]);
        collectA2uiV09ComponentTypes(b.messages, types);
      }
      out.push(...b.messages);
    }
  }
  return out;
}

/** A value in a client's data model (v0.8 ClientSim holds maps, v0.9 plain JSON). */
function lookup(model: unknown, tokens: readonly string[]): unknown {
  let node = model;
  for (const token of tokens) {
    if (node instanceof Map) node = node.get(token);
    else if (node !== null && typeof node === 'object') node = Object.hasOwn(node, token) ? (node as Record<string, unknown>)[token] : undefined;
    else return undefined;
  }
  return node;
}

function rowKeys(items: unknown): unknown[] {
  const entries = items instanceof Map ? [...items.values()] : Array.isArray(items) ? items : [];
  return entries.map((entry) => lookup(entry, ['key']));
}

/**
 * What the client ends up holding for every table of the final IR: nothing at the rows' stored
 * path, and exactly the shown page's rows, in order, under /view/t-<name>/items.
 */
function expectOnlyShownPage(last: ConversationIr, dataOf: (a2uiSurfaceId: string) => unknown): number {
  let paged = 0;
  for (const surface of last.surfaces) {
    if (surface.lifecycle === 'deleted') continue;
    const model = dataOf(encodeA2uiSurfaceId(surface.id, surface.epoch));
    if (model === undefined) continue;
    for (const block of tableBlocks(surface.view)) {
      const view = tableView(surface, block);
      if (view.pages > 1) paged += 1;
      expect(lookup(model, pathTokens(block.path)), `rows of ${block.name} stay on the server`).toBeUndefined();
      expect(rowKeys(lookup(model, ['view', `t-${block.name}`, 'items']))).toEqual(view.rows.map((r) => r.key));
      expect(view.rows.length).toBeLessThanOrEqual(block.pageSize);
    }
  }
  return paged;
}

describe('tables over generated histories: official processors, ClientSim, only the shown page', () => {
  it(`v0.8: accepted by WC and our validator, ClientSim agrees, every button sends what the Lit page sends (${RUNS} runs)`, () => {
    let sorts = 0;
    let pages = 0;
    let paged = 0;
    fc.assert(fc.property(arbTableHistory, (ops) => {
      const irs = applyTransitions(ops);
      const messages = stream(irs, '0.8');
      const { sim, violations, wc } = runBoth(messages);
      expect(wc.threw).toEqual([]);
      expect(errorsOf(violations)).toEqual([]);
      expectSameState(sim, wc);
      paged += expectOnlyShownPage(irs[irs.length - 1]!, (id) => sim.state().surfaces.get(id)?.dataModel);
      for (const [surfaceId, surface] of wc.proc.getSurfaces()) {
        const clicked = new Set<string>();
        const walk = (v: unknown): void => {
          if (Array.isArray(v)) { v.forEach(walk); return; }
          if (v === null || typeof v !== 'object' || v instanceof Map) return;
          const node = v as { id?: unknown; type?: unknown; properties?: Record<string, unknown>; dataContextPath?: string };
          if (typeof node.id === 'string' && node.type === 'Button' && node.properties !== undefined && !clicked.has(node.id)) {
            clicked.add(node.id);
            const ours = sim.click(surfaceId, node.id, EPOCH_CLOCK);
            const detail: ActionDetail = {
              action: node.properties.action as ActionDetail['action'], dataContextPath: node.dataContextPath ?? '/',
              sourceComponentId: node.id, sourceComponent: node as never,
            };
            const theirs = JSON.parse(JSON.stringify(buildUserAction(wc.proc, surfaceId, detail, new Date(0)))) as { userAction: { name: string } };
            expect(ours.ok, JSON.stringify(ours)).toBe(true);
            if (ours.ok) expect(ours.message).toEqual(theirs);
            if (theirs.userAction.name === 'table.sort') sorts += 1;
            if (theirs.userAction.name === 'table.page') pages += 1;
          }
          Object.values(v).forEach(walk);
        };
        walk(surface.componentTree);
      }
    }), { numRuns: RUNS });
    expect(sorts).toBeGreaterThan(20);
    expect(pages).toBeGreaterThan(20);
    expect(paged).toBeGreaterThan(20);
  }, LONG);

  it(`v0.9: accepted by the official processor and our validator, ClientSim agrees, buttons send what the official client sends (${RUNS} runs)`, () => {
    let controls = 0;
    let paged = 0;
    fc.assert(fc.property(arbTableHistory, (ops) => {
      const irs = applyTransitions(ops);
      const run = runBothV09(stream(irs, '0.9'));
      expect(run.refused, JSON.stringify([...run.reasons])).toEqual([]);
      expect(errorIndexes(run.violations)).toEqual([]);
      expectSameStateV09(run.sim, run.oracle);
      paged += expectOnlyShownPage(irs[irs.length - 1]!, (id) => run.sim.state().surfaces.get(id)?.dataModel);
      controls += clickEveryButtonV09(run).filter((b) => b.sent?.startsWith('table.')).length;
    }), { numRuns: RUNS });
    expect(controls).toBeGreaterThan(20);
    expect(paged).toBeGreaterThan(20);
  }, LONG);

  it('the htmx page shows the same rows as the A2UI pages, in the same order (300 runs)', () => {
    fc.assert(fc.property(arbTableHistory, (ops) => {
      const irs = applyTransitions(ops);
      const last = irs[irs.length - 1]!;
      const html = compileConversationToHtml(last).html;
      for (const surface of last.surfaces) {
        if (surface.lifecycle === 'deleted') continue;
        for (const block of tableBlocks(surface.view)) {
          const keys = [...html.matchAll(new RegExp(`<tr id="surface-${surface.id}-table-${block.name}-row-[^"]+" data-key="([^"]+)"`, 'g'))].map((m) => m[1]);
          expect(keys).toEqual(tableView(surface, block).rows.map((r) => r.key));
        }
      }
    }), { numRuns: 300 });
  }, LONG);
});
