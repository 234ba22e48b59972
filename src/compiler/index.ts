// Public names of src/compiler. A2UI v0.8 target below; the HTML target adds its own exports.
export {
  a2uiBatchesToJsonl, collectA2uiComponentTypes, compileA2uiUpdate, compileConversationToA2ui,
  compileSurfaceToA2ui, COMPONENT_ID_SHAPE, decodeA2uiSurfaceId, DEFAULT_A2UI_LIMITS, encodeA2uiSurfaceId,
  GUARD_MARK, guardA2uiString, RESERVED_CONTEXT_KEYS, STANDARD_CATALOG_ID, STANDARD_COMPONENT_TYPES,
  unguardA2uiString, unguardA2uiValue, validateA2uiMessages,
} from './a2ui-v0_8/index.ts';
export type {
  A2uiBatchKind, A2uiBatchStats, A2uiCompileOptions, A2uiCompileResult, A2uiComponent, A2uiComponentType,
  A2uiDataEntry, A2uiLimits, A2uiMessage, A2uiStyles, A2uiSurfaceBatch, RecoveryDecision, ValidateA2uiOptions,
  Violation,
} from './a2ui-v0_8/index.ts';
