// The A2UI v0.8 compiler. Names both versions share (surface ids, limits, batch types, JSONL)
// are exported from ../a2ui-shared.
export { compileA2uiUpdate, compileConversationToA2ui, compileSurfaceToA2ui } from './compile.ts';
export { CATALOGUE, STANDARD_CATALOG_ID, STANDARD_COMPONENT_TYPES } from './catalogue.ts';
export type { A2uiComponentType } from './catalogue.ts';
export { RESERVED_CONTEXT_KEYS } from './components.ts';
export { COMPONENT_ID_SHAPE } from './ids.ts';
export { deleteMessage as deleteSurfaceMessage } from './surface.ts';
export { GUARD_MARK, guardA2uiString, unguardA2uiString, unguardA2uiValue } from './text.ts';
export type {
  A2uiCompileOptions, A2uiCompileResult, A2uiComponent, A2uiDataEntry, A2uiMessage, A2uiStyles, A2uiSurfaceBatch,
} from './types.ts';
export { collectA2uiComponentTypes, validateA2uiMessages } from './validate.ts';
export type { ValidateA2uiOptions } from './validate.ts';
