import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EPOCH_CLOCK } from '../../src/clientsim/index.ts';
import { compileA2uiUpdate, type A2uiCompileResult } from '../../src/compiler/index.ts';
import { buildUserAction, type ActionDetail } from '../../src/host-a2ui/client/actions.ts';
import type { ConversationIr } from '../../src/ui-ir/index.ts';
import { applyTransitions, arbListHistory, arbTransitionSequence } from '../support/arbitraries-ir.ts';
import { errorsOf, expectSameState, runBoth } from '../clientsim/compare.ts';

/**
 * ClientSim v0.8 against the official processor (WC) on compiled streams with collections: the
 * init and every update along generated histories (lists written, items appended, changed,
 * removed), then every rendered Button clicked on both sides. ClientSim's `click` must produce
 * the exact `userAction` our Lit page posts (host-a2ui/client/actions.ts: Angular's resolver over
 * WC's resolvePath/getData), template instances included: an item's button reads its key
 * through the item-relative path, resolved against the instance's data context.
 */
function streamOf(irs: readonly ConversationIr[]): unknown[] {
  const out: unknown[] = [];
  for (let i = 1; i < irs.length; i += 1) {
    const result: A2uiCompileResult = compileA2uiUpdate(irs[i - 1], irs[i]!);
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    for (const b of result.batches) out.push(...b.messages);
  }
  return out;
}

type WcNode = { id: string; type: string; dataContextPath: string; properties: Record<string, unknown> };

function buttonsOf(tree: unknown): WcNode[] {
  const out: WcNode[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) { v.forEach(walk); return; }
    if (v === null || typeof v !== 'object' || v instanceof Map) return;
    const node = v as WcNode;
    if (typeof node.id === 'string' && 'properties' in node && 'dataContextPath' in node) {
      if (node.type === 'Button') out.push(node);
      walk(node.properties);
    } else Object.values(v).forEach(walk);
  };
  walk(tree);
  return out;
}

describe('ClientSim v0.8 vs the official processor on compiled collections, with clicks', () => {
  it('same state and tree after every stream, and every Button (item buttons too) sends what the Lit page sends (300 runs)', () => {
    let itemClicks = 0;
    fc.assert(fc.property(fc.oneof(arbListHistory, arbTransitionSequence), (ops) => {
      const stream = streamOf(applyTransitions(ops));
      const { sim, violations, wc } = runBoth(stream);
      expect(wc.threw).toEqual([]);
      expect(errorsOf(violations)).toEqual([]);
      expectSameState(sim, wc);
      for (const [surfaceId, surface] of wc.proc.getSurfaces()) {
        const seen = new Set<string>();
        for (const node of buttonsOf(surface.componentTree)) {
          if (seen.has(node.id)) continue; // ClientSim clicks the first of duplicate ids, as a user sees it first
          seen.add(node.id);
          const ours = sim.click(surfaceId, node.id, EPOCH_CLOCK);
          const detail: ActionDetail = {
            action: node.properties.action as ActionDetail['action'], dataContextPath: node.dataContextPath,
            sourceComponentId: node.id, sourceComponent: node as never,
          };
          const theirs = JSON.parse(JSON.stringify(buildUserAction(wc.proc, surfaceId, detail, new Date(0)))) as unknown;
          expect(ours.ok, JSON.stringify(ours)).toBe(true);
          if (ours.ok) expect(ours.message).toEqual(theirs);
          if (node.id.includes(':')) {
            itemClicks += 1;
            const context = (theirs as { userAction: { context: Record<string, unknown> } }).userAction.context;
            expect(typeof context.item).toBe('string');
            expect(typeof context.list).toBe('string');
          }
        }
      }
    }), { numRuns: 300 });
    expect(itemClicks).toBeGreaterThan(200);
  }, 600_000);
});
