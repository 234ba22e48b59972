export {
  a2uiBatchesToJsonl, compileA2uiUpdate, compileConversationToA2ui, compileSurfaceToA2ui,
} from './compile.ts';
export { CATALOGUE, ICON_NAMES, STANDARD_CATALOG_ID, STANDARD_COMPONENT_TYPES } from './catalogue.ts';
export type { A2uiComponentType } from './catalogue.ts';
export { RESERVED_CONTEXT_KEYS } from './components.ts';
export { COMPONENT_ID_SHAPE, decodeA2uiSurfaceId, encodeA2uiSurfaceId } from './ids.ts';
export { escapeMarkdown, GUARD_MARK, guardA2uiString, unguardA2uiString, unguardA2uiValue } from './text.ts';
export { DEFAULT_A2UI_LIMITS } from './types.ts';
export type {
  A2uiBatchKind, A2uiBatchStats, A2uiCompileOptions, A2uiCompileResult, A2uiComponent, A2uiDataEntry,
  A2uiLimits, A2uiMessage, A2uiStyles, A2uiSurfaceBatch, RecoveryDecision, Violation,
} from './types.ts';
export { collectA2uiComponentTypes, validateA2uiMessages } from './validate.ts';
export type { ValidateA2uiOptions } from './validate.ts';
