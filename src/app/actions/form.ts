import { closeSurface, patchSurfaceData, resetSurfaceEpoch, type ActionDefinition, type DataOp } from '../../index.ts';
import { draftFromCommitted } from '../commit.ts';
import { EMPTY_CONTEXT, formContextSchema } from '../context.ts';
import { viewFields } from '../fields.ts';
import { UPLOAD_KEY } from '../views.ts';
import { commitSubmission } from './common.ts';

/**
 * form.submit: the draft becomes the values as sent; committed becomes their normalised form
 * (tags → arrays, empty → absent, numbers → numbers). Missing required fields refuse the submit
 * with ACTION_INPUT_INVALID and a sentence naming them; nothing changes.
 */
export const formSubmitAction: ActionDefinition = {
  name: 'form.submit',
  description: 'Save the form: validate, store the draft as sent and the normalised values as committed.',
  contextSchema: (surface) => formContextSchema(surface.view),
  handle(ir, surface, context, draw) {
    const submitted = commitSubmission(ir, surface, context, draw);
    return submitted.ok ? { ok: true, ir: submitted.ir, toast: { level: 'success', text: 'Saved' } } : submitted;
  },
};

/**
 * form.cancel. Decision: "discard changes". With something saved, the draft is restored from
 * committed and the panel stays; with nothing saved yet there is nothing to return to, so the
 * panel closes.
 * Restoring also starts a new epoch: what the user typed lives only in the client (A2UI clients
 * keep it in their own data model), so the server's draft may equal the restored one and no
 * diff would reach the client. A new epoch re-initialises every client from the saved state.
 */
export const formCancelAction: ActionDefinition = {
  name: 'form.cancel',
  description: 'Discard unsaved changes (restore the saved values), or close the panel if nothing was saved.',
  contextSchema: () => EMPTY_CONTEXT,
  handle(ir, surface, _context, draw) {
    if (Object.keys(surface.data.committed).length === 0) {
      const closed = closeSurface(ir, surface.id, draw);
      return closed.ok ? { ok: true, ir: closed.ir, toast: { level: 'info', text: 'Closed without saving' } } : closed;
    }
    const draft = draftFromCommitted(viewFields(surface.view), surface.data.committed);
    if (Object.hasOwn(surface.data.draft, UPLOAD_KEY)) {
      const saved = surface.data.committed[UPLOAD_KEY];
      draft[UPLOAD_KEY] = typeof saved === 'string' ? saved : '';
    }
    const ops: DataOp[] = Object.entries(draft).map(([key, value]) => ({ op: 'replace', namespace: 'draft', keys: [key], value }));
    const restored = patchSurfaceData(ir, surface.id, ops, draw);
    if (!restored.ok) return restored;
    const fresh = resetSurfaceEpoch(restored.ir, surface.id, draw);
    return fresh.ok ? { ok: true, ir: fresh.ir, toast: { level: 'info', text: 'Changes discarded' } } : fresh;
  },
};
