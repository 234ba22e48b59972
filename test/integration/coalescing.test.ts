import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createDemoDirectiveRegistry } from '../../src/app/index.ts';
import { compareHashes, createClientSim, type ClientSim, type Violation } from '../../src/clientsim/index.ts';
import { compileA2uiUpdate } from '../../src/compiler/index.ts';
import { runDirectives } from '../../src/directives/index.ts';
import { createSeededSource, draw, emptyConversation, openSurface, type ConversationIr } from '../../src/ui-ir/index.ts';
import {
  askPayload, requestUploadPayload, showFormPayload, validDirective, type Directive,
} from '../support/arbitraries-directives.ts';
import { applyTransitions, arbTransitionSequence } from '../support/arbitraries-ir.ts';
import { errorsOf, initLines, SAME_STATE, updateLines, wire } from './support/host.ts';

/**
 * Hundreds of generated cases each: ~10 s alone, several times that while the rest of the suite
 * shares the machine's two cores. A time limit is no verdict on speed here (benchmarks measure that).
 */
const PROPERTY_TIMEOUT_MS = 180_000;

/*
 * Metamorphic: whether the host sends one update per change ("off") or coalesces several
 * changes into one update ("on"), or the client joins late and gets a full init, every client
 * ends in the same state. The state hash ignores data-key order and unreachable components
 * (SAME_STATE); everything else (components, values, root, styles, rendering) must match.
 */

const registry = createDemoDirectiveRegistry();

/** Directives that open a panel, so the steps after them find surfaces to act on. */
const opener: fc.Arbitrary<Directive> = fc.oneof(
  { weight: 3, arbitrary: showFormPayload().map((payload) => ({ type: 'ui.show_form', payload })) },
  { weight: 1, arbitrary: askPayload().map((payload) => ({ type: 'ui.ask', payload })) },
  { weight: 1, arbitrary: requestUploadPayload().map((payload) => ({ type: 'ui.request_upload', payload })) },
);

const script = fc.record({
  seed: fc.string({ maxLength: 8 }),
  prefix: fc.array(opener, { minLength: 1, maxLength: 3 }),
  steps: fc.array(validDirective(), { minLength: 1, maxLength: 8 }),
});

function run(ir: ConversationIr, directives: Directive[], seed: string): ConversationIr {
  return runDirectives(registry, ir, { directives }, { mode: 'best_effort', source: createSeededSource(seed) }).ir;
}

/** A client that already holds `ir` (it connected then and got the full init). */
function clientAt(ir: ConversationIr, seen: Violation[]): ClientSim {
  const sim = createClientSim({ hash: SAME_STATE });
  seen.push(...sim.applyAll(initLines(ir)));
  return sim;
}

/** Everything must be clean: no rejected message, no id shadowing a string, nothing left buffering. */
function expectClean(sims: ClientSim[], seen: Violation[]): void {
  for (const sim of sims) seen.push(...sim.endOfStream());
  expect(errorsOf(seen)).toEqual([]);
  expect(seen.filter((v) => v.code === 'CLIENTSIM_STRING_SHADOWED_BY_ID' || v.code === 'CLIENTSIM_STUCK_BUFFERING'
    || v.code === 'CLIENTSIM_ROOT_MISSING')).toEqual([]);
}

function expectSameState(off: ClientSim, on: ClientSim, fresh: ClientSim): void {
  expect(compareHashes(off.hashes(), on.hashes())).toEqual([]);
  expect(compareHashes(off.hashes(), fresh.hashes())).toEqual([]);
}

describe('coalescing on vs off (metamorphic)', () => {
  it('generated demo directive sequences: per-directive updates = one coalesced update = fresh init (200 runs)', () => {
    let updates = 0;
    let coalescedUpdates = 0;
    fc.assert(fc.property(script, ({ seed, prefix, steps }) => {
      const start = run(emptyConversation('c1'), prefix, `${seed}/prefix`);
      const seen: Violation[] = [];
      const off = clientAt(start, seen);
      const on = clientAt(start, seen);

      // Off: one directive per model turn, each change compiled and sent on its own.
      const source = createSeededSource(seed);
      let ir = start;
      for (const directive of steps) {
        const next = runDirectives(registry, ir, { directives: [directive] }, { mode: 'best_effort', source }).ir;
        if (next !== ir) {
          seen.push(...off.applyAll(updateLines(ir, next)));
          updates += 1;
        }
        ir = next;
      }
      // On: the same directives as one envelope; entropy is drawn per applied directive, so the
      // IR is the same and only the number of updates on the wire differs.
      const coalesced = run(start, steps, seed);
      expect(isDeepStrictEqual(coalesced, ir)).toBe(true);
      const result = compileA2uiUpdate(start, coalesced);
      coalescedUpdates += result.batches.filter((b) => b.kind === 'update').length;
      seen.push(...on.applyAll(wire(result)));

      const fresh = createClientSim({ hash: SAME_STATE });
      seen.push(...fresh.applyAll(initLines(coalesced)));
      expectClean([off, on, fresh], seen);
      expectSameState(off, on, fresh);
    }), { numRuns: 200 });
    // The property is only as good as the updates it saw.
    expect(updates).toBeGreaterThan(200);
    // …and "on" is not always a rebuild (deleteSurface + init), which would make it a fresh init.
    expect(coalescedUpdates).toBeGreaterThan(20);
  }, PROPERTY_TIMEOUT_MS);

  it('generated IR transition sequences (commit, expire, epoch reset, adversarial text): same end state (200 runs)', () => {
    fc.assert(fc.property(arbTransitionSequence, fc.nat(), (ops, split) => {
      const irs = applyTransitions(ops);
      // Clients connect after a prefix of the changes, so "on" starts from a non-empty state.
      const from = split % irs.length;
      const seen: Violation[] = [];
      const off = clientAt(irs[from]!, seen);
      const on = clientAt(irs[from]!, seen);
      for (let i = from + 1; i < irs.length; i += 1) seen.push(...off.applyAll(updateLines(irs[i - 1]!, irs[i]!)));
      seen.push(...on.applyAll(updateLines(irs[from]!, irs.at(-1)!)));
      const fresh = createClientSim({ hash: SAME_STATE });
      seen.push(...fresh.applyAll(initLines(irs.at(-1)!)));
      expectClean([off, on, fresh], seen);
      expectSameState(off, on, fresh);
    }), { numRuns: 200 });
  }, PROPERTY_TIMEOUT_MS);

  it('the order-sensitive hash does tell the paths apart, so the relaxed hash is needed (and not vacuous)', () => {
    // /draft keys: an init writes the projection's order, a `.` leaf update appends a new key.
    const source = createSeededSource('order');
    const start = runDirectives(registry, emptyConversation('c1'), {
      directives: [{ type: 'ui.ask', payload: { title: 'Q', prompt: 'p', submit: 'Go', fields: [{ name: 'b', label: 'B', type: 'text' }] } }],
    }, { mode: 'strict', source }).ir;
    // The same panel given a form with one more field, in front (an IR transition: the directives
    // would open that other form beside the first, which may hold the person's typing).
    const wider = runDirectives(registry, emptyConversation('c1'), {
      directives: [{ type: 'ui.ask', payload: { title: 'Q', prompt: 'p', submit: 'Go', fields: [{ name: 'a', label: 'A', type: 'text' }, { name: 'b', label: 'B', type: 'text' }] } }],
    }, { mode: 'strict', source }).ir.surfaces[0]!;
    const next = openSurface(start, { id: wider.id, view: wider.view, draft: wider.data.draft }, draw(source));
    const off = createClientSim();
    off.applyAll([...initLines(start), ...updateLines(start, next)]);
    const fresh = createClientSim();
    fresh.applyAll(initLines(next));
    const id = [...fresh.hashes().keys()][0]!;
    expect(off.hash(id)).not.toBe(fresh.hash(id));
    expect(off.hash(id, SAME_STATE)).toBe(fresh.hash(id, SAME_STATE));
  });
});
