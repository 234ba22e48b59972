import type { AppDefinition } from '../conversation/app-definition.ts';
import { createDemoActionRegistry } from './actions/index.ts';
import { createDemoDirectiveRegistry } from './directives/index.ts';
import { createOfflinePlanner, type OfflinePlannerOptions } from './offline-planner.ts';

export const DEMO_APP_NAME = 'Surfacer Roleplay Studio';

/** The demo product: an AI roleplay-chat app (character cards, personas, scene settings). */
export function createDemoApp(options: { offlinePlanner?: OfflinePlannerOptions } = {}): AppDefinition {
  return {
    name: DEMO_APP_NAME,
    directives: createDemoDirectiveRegistry(),
    actions: createDemoActionRegistry(),
    offlinePlanner: createOfflinePlanner(options.offlinePlanner),
  };
}

export {
  askCancelAction, askSubmitAction, createDemoActionRegistry, DEMO_ACTIONS, formCancelAction, formSubmitAction,
  uploadSubmitAction,
} from './actions/index.ts';
export {
  askDirective, closeDirective, createDemoDirectiveRegistry, DEMO_DIRECTIVES, patchDirective, requestUploadDirective,
  showFormDirective, toastDirective,
} from './directives/index.ts';
export type {
  AskPayload, ClosePayload, PatchPayload, RequestUploadPayload, ShowFormPayload, ToastPayload,
} from './directives/index.ts';
export { createOfflinePlanner, planFor, planForEvent } from './offline-planner.ts';
export type { OfflinePlannerOptions } from './offline-planner.ts';
export {
  CHARACTER_CARD, DEMO_TEMPLATES, PERSONA, resolveTemplateName, SCENE_SETTINGS, templateByName,
} from './templates.ts';
export type { TemplateDefinition } from './templates.ts';
export { askView, templateDraft, templateView, UPLOAD_KEY, uploadView } from './views.ts';
export { defaultDraftValue, draftKind, draftValueSchema, viewFields } from './fields.ts';
export type { FieldSpec } from './fields.ts';
export { draftFromCommitted, normaliseForCommit } from './commit.ts';
export { formContextSchema, uploadContextSchema } from './context.ts';
