import { createActionRegistry, type ActionRegistry } from '../../ingress/actions.ts';
import { askCancelAction, askSubmitAction } from './ask.ts';
import { formCancelAction, formSubmitAction } from './form.ts';
import { uploadSubmitAction } from './upload.ts';

export const DEMO_ACTIONS = [formSubmitAction, formCancelAction, askSubmitAction, askCancelAction, uploadSubmitAction] as const;

export function createDemoActionRegistry(): ActionRegistry {
  return createActionRegistry(DEMO_ACTIONS);
}

export { askCancelAction, askSubmitAction, formCancelAction, formSubmitAction, uploadSubmitAction };
