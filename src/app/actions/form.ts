import { closeSurface, patchSurfaceData, resetSurfaceEpoch, z, type ActionDefinition, type DataMap, type DataOp } from '../../index.ts';
import type { CardLibrary } from '../card-library/index.ts';
import { draftFromCommitted } from '../commit.ts';
import { EMPTY_CONTEXT, formContextSchema } from '../context.ts';
import { viewFields } from '../fields.ts';
import { CHARACTER_CARD } from '../templates.ts';
import { UPLOAD_KEY } from '../views.ts';
import { checkSubmission, commitSubmission } from './common.ts';

/** What saving a character card to the library answers; the log records it with the action. */
export const CardSaved = z.object({ id: z.string().max(64), saved_at: z.string().max(40) });
export type CardSaved = z.infer<typeof CardSaved>;

/**
 * form.submit: the draft becomes the values as sent; committed becomes their normalised form
 * (tags → arrays, empty → absent, numbers → numbers). Missing required fields refuse the submit
 * with ACTION_INPUT_INVALID and a sentence naming them; nothing changes.
 *
 * A character card is also saved to the card library first (the effect), under the request's
 * idempotency key: a save that fails or times out refuses the submit and changes nothing; a
 * retry with the same key finds the card saved before and saves nothing twice.
 */
export function createFormSubmitAction(cards: CardLibrary): ActionDefinition<CardSaved> {
  return {
    name: 'form.submit',
    description: 'Save the form: validate, store the draft as sent and the normalised values as committed (character cards also go to the card library).',
    contextSchema: (surface) => formContextSchema(surface.view),
    effect: {
      result: CardSaved,
      timeoutMs: 5_000,
      prepare(_ir, surface, context) {
        if (surface.view.template !== CHARACTER_CARD.name) return undefined;
        // The domain check runs before anything is saved: an invalid card never reaches the library.
        const checked = checkSubmission(surface, context);
        return checked.ok ? { ok: true, request: checked.committed } : checked;
      },
      async run(card: DataMap, { conversation, idempotencyKey, signal }) {
        const saved = await cards.save({ owner: conversation.owner ?? '', key: idempotencyKey, conversation: conversation.id, card }, signal);
        return { id: saved.id, saved_at: saved.saved_at };
      },
    },
    handle(ir, surface, context, draw, saved) {
      const submitted = commitSubmission(ir, surface, context, draw);
      if (!submitted.ok) return submitted;
      // A log written before cards were saved to the library has no result: the plain toast, as then.
      const text = saved === undefined ? 'Saved' : `Saved to your card library as ${saved.id}`;
      return { ok: true, ir: submitted.ir, toast: { level: 'success', text } };
    },
  };
}

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
