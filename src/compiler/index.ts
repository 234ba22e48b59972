// Public names of src/compiler: the A2UI v0.8 and v0.9 targets, what both A2UI versions share,
// and the HTML target (src/compiler/html adds its own exports).
export {
  a2uiBatchesToJsonl, decodeA2uiSurfaceId, DEFAULT_A2UI_LIMITS, encodeA2uiSurfaceId, escapeMarkdown, flattenFollowOns,
} from './a2ui-shared/index.ts';
export type {
  A2uiBatchKind, A2uiBatchStats, A2uiLimits, CompileOptionsBase, CompileResult, RecoveryDecision, SurfaceBatch, ValidateOptionsBase,
  Violation,
} from './a2ui-shared/index.ts';
export {
  collectA2uiComponentTypes, compileA2uiUpdate, compileConversationToA2ui, compileSurfaceToA2ui, COMPONENT_ID_SHAPE,
  GUARD_MARK, guardA2uiString, RESERVED_CONTEXT_KEYS, STANDARD_CATALOG_ID, STANDARD_COMPONENT_TYPES,
  unguardA2uiString, unguardA2uiValue, validateA2uiMessages,
} from './a2ui-v0_8/index.ts';
export type {
  A2uiCompileOptions, A2uiCompileResult, A2uiComponent, A2uiComponentType, A2uiDataEntry, A2uiMessage, A2uiStyles,
  A2uiSurfaceBatch, ValidateA2uiOptions,
} from './a2ui-v0_8/index.ts';
export {
  collectA2uiV09ComponentTypes, compileA2uiV09Update, compileConversationToA2uiV09, compileSurfaceToA2uiV09,
  RESERVED_CONTEXT_KEYS_V09, validateA2uiV09Messages,
} from './a2ui-v0_9/index.ts';
export type {
  A2uiV09CompileOptions, A2uiV09CompileResult, A2uiV09Component, A2uiV09Message, A2uiV09SurfaceBatch, A2uiV09Version,
  ValidateA2uiV09Options,
} from './a2ui-v0_9/index.ts';
export { A2UI_VERSIONS, a2uiWire, a2uiWireOfMessageVersion, DEFAULT_A2UI_VERSION, isA2uiVersion } from './a2ui-versions.ts';
export type { A2uiVersion, A2uiWire } from './a2ui-versions.ts';
export {
  appCatalogSpecV08, appCatalogSpecV09, appCatalogV08, appCatalogV09, checkComponentBlock, componentFallback, withFallbacks,
} from './components/index.ts';
export type {
  AppCatalogV08, AppCatalogV09, CatalogDocumentV08, CatalogDocumentV09, CheckedComponent, ComponentCompileOptions,
} from './components/index.ts';
