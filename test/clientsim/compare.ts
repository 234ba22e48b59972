import { expect } from 'vitest';
import { buildTree, createClientSim, type ClientSim, type Violation } from '../../src/clientsim/index.ts';
import { runWc, taggedJson, treeNodes, type WcRun } from './wc-oracle.ts';

export interface BothRuns {
  sim: ClientSim;
  violations: Violation[];
  wc: WcRun;
}

export function runBoth(stream: readonly unknown[]): BothRuns {
  const sim = createClientSim();
  const violations = sim.applyAll(stream);
  return { sim, violations, wc: runWc(stream) };
}

const sortedEntries = (map: ReadonlyMap<string, unknown>): Array<[string, unknown]> =>
  [...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/** ClientSim's final state equals WC's: surfaces, data (order- and type-exact), components, root, styles, visibility, rendered tree. */
export function expectSameState(sim: ClientSim, wc: WcRun): void {
  const state = sim.state();
  expect([...state.surfaces.keys()].sort()).toEqual([...wc.surfaces.keys()].sort());
  for (const [id, ws] of wc.surfaces) {
    const s = state.surfaces.get(id)!;
    expect(taggedJson(s.dataModel), `data of ${id}`).toBe(taggedJson(ws.dataModel));
    expect(sortedEntries(s.components), `components of ${id}`).toEqual(sortedEntries(ws.components));
    expect(s.root, `root of ${id}`).toBe(ws.rootComponentId);
    expect(s.styles, `styles of ${id}`).toEqual(ws.styles);
    expect(s.rendering && s.root !== null && s.root !== '', `visibility of ${id}`).toBe(wc.visible.has(id));
    const tree = buildTree(s);
    expect(tree.ok).toBe(true);
    if (tree.ok) {
      expect(treeNodes(tree.root), `tree of ${id}`).toEqual(treeNodes(ws.componentTree));
      expect(tree.nodes.map((n) => n.id), 'node list in document order').toEqual(treeNodes(tree.root).map((line) => line.split(' ')[0]));
    }
  }
}

export function errorsOf(violations: readonly Violation[]): Violation[] {
  return violations.filter((v) => v.severity === 'error');
}
