import { createActionRegistry, listChooseAction, listRemoveAction, type ActionRegistry } from '../../index.ts';
import { askCancelAction, askSubmitAction } from './ask.ts';
import { characterUseAction } from './character-use.ts';
import { formCancelAction, formSubmitAction } from './form.ts';
import { uploadSubmitAction } from './upload.ts';

export const DEMO_ACTIONS = [
  formSubmitAction, formCancelAction, askSubmitAction, askCancelAction, uploadSubmitAction,
  characterUseAction, listChooseAction, listRemoveAction,
] as const;

/** The per-item actions lists may offer (the list directives' allowlist). */
export const DEMO_ITEM_ACTIONS: readonly string[] = DEMO_ACTIONS.filter((a) => a.scope === 'item').map((a) => a.name);

export function createDemoActionRegistry(): ActionRegistry {
  return createActionRegistry(DEMO_ACTIONS);
}

export { askCancelAction, askSubmitAction, characterUseAction, formCancelAction, formSubmitAction, uploadSubmitAction };
