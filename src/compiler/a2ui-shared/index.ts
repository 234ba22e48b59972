// What both A2UI compilers (a2ui-v0_8, a2ui-v0_9) share, and only that: surface ids with the
// epoch, component ids, the field value rules, Markdown escaping, the size guardrails, the
// recovery policy and the pipeline that applies them to per-surface batches.
export {
  asString, coercionWarning, displayValue, sliderBounds, STRING_CONTROLS, toBoolean, toNumber, toSelection, viewKey,
} from './field-values.ts';
export type { Coerced, SliderBounds } from './field-values.ts';
export { byteLength, checkSurfaceGuardrails, resolveLimits, treeDepth } from './guardrails.ts';
export { ComponentIds, contextFieldNames, idPart, INGRESS_CONTEXT_KEYS } from './ids.ts';
export { LIST_ITEM_KEY, listDataKey, listDisplayStyles, listValueKey, layoutSurface, tableCellStyle, tableDataKey } from './layout.ts';
export type { AppTableProps, ComponentSink, ControlAction, CustomComponentProps, LayoutResult, TextStyle } from './layout.ts';
export { escapeMarkdown } from './markdown.ts';
export { A2UI_MAX_MESSAGE_DEPTH, pathBeyondDepth } from './message-depth.ts';
export { flattenFollowOns, foldUnreachable, isDanglingReference } from './follow-ons.ts';
export type { CutOff } from './follow-ons.ts';
export { at, tokensOf } from './path-node.ts';
export type { PathNode } from './path-node.ts';
export { a2uiBatchesToJsonl, createA2uiCompiler, internalError } from './pipeline.ts';
export type { A2uiCompiler, A2uiTarget, PartsBase, UpdatePlan } from './pipeline.ts';
export { isFinding, RECOVERY_RANK, recoveryOf } from './recovery.ts';
export { decodeA2uiSurfaceId, encodeA2uiSurfaceId } from './surface-id.ts';
export { wireTheme } from './surface-theme.ts';
export type { SurfaceTheme } from './surface-theme.ts';
export { DEFAULT_A2UI_LIMITS } from './types.ts';
export type {
  A2uiBatchKind, A2uiBatchStats, A2uiLimits, CompileOptionsBase, CompileResult, RecoveryDecision, SurfaceBatch,
  ValidateOptionsBase, Violation,
} from './types.ts';
