import { createComponentDirective, createDirectiveRegistry, createListDirectives, type DirectiveRegistry } from '../../index.ts';
import { DEMO_ITEM_ACTIONS } from '../actions/index.ts';
import { DEMO_COMPONENTS } from '../components/index.ts';
import { askDirective } from './ask.ts';
import { closeDirective } from './close.ts';
import { patchDirective } from './patch.ts';
import { requestUploadDirective } from './request-upload.ts';
import { showFormDirective } from './show-form.ts';
import { toastDirective } from './toast.ts';

export const DEMO_DIRECTIVES = [
  showFormDirective, askDirective, toastDirective, patchDirective, requestUploadDirective, closeDirective,
  ...createListDirectives({ itemActions: DEMO_ITEM_ACTIONS, components: DEMO_COMPONENTS }),
  // ui.show_component: the model (and the offline planner) places the demo's own components.
  createComponentDirective({
    components: DEMO_COMPONENTS, itemActions: DEMO_ITEM_ACTIONS, defaultSurface: 'portrait',
    example: {
      surface: 'portrait', title: 'Character portrait', component: 'PortraitCard',
      props: { name: 'Aria Nightingale', tagline: 'A wandering bard with a secret', genre: 'fantasy', tags: ['bard', 'mystery'] },
    },
  })!,
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
