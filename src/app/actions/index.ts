import { createActionRegistry, listChooseAction, listRemoveAction, type ActionRegistry } from '../../index.ts';
import { createMemoryCardLibrary, type CardLibrary } from '../card-library/index.ts';
import { askCancelAction, askSubmitAction } from './ask.ts';
import { characterUseAction } from './character-use.ts';
import { createFormSubmitAction, formCancelAction } from './form.ts';
import { uploadSubmitAction } from './upload.ts';

/** The actions that need no app state (form.submit saves to a card library: createFormSubmitAction). */
const STATELESS_ACTIONS = [
  formCancelAction, askSubmitAction, askCancelAction, uploadSubmitAction, characterUseAction, listChooseAction, listRemoveAction,
] as const;

/** The per-item actions lists may offer (the list directives' allowlist). */
export const DEMO_ITEM_ACTIONS: readonly string[] = STATELESS_ACTIONS.filter((a) => a.scope === 'item').map((a) => a.name);

/** The demo's actions; character cards are saved to `cards` (default: a library in this process). */
export function createDemoActionRegistry(options: { cards?: CardLibrary } = {}): ActionRegistry {
  const cards = options.cards ?? createMemoryCardLibrary();
  return createActionRegistry([createFormSubmitAction(cards), ...STATELESS_ACTIONS]);
}

export { askCancelAction, askSubmitAction, characterUseAction, formCancelAction, uploadSubmitAction };
export { CardSaved, createFormSubmitAction } from './form.ts';
