import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import {
  createMemoryStore, foldLog, irHash, legacyIrHash, type FoldContext,
} from '../../src/conversation/index.ts';
import type { ConversationIr } from '../../src/ui-ir/index.ts';
import { applyTransitions, arbTransitionSequence } from '../support/arbitraries-ir.ts';
import { fakeRunDirectives } from './fixtures/demo-app.ts';
import { formAction, makeService } from './fixtures/service.ts';

/**
 * irHash hashes each part once per object (the IR is immutable and shares unchanged parts), so
 * these check that the memo never stands in for content: equal content gives equal hashes
 * whatever the object identities, and a change anywhere changes the hash.
 */
describe('irHash', () => {
  fcTest.prop([arbTransitionSequence], { numRuns: 150 })('depends on content only, and sees every change', (ops) => {
    const irs = applyTransitions(ops);
    for (const ir of irs) expect(irHash(structuredClone(ir))).toBe(irHash(ir));
    // Each transition changed something, so consecutive hashes differ, as the JSON does.
    for (let i = 1; i < irs.length; i++) {
      const same = JSON.stringify(irs[i]) === JSON.stringify(irs[i - 1]);
      expect(irHash(irs[i]!) === irHash(irs[i - 1]!)).toBe(same);
    }
  });

  fcTest.prop([
    fc.array(fc.record({ grow: fc.nat(4), reorder: fc.boolean(), text: fc.string({ maxLength: 20 }) }), { minLength: 1, maxLength: 40 }),
  ], { numRuns: 300 })('a transcript grown by appends hashes as its whole JSON does (the running hash is only a shortcut)', (steps) => {
    const transcriptOf = (ir: ConversationIr, transcript: ConversationIr['transcript']): ConversationIr => ({ ...ir, transcript });
    const base = applyTransitions([])[0]!;
    let transcript: ConversationIr['transcript'] = [];
    let n = 0;
    for (const step of steps) {
      const added = Array.from({ length: step.grow }, () => ({ id: `t${n += 1}`, role: 'user' as const, text: step.text, at: '2026-01-01T00:00:00.000Z' }));
      // Mostly appends (what transitions do); sometimes the same entries in another order, or a copy of them.
      transcript = step.reorder && transcript.length > 1 ? [...transcript.slice(1), transcript[0]!, ...added] : [...transcript, ...added];
      const ir = transcriptOf(base, transcript);
      expect(irHash(ir)).toBe(irHash(transcriptOf(base, structuredClone(transcript))));
      expect(irHash(ir)).toBe(irHash(JSON.parse(JSON.stringify(ir)) as ConversationIr));
    }
  });

  fcTest.prop([arbTransitionSequence, fc.array(fc.tuple(fc.nat(30), fc.boolean()), { maxLength: 25 })], { numRuns: 200 })(
    'given the IR it was made from, the hash is the same (toasts added, dropped, copied or reordered)',
    (ops, toastSteps) => {
      const irs = applyTransitions(ops);
      // The previous IR as a hint, and any other IR as a wrong one: neither changes the hash.
      for (let i = 1; i < irs.length; i++) {
        expect(irHash(irs[i]!, irs[i - 1])).toBe(irHash(structuredClone(irs[i]!)));
        expect(irHash(irs[i]!, irs[0])).toBe(irHash(structuredClone(irs[i]!)));
      }
      let ir = irs.at(-1)!;
      irHash(ir);
      for (const [n, reorder] of toastSteps) {
        const toast = { id: `n${n}`, level: 'info' as const, text: `t${n}`, at: '2026-01-01T00:00:00.000Z' };
        // Mostly what addToast does (append, keep the newest 20); sometimes a copy in place, or the list turned round.
        const toasts = reorder ? [...ir.toasts].reverse() : n % 7 === 0 && ir.toasts.length > 0
          ? [{ ...ir.toasts[0]!, text: 'changed' }, ...ir.toasts.slice(1)] : [...ir.toasts, toast].slice(-20);
        const next = { ...ir, toasts };
        expect(irHash(next, ir)).toBe(irHash(structuredClone(next)));
        ir = next;
      }
    },
  );

  it('changes when any part changes, views and transcript included', () => {
    const [, ir] = applyTransitions([{ t: 'open', id: 'main', view: { template: 'ask', title: 'T', blocks: [], actions: [] } },
      { t: 'toast', level: 'info', text: 'hi' }]).slice(-2) as [ConversationIr, ConversationIr];
    const s = ir.surfaces[0]!;
    const variants: ConversationIr[] = [
      { ...ir, seq: ir.seq + 1 },
      { ...ir, transcript: [{ id: 't9', role: 'user', text: 'x', at: s.updatedAt }] },
      { ...ir, surfaces: [{ ...s, view: { ...s.view, title: 'U' } }] },
      { ...ir, surfaces: [{ ...s, data: { ...s.data, draft: { a: 'b' } } }] },
      { ...ir, surfaces: [{ ...s, rev: s.rev + 1 }] },
      { ...ir, toasts: [{ ...ir.toasts[0]!, text: 'other' }] },
      { ...ir, toasts: [] },
    ];
    const hashes = new Set([irHash(ir), ...variants.map((v) => irHash(v))]);
    expect(hashes.size).toBe(variants.length + 1);
  });

  it('fold accepts logs written with the first (whole-JSON) hash', async () => {
    const store = createMemoryStore();
    const { service, app } = makeService(store);
    const c = await service.create('o');
    const turn = await service.runTurn(c.id, 'create a character card');
    if (!turn.ok) throw new Error('turn failed');
    const saved = await service.applyAction(c.id, formAction(turn.next, 'main', { name: 'Aria' }));
    if (!saved.ok) throw new Error('action failed');
    const entries = (await store.read(c.id))!;
    const ctx: FoldContext = {
      turn: { runDirectives: fakeRunDirectives, registry: app.directives, mode: 'best-effort' },
      actions: app.actions,
    };
    // The IR after each entry, and the log as the first version wrote it (SHA-256 of the IR's JSON).
    const irs: ConversationIr[] = [];
    for (let i = 2; i <= entries.length; i++) irs.push(foldLog(entries.slice(0, i), ctx).ir);
    const legacy = entries.map((e, i) => (e.type === 'created' ? e : { ...e, irHash: legacyIrHash(irs[i - 1]!) }));
    expect(legacy.map((e) => e.type !== 'created' && e.irHash)).not.toEqual(entries.map((e) => e.type !== 'created' && e.irHash));
    expect(foldLog(legacy, ctx).divergences).toEqual([]);
    expect(foldLog(entries, ctx).divergences).toEqual([]);
  });
});
