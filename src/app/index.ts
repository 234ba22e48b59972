import { createComponentRegistry, type AppDefinition, type AppTheme } from '../index.ts';
import { createDemoActionRegistry } from './actions/index.ts';
import { DEMO_CATALOG_ID, DEMO_COMPONENTS } from './components/index.ts';
import type { CardLibrary } from './card-library/index.ts';
import { createDemoDirectiveRegistry } from './directives/index.ts';
import { createMemoryCardLibrary } from './card-library/index.ts';
import { createOfflinePlanner, type OfflinePlannerOptions } from './offline-planner.ts';
import { createCardTools } from './tools.ts';

export const DEMO_APP_NAME = 'Surfacer Roleplay Studio';

/** Checked by createSurfacer (this app is built without defineApp). */
export const DEMO_THEME: AppTheme = {
  primaryColor: '#6b3fa0', fontFamily: 'Georgia, "Iowan Old Style", "Palatino Linotype", serif', radius: 14, mode: 'light',
};

export interface DemoAppOptions {
  offlinePlanner?: OfflinePlannerOptions;
  /** Where character cards are saved (form.submit's effect) and looked up (the find_cards tool); default: in this process. */
  cards?: CardLibrary;
}

/** The demo product: an AI roleplay-chat app (character cards, personas, scene settings). */
export function createDemoApp(options: DemoAppOptions = {}): AppDefinition {
  const cards = options.cards ?? createMemoryCardLibrary();
  return {
    name: DEMO_APP_NAME,
    directives: createDemoDirectiveRegistry(),
    actions: createDemoActionRegistry({ cards }),
    offlinePlanner: createOfflinePlanner(options.offlinePlanner),
    tools: createCardTools(cards),
    // Its own component (a character's portrait card) under its own catalogue id.
    components: createComponentRegistry(DEMO_COMPONENTS),
    catalog: { id: DEMO_CATALOG_ID },
    // The demo's own examples (the hosts' defaults are neutral).
    texts: {
      description: 'Character cards, personas and scene settings for your roleplay chats.',
      placeholder: 'e.g. create a character card',
      emptyState: 'No panels yet. Ask for one, for example “create a character card”.',
      hints: ['create a character card named Aria', 'show me sample characters', 'edit my persona'],
    },
    // A storyteller's look: violet, a book face, round corners.
    theme: DEMO_THEME,
  };
}

export {
  askCancelAction, askSubmitAction, CardSaved, characterUseAction, createDemoActionRegistry, createFormSubmitAction, DEMO_ITEM_ACTIONS,
  formCancelAction, uploadSubmitAction,
} from './actions/index.ts';
export { SAMPLE_CHARACTERS, SAMPLES_LIST, SAMPLES_SURFACE } from './samples.ts';
export { DEMO_CATALOG_ID, DEMO_COMPONENTS, PortraitCard } from './components/index.ts';
export { createFileCardLibrary, createMemoryCardLibrary, createRecordCardLibrary, parseSavedCard, SavedCard } from './card-library/index.ts';
export type { CardLibrary, SaveRequest } from './card-library/index.ts';
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
export { createCardTools, FIND_CARDS, FindCardsInput, FoundCard } from './tools.ts';
