// The A2UI v0.9 (v0.9.1) compiler: IR → per-surface batches of createSurface / updateComponents /
// updateDataModel / deleteSurface, and the v0.9 semantic validator. Shared names: ../a2ui-shared.
export { compileA2uiV09Update, compileConversationToA2uiV09, compileSurfaceToA2uiV09 } from './compile.ts';
export { RESERVED_CONTEXT_KEYS_V09, ROOT_ID } from './components.ts';
export { deleteMessage as deleteSurfaceMessageV09 } from './surface.ts';
export type {
  A2uiV09CompileOptions, A2uiV09CompileResult, A2uiV09Component, A2uiV09Message, A2uiV09SurfaceBatch, A2uiV09Version,
  JsonObject, JsonValue, ValidateA2uiV09Options,
} from './types.ts';
export { collectA2uiV09ComponentTypes, validateA2uiV09Messages } from './validate.ts';
