import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createDemoApp } from '../../../src/app/index.ts';
import { createClientSimV09, driversV09, type ClientSimV09 } from '../../../src/clientsim/index.ts';
import { compileA2uiV09Update, compileConversationToA2uiV09, type A2uiV09CompileResult } from '../../../src/compiler/index.ts';
import { runDirectives } from '../../../src/directives/index.ts';
import { createSeededSource, emptyConversation, type ConversationIr } from '../../../src/ui-ir/index.ts';
import { officialClick, officialInput, type Oracle } from '../../support/a2ui-v0_9-oracle.ts';
import { validDirectiveEnvelope } from '../../support/arbitraries-directives.ts';
import { applyTransitions, arbListHistory, arbTransitionSequence } from '../../support/arbitraries-ir.ts';
import { errorIndexes, expectSameStateV09, runBothV09 } from './compare.ts';

/**
 * ClientSim v0.9 against the official processor on compiled streams: the init and every update
 * along generated IR transitions and demo-app directive sequences, then a simulated user on the
 * result: each input written through both (ClientSim's `input`, the official binder's setter),
 * each Button clicked in both (ClientSim's `click`, the official binder's action closure).
 */
function messagesOf(result: A2uiV09CompileResult): unknown[] {
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.batches.flatMap((b) => b.messages);
}

export function compiledStream(irs: readonly ConversationIr[]): unknown[] {
  const out: unknown[] = [];
  for (let i = 1; i < irs.length; i += 1) out.push(...messagesOf(compileA2uiV09Update(irs[i - 1], irs[i]!)));
  return out;
}

const TYPED: Record<string, unknown[]> = {
  TextField: ['typed', '', '[1]', 'main.title.Text'],
  DateTimeInput: ['2026-01-02', '10:30', '2026-01-02T10:30:00'],
  CheckBox: [true, false],
  Slider: [0, 7, 12.5],
  ChoicePicker: [[], ['a'], ['x', 'y']],
};

/** Clicks on a list item's Button where both sides sent an item key (the scoped path resolved). */
let itemClicks = 0;

/** Drives both sides like one user, checking after each step that they still agree. */
function actLikeAUser(sim: ClientSimV09, oracle: Oracle, pick: number): void {
  for (const [surfaceId, snapshot] of sim.surfaces()) {
    for (const node of snapshot.tree.nodes) {
      const values = TYPED[node.type];
      if (node.state !== 'resolved' || values === undefined) continue;
      const value = values[pick % values.length];
      expect(sim.input(surfaceId, node.id, value)).toEqual([]);
      officialInput(oracle, surfaceId, node.id, value, node.dataPath);
    }
    expectSameStateV09(sim, oracle);
    for (const node of snapshot.tree.nodes) {
      if (node.type !== 'Button' || node.state !== 'resolved') continue;
      const ours = sim.click(surfaceId, node.id, undefined, node.dataPath);
      const theirs = officialClick(oracle, surfaceId, node.id, node.dataPath);
      expect(ours.ok, JSON.stringify(ours)).toBe(theirs.ok);
      if (ours.ok && theirs.ok) {
        const wire = JSON.parse(JSON.stringify(theirs.action)) as { timestamp: string };
        expect(ours.message).toEqual({ version: 'v0.9', action: { ...wire, timestamp: new Date(0).toISOString() } });
        if (node.dataPath.includes('/items/') && typeof ours.message.action.context['item'] === 'string') itemClicks += 1;
      }
    }
  }
}

function agree(stream: readonly unknown[], pick: number): void {
  const run = runBothV09(stream);
  expect(run.refused).toEqual([]);
  expect(errorIndexes(run.violations)).toEqual([]);
  expectSameStateV09(run.sim, run.oracle);
  actLikeAUser(run.sim, run.oracle, pick);
}

describe('ClientSim v0.9 vs the official processor on compiled streams, with a simulated user', () => {
  it('init + updates along generated IR transitions, lists among them (300 runs)', () => {
    itemClicks = 0;
    fc.assert(fc.property(fc.oneof(arbTransitionSequence, arbListHistory), fc.nat(), (ops, pick) => agree(compiledStream(applyTransitions(ops)), pick)), { numRuns: 300 });
    expect(itemClicks, 'item Buttons clicked inside template instances').toBeGreaterThan(200);
  }, 600_000);

  it('init + updates along demo-app directive sequences (300 runs)', () => {
    const app = createDemoApp();
    fc.assert(fc.property(fc.array(validDirectiveEnvelope({ maxDirectives: 3 }), { minLength: 1, maxLength: 4 }), fc.nat(), (envelopes, pick) => {
      const source = createSeededSource('sim');
      const irs = [emptyConversation('sim')];
      for (const e of envelopes) irs.push(runDirectives(app.directives, irs[irs.length - 1]!, e, { mode: 'best_effort', source }).ir);
      agree(compiledStream(irs), pick);
    }), { numRuns: 300 });
  }, 600_000);
});

describe('ClientSim v0.9 drivers on compiled streams', () => {
  const hash = { sortDataKeys: true, reachableOnly: true } as const;

  it('a client cut anywhere that reloads and gets a fresh init of the last IR ends where an uninterrupted one does (200 runs)', () => {
    fc.assert(fc.property(arbTransitionSequence, (ops) => {
      const irs = applyTransitions(ops);
      const stream = compiledStream(irs);
      const fresh = messagesOf(compileConversationToA2uiV09(irs[irs.length - 1]!));
      for (const report of driversV09.cutAtEveryPoint(stream, () => fresh, { reload: true, hash })) {
        expect(report.diffs, `cut at ${report.cutIndex}`).toEqual([]);
      }
    }), { numRuns: 200 });
  }, 600_000);

  it('a client that resumes with the rest of the stream ends in exactly the same state (200 runs)', () => {
    fc.assert(fc.property(arbTransitionSequence, (ops) => {
      const stream = compiledStream(applyTransitions(ops));
      for (const report of driversV09.cutAtEveryPoint(stream, (cut) => stream.slice(cut.cutIndex))) expect(report.diffs).toEqual([]);
    }), { numRuns: 200 });
  }, 600_000);

  it('replay gives per-surface hashes and snapshots; a different state hashes differently', () => {
    const irs = applyTransitions([{ t: 'open', id: 'main', view: { template: 't', title: 'T', blocks: [{ kind: 'field', name: 'n', label: 'N', control: 'text', required: false }], actions: [] } }]);
    const stream = compiledStream(irs);
    const result = driversV09.replay(stream);
    expect([...result.hashes.keys()]).toEqual(['main--e0']);
    expect(result.surfaces.get('main--e0')).toMatchObject({ rendering: true, catalogId: expect.stringContaining('v0_9') });
    const sim = createClientSimV09();
    sim.applyAll(stream);
    expect(sim.hash('main--e0')).toBe(result.hashes.get('main--e0'));
    sim.setValue('main--e0', '/draft/n', 'x');
    expect(sim.hash('main--e0')).not.toBe(result.hashes.get('main--e0'));
  });
});
