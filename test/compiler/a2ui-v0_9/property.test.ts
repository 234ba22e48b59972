import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createDemoApp } from '../../../src/app/index.ts';
import {
  collectA2uiV09ComponentTypes, compileA2uiV09Update, compileConversationToA2uiV09, validateA2uiV09Messages,
  type A2uiV09CompileResult, type A2uiV09Message, type A2uiV09SurfaceBatch,
} from '../../../src/compiler/index.ts';
import { runDirectives } from '../../../src/directives/index.ts';
import { ConversationIr, createSeededSource, emptyConversation } from '../../../src/ui-ir/index.ts';
import { feed, newOracle, renderedTree, visibleState } from '../../support/a2ui-v0_9-oracle.ts';
import { validDirectiveEnvelope } from '../../support/arbitraries-directives.ts';
import { applyTransitions, arbConversationIr, arbListHistory, arbTransitionSequence } from '../../support/arbitraries-ir.ts';

/**
 * The v0.9 compiler over generated IR and generated directive sequences, with the official v0.9
 * MessageProcessor as the oracle: every batch passes the package's envelope schema and the
 * processor (no throw, no console.error), our own validator finds nothing, incremental updates
 * never replace the root or /draft, and a client that followed the updates shows what a fresh
 * client of the last IR shows (rendered tree and data).
 */
const RUNS = 300;
// Property suites of 300 runs through the official processor take minutes on a loaded 2-core machine.
const LONG = 600_000;

function batchesOf(result: A2uiV09CompileResult): A2uiV09SurfaceBatch[] {
  if (!result.ok) throw new Error(`compile failed: ${JSON.stringify(result.errors)}`);
  return result.batches;
}

function clobbers(messages: readonly A2uiV09Message[]): A2uiV09Message[] {
  return messages.filter((m) => 'updateDataModel' in m && [undefined, '', '/', '/draft'].includes(m.updateDataModel.path));
}

function checkBatch(batch: A2uiV09SurfaceBatch): void {
  expect(batch.recovery, JSON.stringify(batch.errors)).toBe('none');
  expect(batch.lines).toEqual(batch.messages.map((m) => JSON.stringify(m)));
  for (const m of batch.messages) expect(m.version).toBe('v0.9');
}

/** A client that applied every step's update ends where a fresh init of the last IR starts. */
function followUpdates(irs: readonly ConversationIr[]): void {
  const oracle = newOracle();
  const types = new Map<string, Map<string, string>>();
  for (let i = 1; i < irs.length; i += 1) {
    for (const batch of batchesOf(compileA2uiV09Update(irs[i - 1], irs[i]!))) {
      checkBatch(batch);
      if (batch.kind === 'update') expect(clobbers(batch.messages)).toEqual([]);
      expect(validateA2uiV09Messages(batch.messages, { incremental: true, priorTypes: types }).filter((v) => v.severity !== 'warning')).toEqual([]);
      collectA2uiV09ComponentTypes(batch.messages, types);
      feed(oracle, batch.messages, `step ${i} ${batch.kind}`);
    }
  }
  const fresh = newOracle();
  for (const batch of batchesOf(compileConversationToA2uiV09(irs[irs.length - 1]!))) feed(fresh, batch.messages);
  expect(visibleState(oracle)).toBe(visibleState(fresh));
}

describe('A2UI v0.9 compiler over generated IR (official v0.9 processor as oracle)', () => {
  it('full init of any valid conversation is accepted by the processor and by our validator, and renders', () => {
    fc.assert(fc.property(arbConversationIr, (ir) => {
      ConversationIr.parse(ir);
      const batches = batchesOf(compileConversationToA2uiV09(ir));
      expect(batches.map((b) => b.surfaceId)).toEqual(ir.surfaces.filter((s) => s.lifecycle !== 'deleted').map((s) => s.id));
      const oracle = newOracle();
      for (const batch of batches) {
        expect(batch.kind).toBe('init');
        checkBatch(batch);
        expect(validateA2uiV09Messages(batch.messages)).toEqual([]);
        feed(oracle, batch.messages);
        expect(renderedTree(oracle, batch.a2uiSurfaceId)).toMatchObject({ id: 'root', type: 'Card' });
      }
    }), { numRuns: RUNS });
  }, LONG);

  it('incremental updates along IR transitions are accepted, never clobber /draft, and end where a fresh init starts', () => {
    fc.assert(fc.property(fc.oneof(arbTransitionSequence, arbListHistory), (ops) => followUpdates(applyTransitions(ops))), { numRuns: RUNS });
  }, LONG);

  it('any directive sequence of the demo app: init and updates of every step are accepted and converge', () => {
    const app = createDemoApp();
    fc.assert(fc.property(fc.array(validDirectiveEnvelope({ maxDirectives: 3 }), { minLength: 1, maxLength: 5 }), (envelopes) => {
      const source = createSeededSource('directives');
      const irs = [emptyConversation('prop')];
      for (const envelope of envelopes) irs.push(runDirectives(app.directives, irs[irs.length - 1]!, envelope, { mode: 'best_effort', source }).ir);
      for (const ir of irs) {
        const oracle = newOracle();
        for (const batch of batchesOf(compileConversationToA2uiV09(ir))) {
          checkBatch(batch);
          expect(validateA2uiV09Messages(batch.messages)).toEqual([]);
          feed(oracle, batch.messages);
        }
      }
      followUpdates(irs);
    }), { numRuns: RUNS });
  }, LONG);
});
