import { createActionRegistry, type ActionRegistry } from '../../ingress/actions.ts';
import { createMemoryCardLibrary, type CardLibrary } from '../card-library/index.ts';
import { askCancelAction, askSubmitAction } from './ask.ts';
import { createFormSubmitAction, formCancelAction } from './form.ts';
import { uploadSubmitAction } from './upload.ts';

/** The demo's actions; character cards are saved to `cards` (default: a library in this process). */
export function createDemoActionRegistry(options: { cards?: CardLibrary } = {}): ActionRegistry {
  const cards = options.cards ?? createMemoryCardLibrary();
  return createActionRegistry([createFormSubmitAction(cards), formCancelAction, askSubmitAction, askCancelAction, uploadSubmitAction]);
}

export { askCancelAction, askSubmitAction, formCancelAction, uploadSubmitAction };
export { CardSaved, createFormSubmitAction } from './form.ts';
