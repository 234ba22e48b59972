import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createIngress, type ActionRequest } from '../../src/ingress/index.ts';
import {
  addToast, createSeededSource, draw, openSurface, patchSurfaceData, resetSurfaceEpoch, type ConversationIr,
} from '../../src/ui-ir/index.ts';
import { bothTransports, buildIr, createTestActions, decodeSurfaceId, FORM_VIEW, memoryConversation, surfaceOf } from './fixtures.ts';

type Op = 'submit' | 'replace' | 'reset' | 'patchDraft' | 'patchUi' | 'toast';
type Rendered = { epoch: number; nonce: string; rev: number };

/**
 * Drives `main` through a random history, remembering every (epoch, nonce, rev) a client could
 * have rendered, then sends an action carrying one of them (or a forged one). Property: the
 * action is applied if and only if the tuple is the current one.
 */
describe('property: no action with a stale epoch, wrong nonce or old rev is ever applied', () => {
  const op = fc.constantFrom<Op>('submit', 'replace', 'reset', 'patchDraft', 'patchUi', 'toast');
  const forged = fc.record({
    epoch: fc.nat({ max: 6 }), rev: fc.nat({ max: 8 }), nonce: fc.stringMatching(/^[A-Za-z0-9_-]{8,30}$/),
  });

  it('holds for both transports over random histories', async () => {
    await fc.assert(fc.asyncProperty(
      fc.array(op, { maxLength: 8 }), fc.nat(), fc.option(forged, { nil: undefined }), fc.boolean(),
      async (ops, pick, forgery, useHtml) => {
        const { registry, calls } = createTestActions();
        const source = createSeededSource('prop');
        const ingress = createIngress({ actions: registry, decodeSurfaceId, source });
        const conversation = memoryConversation(buildIr());
        const seen: Rendered[] = [];
        const remember = (ir: ConversationIr) => { const s = surfaceOf(ir); seen.push({ epoch: s.epoch, nonce: s.nonce, rev: s.rev }); };
        remember(conversation.ir);

        for (const step of ops) {
          const ir = conversation.ir;
          let next: ConversationIr = ir;
          if (step === 'submit') {
            const [request] = bothTransports(surfaceOf(ir), { fields: { name: 'Step' } });
            expect(await ingress.handle(request!, conversation)).toMatchObject({ kind: 'applied' });
            next = conversation.ir;
          } else if (step === 'replace') next = openSurface(ir, { id: 'main', view: FORM_VIEW }, draw(source));
          else if (step === 'reset') { const r = resetSurfaceEpoch(ir, 'main', draw(source)); if (r.ok) next = r.ir; }
          else if (step === 'patchDraft') {
            const r = patchSurfaceData(ir, 'main', [{ op: 'replace', namespace: 'draft', keys: ['name'], value: 'P' }], draw(source));
            if (r.ok) next = r.ir;
          } else if (step === 'patchUi') {
            const r = patchSurfaceData(ir, 'main', [{ op: 'replace', namespace: 'ui', keys: ['status'], value: 'x' }], draw(source));
            if (r.ok) next = r.ir;
          } else next = addToast(ir, { level: 'info', text: 'hi', surfaceId: 'main' }, draw(source));
          if (next !== conversation.ir) await conversation.commit(next);
          remember(conversation.ir);
        }

        const current = surfaceOf(conversation.ir);
        const sent: Rendered = forgery ?? seen[pick % seen.length]!;
        const isCurrent = sent.epoch === current.epoch && sent.nonce === current.nonce && sent.rev === current.rev;
        const [a2ui, html] = bothTransports(current, { ...sent, fields: { name: 'Late' }, html: { name: 'Late' } });
        const request: ActionRequest = useHtml ? html! : a2ui!;
        const before = conversation.ir;
        const applications = calls.length;

        const outcome = await ingress.handle(request, conversation);
        if (isCurrent) {
          expect(outcome).toMatchObject({ kind: 'applied', status: 200 });
          expect(calls).toHaveLength(applications + 1);
        } else {
          expect(outcome).toMatchObject({ kind: 'rejected', status: 409, error: { code: 'A2UI_C2S_SURFACE_STALE', message: 'UI is out of date. Please regenerate.' } });
          expect(calls).toHaveLength(applications);
          expect(conversation.ir).toBe(before);
        }
      },
    ), { numRuns: 400 });
  });
});
