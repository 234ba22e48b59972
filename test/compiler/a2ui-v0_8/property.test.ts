import fc from 'fast-check';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import {
  collectA2uiComponentTypes, compileA2uiUpdate, compileConversationToA2ui, validateA2uiMessages,
  type A2uiCompileResult, type A2uiSurfaceBatch,
} from '../../../src/compiler/index.ts';
import { ConversationIr } from '../../../src/ui-ir/index.ts';
import { applyTransitions, arbConversationIr, arbListHistory, arbTransitionSequence } from '../../support/arbitraries-ir.ts';
import { hasRootOrDraftReplace, orderOk, pathPlusLiteral, stringsEqualToIds } from './invariants.ts';
import { feed, newProcessor, silenceWc, visibleState } from './wc-oracle.ts';

/**
 * Hundreds of generated cases each: ~10 s alone, several times that while the rest of the suite
 * shares the machine's two cores. A time limit is no verdict on speed here (benchmarks measure that).
 */
const PROPERTY_TIMEOUT_MS = 180_000;

beforeEach(() => {
  silenceWc();
  return () => { vi.restoreAllMocks(); };
});

function batchesOf(result: A2uiCompileResult): A2uiSurfaceBatch[] {
  if (!result.ok) throw new Error(`compile failed: ${JSON.stringify(result.errors)}`);
  return result.batches;
}

function checkBatch(batch: A2uiSurfaceBatch): void {
  expect(batch.recovery, JSON.stringify(batch.errors)).toBe('none');
  expect(orderOk(batch.messages)).toBe(true);
  expect(pathPlusLiteral(batch.messages)).toEqual([]);
  expect(batch.lines).toEqual(batch.messages.map((m) => JSON.stringify(m)));
  for (const m of batch.messages) {
    if ('surfaceUpdate' in m) for (const c of m.surfaceUpdate.components) expect(c.id).not.toContain(':');
  }
}

describe('A2UI compiler over generated IR (official processor as oracle)', () => {
  it('full init of any valid conversation is accepted by WC and by our validator', () => {
    fc.assert(fc.property(arbConversationIr, (ir) => {
      ConversationIr.parse(ir);
      const batches = batchesOf(compileConversationToA2ui(ir));
      expect(batches.map((b) => b.surfaceId)).toEqual(ir.surfaces.filter((s) => s.lifecycle !== 'deleted').map((s) => s.id));
      const processor = newProcessor();
      for (const batch of batches) {
        expect(batch.kind).toBe('init');
        checkBatch(batch);
        expect(stringsEqualToIds(batch.messages)).toEqual([]);
        expect(validateA2uiMessages(batch.messages)).toEqual([]);
        feed(processor, batch.messages);
      }
      // Every surface renders, with a tree.
      for (const batch of batches) expect(processor.getSurfaces().get(batch.a2uiSurfaceId)?.componentTree).toBeTruthy();
    }), { numRuns: 300 });
  }, PROPERTY_TIMEOUT_MS);

  it('incremental updates along IR transitions are accepted, never clobber /draft, and end where a fresh init starts', () => {
    fc.assert(fc.property(fc.oneof(arbTransitionSequence, arbListHistory), (ops) => {
      const irs = applyTransitions(ops);
      const processor = newProcessor();
      const types = new Map<string, Map<string, string>>();
      for (let i = 1; i < irs.length; i += 1) {
        for (const batch of batchesOf(compileA2uiUpdate(irs[i - 1], irs[i]!))) {
          checkBatch(batch);
          const ids = new Set(types.get(batch.a2uiSurfaceId)?.keys() ?? []);
          expect(stringsEqualToIds(batch.messages, ids)).toEqual([]);
          if (batch.kind === 'update') expect(hasRootOrDraftReplace(batch.messages)).toBe(false);
          expect(validateA2uiMessages(batch.messages, { incremental: true, priorTypes: types })).toEqual([]);
          collectA2uiComponentTypes(batch.messages, types);
          feed(processor, batch.messages, `step ${i} ${batch.kind}`);
        }
      }
      const fresh = newProcessor();
      for (const batch of batchesOf(compileConversationToA2ui(irs[irs.length - 1]!))) feed(fresh, batch.messages);
      expect(visibleState(processor)).toBe(visibleState(fresh));
    }), { numRuns: 300 });
  }, PROPERTY_TIMEOUT_MS);
});
