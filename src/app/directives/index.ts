import { createDirectiveRegistry, createListDirectives, type DirectiveRegistry } from '../../index.ts';
import { DEMO_ITEM_ACTIONS } from '../actions/index.ts';
import { askDirective } from './ask.ts';
import { closeDirective } from './close.ts';
import { patchDirective } from './patch.ts';
import { requestUploadDirective } from './request-upload.ts';
import { showFormDirective } from './show-form.ts';
import { toastDirective } from './toast.ts';

export const DEMO_DIRECTIVES = [
  showFormDirective, askDirective, toastDirective, patchDirective, requestUploadDirective, closeDirective,
  ...createListDirectives({ itemActions: DEMO_ITEM_ACTIONS }),
] as const;

export function createDemoDirectiveRegistry(): DirectiveRegistry {
  return createDirectiveRegistry(DEMO_DIRECTIVES);
}

export { askDirective, closeDirective, patchDirective, requestUploadDirective, showFormDirective, toastDirective };
export type { AskPayload } from './ask.ts';
export type { ClosePayload } from './close.ts';
export type { PatchPayload } from './patch.ts';
export type { RequestUploadPayload } from './request-upload.ts';
export type { ShowFormPayload } from './show-form.ts';
export type { ToastPayload } from './toast.ts';
