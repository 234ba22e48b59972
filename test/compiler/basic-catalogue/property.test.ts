import fc from 'fast-check';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { EPOCH_CLOCK } from '../../../src/clientsim/index.ts';
import {
  collectA2uiComponentTypes, collectA2uiV09ComponentTypes, compileA2uiUpdate, compileA2uiV09Update,
  validateA2uiMessages, validateA2uiV09Messages,
} from '../../../src/compiler/index.ts';
import { buildUserAction, type ActionDetail } from '../../../src/host-a2ui/client/actions.ts';
import { SurfaceView, type Block, type ConversationIr, type DataOp } from '../../../src/ui-ir/index.ts';
import {
  applyTransitions, arbAction, arbBlock, arbFieldBlock, arbMediaBlocks, arbModalBlock, arbShortText, arbTabsBlock,
  type TransitionOp,
} from '../../support/arbitraries-ir.ts';
import { errorsOf, expectSameState, runBoth } from '../../clientsim/compare.ts';
import { clickEveryButtonV09, errorIndexes, expectSameStateV09, runBothV09 } from '../../clientsim/v0_9/compare.ts';
import { silenceWc } from '../a2ui-v0_8/wc-oracle.ts';

/**
 * The basic catalogue's tabs, modal, icon, video and audio over generated IR whose views always
 * hold some of them (fields inside tabs and modals among them): every compiled stream, init and
 * updates, is accepted by the official v0.8 and v0.9 processors and by our validators, ClientSim
 * ends in the state the official processor ends in, and every Button (inside a modal or a tab
 * too) sends the same action from ClientSim as from the official client code.
 */
const RUNS = 300;
const LONG = 600_000;

const arbCatalogueBlock: fc.Arbitrary<Block> = fc.oneof(arbTabsBlock(2), arbModalBlock(2), ...arbMediaBlocks);

/** A view with 1–4 catalogue blocks among other blocks; a modal or tab holding a field is common. */
const arbCatalogueView: fc.Arbitrary<SurfaceView> = fc.record({
  template: fc.constant('catalogue'),
  title: arbShortText,
  blocks: fc.tuple(
    fc.array(arbCatalogueBlock, { minLength: 1, maxLength: 4 }),
    fc.array(arbBlock(1), { maxLength: 3 }),
    fc.option(fc.tuple(arbFieldBlock, arbShortText).map(([field, label]): Block => ({ kind: 'modal', label, blocks: [field] })), { nil: undefined }),
  ).map(([catalogue, rest, modal]) => [...catalogue, ...rest, ...(modal ? [modal] : [])]),
  actions: fc.array(arbAction, { maxLength: 2 }),
}).filter((v) => SurfaceView.safeParse(v).success);

const arbOps: fc.Arbitrary<TransitionOp[]> = fc.array(
  fc.oneof(
    fc.record({ t: fc.constant('open' as const), id: fc.constantFrom('main', 'side'), view: arbCatalogueView }),
    fc.record({ t: fc.constant('patch' as const), id: fc.constantFrom('main', 'side'), ops: fc.constant<DataOp[]>([{ op: 'add', namespace: 'draft', keys: ['name'], value: 'x' }]) }),
  ),
  { minLength: 1, maxLength: 4 },
).map((ops): TransitionOp[] => [{ t: 'open', id: 'main', view: { template: 'catalogue', title: 'T', blocks: [], actions: [] } }, ...ops]);

const NEW_TYPES_V08 = ['Tabs', 'Modal', 'Icon', 'Video', 'AudioPlayer'];

beforeEach(() => {
  silenceWc();
  return () => { vi.restoreAllMocks(); };
});

function v08Stream(irs: readonly ConversationIr[]): unknown[] {
  const out: unknown[] = [];
  const types = new Map<string, Map<string, string>>();
  for (let i = 1; i < irs.length; i += 1) {
    const result = compileA2uiUpdate(irs[i - 1], irs[i]!);
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    for (const b of result.batches) {
      expect(b.recovery, JSON.stringify(b.errors)).toBe('none');
      expect(validateA2uiMessages(b.messages, { incremental: true, priorTypes: types })).toEqual([]);
      collectA2uiComponentTypes(b.messages, types);
      out.push(...b.messages);
    }
  }
  return out;
}

function v09Stream(irs: readonly ConversationIr[]): unknown[] {
  const out: unknown[] = [];
  const types = new Map<string, Map<string, string>>();
  for (let i = 1; i < irs.length; i += 1) {
    const result = compileA2uiV09Update(irs[i - 1], irs[i]!);
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    for (const b of result.batches) {
      expect(b.recovery, JSON.stringify(b.errors)).toBe('none');
      expect(validateA2uiV09Messages(b.messages, { incremental: true, priorTypes: types }).filter((v) => v.severity !== 'warning')).toEqual([]);
      collectA2uiV09ComponentTypes(b.messages, types);
      out.push(...b.messages);
    }
  }
  return out;
}

type WcNode = { id: string; type: string; dataContextPath: string; properties: Record<string, unknown> };

/** Every node of WC's tree (Modal and Tabs children sit in `properties`). */
function nodesOf(tree: unknown): WcNode[] {
  const out: WcNode[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) { v.forEach(walk); return; }
    if (v === null || typeof v !== 'object' || v instanceof Map) return;
    const node = v as WcNode;
    if (typeof node.id === 'string' && 'properties' in node && 'dataContextPath' in node) {
      out.push(node);
      walk(node.properties);
    } else Object.values(v).forEach(walk);
  };
  walk(tree);
  return out;
}

describe('basic catalogue blocks over generated IR, official processors and ClientSim', () => {
  it(`v0.8: accepted by WC and our validator, ClientSim agrees, every button sends what the Lit page sends (${RUNS} runs)`, () => {
    const seen = new Set<string>();
    let modals = 0;
    fc.assert(fc.property(arbOps, (ops) => {
      const stream = v08Stream(applyTransitions(ops));
      const { sim, violations, wc } = runBoth(stream);
      expect(wc.threw).toEqual([]);
      expect(errorsOf(violations)).toEqual([]);
      expectSameState(sim, wc);
      for (const [surfaceId, surface] of wc.proc.getSurfaces()) {
        const clicked = new Set<string>();
        for (const node of nodesOf(surface.componentTree)) {
          seen.add(node.type);
          if (node.type !== 'Button' || clicked.has(node.id)) continue;
          clicked.add(node.id);
          const ours = sim.click(surfaceId, node.id, EPOCH_CLOCK);
          const detail: ActionDetail = {
            action: node.properties.action as ActionDetail['action'], dataContextPath: node.dataContextPath,
            sourceComponentId: node.id, sourceComponent: node as never,
          };
          const theirs = JSON.parse(JSON.stringify(buildUserAction(wc.proc, surfaceId, detail, new Date(0)))) as unknown;
          expect(ours.ok, JSON.stringify(ours)).toBe(true);
          if (ours.ok) expect(ours.message).toEqual(theirs);
        }
        // A modal's trigger is a Card (a v0.8 Button would send an action when the modal opens).
        for (const node of nodesOf(surface.componentTree)) {
          if (node.type !== 'Modal') continue;
          const entry = node.properties.entryPointChild as WcNode;
          expect(entry.type).toBe('Card');
          modals += 1;
        }
      }
    }), { numRuns: RUNS });
    for (const type of NEW_TYPES_V08) expect(seen, type).toContain(type);
    expect(modals).toBeGreaterThan(10);
  }, LONG);

  it(`v0.9: accepted by the official processor and our validator, ClientSim agrees, modal triggers send nothing (${RUNS} runs)`, () => {
    let triggers = 0;
    fc.assert(fc.property(arbOps, (ops) => {
      const stream = v09Stream(applyTransitions(ops));
      const run = runBothV09(stream);
      expect(run.refused, JSON.stringify([...run.reasons])).toEqual([]);
      expect(errorIndexes(run.violations)).toEqual([]);
      expectSameStateV09(run.sim, run.oracle);
      for (const button of clickEveryButtonV09(run)) {
        if (!button.id.endsWith('.open.Button')) continue;
        triggers += 1;
        // No action: opening a modal is client-only, nothing reaches the server.
        expect(button.sent).toBeUndefined();
      }
    }), { numRuns: RUNS });
    expect(triggers).toBeGreaterThan(10);
  }, LONG);
});
