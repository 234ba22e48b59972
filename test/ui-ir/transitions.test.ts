import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { templateView, CHARACTER_CARD, PERSONA } from '../../src/app/index.ts';
import {
  addToast, appendTranscript, closeSurface, commitSurface, ConversationIr, createSeededSource, draw, emptyConversation,
  expireSurface, findLiveSurface, openSurface, patchSurfaceData, resetSurfaceEpoch, type ConversationIr as Ir, type DataOp,
} from '../../src/ui-ir/index.ts';
import { deepFreeze, text } from '../support/arbitraries-directives.ts';

const source = () => createSeededSource('transitions');

function opened(): Ir {
  const s = source();
  return openSurface(emptyConversation('t'), { id: 'main', view: templateView(CHARACTER_CARD), draft: { name: 'A' } }, draw(s));
}

function ok(result: { ok: boolean; ir?: Ir }): Ir {
  if (!result.ok || result.ir === undefined) throw new Error('transition failed');
  return result.ir;
}

describe('transitions', () => {
  const d = { now: '2026-01-01T00:00:09.000Z', nonce: 'nonce-0002-abcdef' };

  it('opens a surface in editing state with rev 0 and the drawn nonce', () => {
    const ir = opened();
    const s = ir.surfaces[0]!;
    expect(s).toMatchObject({ id: 'main', epoch: 0, rev: 0, lifecycle: 'editing', data: { draft: { name: 'A' }, committed: {}, ui: {} } });
    expect(ConversationIr.safeParse(ir).success).toBe(true);
  });

  it('replacing with the same template keeps committed and nonce, bumps rev, tombstones removed draft keys', () => {
    const committed = ok(commitSurface(opened(), 'main', { draft: {}, committed: { name: 'A' } }, d));
    const again = openSurface(committed, { id: 'main', view: templateView(CHARACTER_CARD), draft: {} }, d);
    const s = again.surfaces[0]!;
    expect(s.data.committed).toEqual({ name: 'A' });
    expect(s.nonce).toBe(committed.surfaces[0]!.nonce);
    expect(s.rev).toBe(committed.surfaces[0]!.rev + 1);
    expect(s.tombstones).toContain('/draft/name');
  });

  it('replacing with another template drops committed (tombstoned)', () => {
    const committed = ok(commitSurface(opened(), 'main', { draft: {}, committed: { name: 'A' } }, d));
    const other = openSurface(committed, { id: 'main', view: templateView(PERSONA) }, d).surfaces[0]!;
    expect(other.data.committed).toEqual({});
    expect(other.tombstones).toContain('/committed/name');
  });

  it('re-opening a deleted surface starts a new epoch with a new nonce', () => {
    const closed = ok(closeSurface(opened(), 'main', d));
    expect(findLiveSurface(closed, 'main')).toBeUndefined();
    const reopened = openSurface(closed, { id: 'main', view: templateView(PERSONA) }, d).surfaces[0]!;
    expect(reopened).toMatchObject({ epoch: 1, rev: 0, nonce: d.nonce, lifecycle: 'editing' });
  });

  it('patches draft (rev bump) and ui (no bump); removing tombstones; whole namespace refused', () => {
    const ir = opened();
    const draftOp: DataOp = { op: 'replace', namespace: 'draft', keys: ['name'], value: 'B' };
    const afterDraft = ok(patchSurfaceData(ir, 'main', [draftOp], d)).surfaces[0]!;
    expect(afterDraft.rev).toBe(1);
    const afterUi = ok(patchSurfaceData(ir, 'main', [{ op: 'add', namespace: 'ui', keys: ['busy'], value: true }], d)).surfaces[0]!;
    expect(afterUi.rev).toBe(0);
    const removed = ok(patchSurfaceData(ir, 'main', [{ op: 'remove', namespace: 'draft', keys: ['name'] }], d)).surfaces[0]!;
    expect(removed.tombstones).toEqual(['/draft/name']);
    const whole = patchSurfaceData(ir, 'main', [{ op: 'remove', namespace: 'ui', keys: [] }], d);
    expect(whole.ok ? undefined : whole.error.code).toBe('IR_POINTER_INVALID');
    const missing = patchSurfaceData(ir, 'nope', [draftOp], d);
    expect(missing.ok ? undefined : missing.error.code).toBe('IR_SURFACE_NOT_FOUND');
  });

  it('expires and resets the epoch', () => {
    const expired = ok(expireSurface(opened(), 'main', d));
    expect(expired.surfaces[0]!.lifecycle).toBe('expired');
    const reset = ok(resetSurfaceEpoch(expired, 'main', d)).surfaces[0]!;
    expect(reset).toMatchObject({ epoch: 1, nonce: d.nonce, lifecycle: 'editing', tombstones: [] });
  });

  it('bounds toasts to 20 and mirrors the last one into /ui/toast', () => {
    let ir = opened();
    for (let i = 0; i < 25; i++) ir = addToast(ir, { level: 'info', text: `t${i}`, surfaceId: 'main' }, d);
    expect(ir.toasts).toHaveLength(20);
    expect(ir.toasts[0]!.text).toBe('t5');
    expect(ir.surfaces[0]!.data.ui.toast).toMatchObject({ text: 't24' });
    expect(ConversationIr.safeParse(ir).success).toBe(true);
  });

  it('appends transcript entries with ids derived from seq', () => {
    const ir = appendTranscript(appendTranscript(emptyConversation('t'), { role: 'user', text: 'hi' }, d), { role: 'assistant', text: 'yo' }, d);
    expect(ir.transcript.map((e) => e.id)).toEqual(['t1', 't2']);
    expect(ir.seq).toBe(2);
  });
});

type Step = (ir: Ir) => Ir;

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.constantFrom(CHARACTER_CARD, PERSONA).map((t) => (ir: Ir) => openSurface(ir, { id: 'main', view: templateView(t), draft: {} }, draw(source()))),
  text(40).map((t) => (ir: Ir) => addToast(ir, { level: 'info', text: t, surfaceId: 'main' }, { now: '2026-01-01T00:00:00.000Z' })),
  text(40).map((t) => (ir: Ir) => appendTranscript(ir, { role: 'user', text: t }, { now: '2026-01-01T00:00:00.000Z' })),
  fc.string({ maxLength: 10 }).map((v) => (ir: Ir) => {
    const r = patchSurfaceData(ir, 'main', [{ op: 'replace', namespace: 'draft', keys: ['name'], value: v }], { now: '2026-01-01T00:00:00.000Z' });
    return r.ok ? r.ir : ir;
  }),
  fc.constant((ir: Ir) => { const r = commitSurface(ir, 'main', { draft: {}, committed: { name: 'x' } }, { now: '2026-01-01T00:00:00.000Z' }); return r.ok ? r.ir : ir; }),
  fc.constant((ir: Ir) => { const r = closeSurface(ir, 'main', { now: '2026-01-01T00:00:00.000Z' }); return r.ok ? r.ir : ir; }),
  fc.constant((ir: Ir) => { const r = resetSurfaceEpoch(ir, 'main', draw(source())); return r.ok ? r.ir : ir; }),
);

describe('transition properties', () => {
  fcTest.prop([fc.array(step, { maxLength: 12 })])('never mutate their (deep-frozen) inputs and keep the IR valid', (steps) => {
    let ir = deepFreeze(emptyConversation('prop'));
    for (const s of steps) {
      const before = structuredClone(ir);
      const next = s(ir);
      expect(ir).toEqual(before);
      expect(ConversationIr.safeParse(next).success).toBe(true);
      ir = deepFreeze(next);
    }
  });

  fcTest.prop([
    fc.array(fc.record({ key: fc.constantFrom('a', 'b', 'c', 'd'), title: text(20) }), { minLength: 1, maxLength: 6 }),
    fc.nat({ max: 8 }), fc.constantFrom('add', 'replace', 'remove'), fc.boolean(),
  ])('a patch into an array by position is refused and changes nothing; the whole array may be replaced', (items, index, op, deeper) => {
    const d = { now: '2026-01-01T00:00:09.000Z' };
    const ir = deepFreeze(ok(patchSurfaceData(opened(), 'main', [{ op: 'add', namespace: 'ui', keys: ['lists', 'x'], value: items }], d)));
    const keys = ['lists', 'x', String(index), ...(deeper ? ['title'] : [])];
    const into: DataOp = op === 'remove' ? { op, namespace: 'ui', keys } : { op, namespace: 'ui', keys, value: 'changed' };
    const refused = patchSurfaceData(ir, 'main', [into], d);
    expect(refused).toMatchObject({ ok: false, error: { code: 'IR_POINTER_INVALID' } });
    const whole = ok(patchSurfaceData(ir, 'main', [{ op: 'replace', namespace: 'ui', keys: ['lists', 'x'], value: items.slice(1) }], d));
    expect(findLiveSurface(whole, 'main')!.data.ui).toEqual({ lists: { x: items.slice(1) } });
  });
});
