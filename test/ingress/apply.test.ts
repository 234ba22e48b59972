import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { makeError } from '../../src/errors/index.ts';
import { applyIngress, checkIngress, type ActionDefinition, type CheckedAction } from '../../src/ingress/index.ts';
import { ConversationIr } from '../../src/ui-ir/index.ts';
import { applyTransitions, arbTransitionSequence } from '../support/arbitraries-ir.ts';
import { arbEdit, edited } from '../support/ir-edits.ts';
import { bothTransports, buildIr, createTestActions, deepFreeze, nextDraw, surfaceOf } from './fixtures.ts';

function checked(ir: ConversationIr): CheckedAction {
  const { registry } = createTestActions();
  const [request] = bothTransports(surfaceOf(ir), { fields: { name: 'Grace', age: '36' } });
  const result = checkIngress(request!, ir, registry);
  if (!result.ok) throw new Error(result.error.technical_detail);
  return result;
}

const withHandler = (c: CheckedAction, handle: ActionDefinition['handle']): CheckedAction =>
  ({ ...c, action: { ...c.action, handle } });

describe('applyIngress', () => {
  it('runs the handler, records its toast in the IR, never mutates the input', () => {
    const ir = deepFreeze(buildIr());
    const before = structuredClone(ir);
    const result = applyIngress(ir, checked(ir), nextDraw('apply')());
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(ir).toEqual(before);
    const main = surfaceOf(result.ir);
    expect(main.rev).toBe(1);
    expect(main.data.committed).toEqual({ name: 'Grace', age: 36, agree: false, tags: [] });
    expect(result.toast).toEqual({ level: 'success', text: 'Saved.' });
    expect(result.ir.toasts.at(-1)).toMatchObject({ level: 'success', text: 'Saved.', surfaceId: 'main' });
    expect(main.data.ui.toast).toMatchObject({ text: 'Saved.' });
  });

  it('passes a handler failure through with its registry status', () => {
    const ir = deepFreeze(buildIr());
    const c = withHandler(checked(ir), () => ({ ok: false, error: makeError('IR_SURFACE_NOT_FOUND', 'gone') }));
    const result = applyIngress(ir, c, nextDraw()());
    expect(!result.ok && [result.error.code, result.status]).toEqual(['IR_SURFACE_NOT_FOUND', 404]);
  });

  it('turns a throwing handler into INTERNAL_ERROR 500', () => {
    const ir = deepFreeze(buildIr());
    const c = withHandler(checked(ir), () => { throw new Error('bug'); });
    const result = applyIngress(ir, c, nextDraw()());
    expect(!result.ok && [result.error.code, result.status]).toEqual(['INTERNAL_ERROR', 500]);
  });

  it('refuses an invalid IR from a handler (IR_SCHEMA_INVALID 500)', () => {
    const ir = deepFreeze(buildIr());
    const c = withHandler(checked(ir), (current) => ({ ok: true, ir: { ...current, conversationId: 'not valid!' } }));
    const result = applyIngress(ir, c, nextDraw()());
    expect(!result.ok && [result.error.code, result.status]).toEqual(['IR_SCHEMA_INVALID', 500]);
  });

  // applyIngress validates a handler's IR with the memoised check (ui-ir isValidConversationIr);
  // it must accept exactly what the full ConversationIr parse accepts.
  fcTest.prop([arbTransitionSequence, arbEdit, fc.boolean()], { numRuns: 200 })(
    'accepts a handler result iff ConversationIr.safeParse does',
    (ops, edit, valid) => {
      const irs = applyTransitions(ops);
      const before = irs.at(-2) ?? irs[0]!;
      const after = valid ? irs.at(-1)! : (edited(irs.at(-1)!, edit) as ConversationIr);
      const surface = before.surfaces[0] ?? irs.at(-1)!.surfaces[0]!;
      const base = checked(buildIr());
      const c: CheckedAction = { ...base, surface, action: { ...base.action, handle: () => ({ ok: true, ir: after }) } };
      const result = applyIngress(before, c, nextDraw('prop')());
      expect(result.ok).toBe(ConversationIr.safeParse(after).success);
      if (!result.ok) expect(result.error.code).toBe('IR_SCHEMA_INVALID');
    },
  );
});
