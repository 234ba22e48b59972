/**
 * The public API of Surfacer (`import … from 'surfacer'`): everything an app needs to define
 * itself and run, and what its tests and deployments need. README "Build your own app" walks
 * through it. Every name here is the one definition the infrastructure itself uses (types from
 * `z.infer` where a schema exists), re-exported, never redeclared. The demo app (src/app) is
 * written against this file only (test/package/public-api.test.ts enforces it).
 *
 * Groups:
 *   app definition   defineApp, defineDirective, defineAction, AppDefinition, registries
 *   the IR           ConversationIr and its schemas, pure transitions (openSurface, …), Draw
 *   directives       DirectiveDefinition, patch ops, prompt and JSON Schema rendering, limits
 *   actions          ActionDefinition (with side effects and continuations), client value coercion
 *   tools            read-only tools the model may call before it answers (createToolRegistry)
 *   collections      the generic list directives and per-item actions
 *   planners         Planner and its input/output, the action event a continuation gets; model planners
 *   server           createSurfacer (both hosts on one Hono app, listen())
 *   stores           memory / JSONL logs, local and Redis backends
 *   compilers        A2UI v0.8 / v0.9 (a2uiWire) and HTML
 *   ClientSim        UI-less A2UI clients for tests (v0.8 and v0.9)
 *   errors           the error registry and canonical error shape
 */

/** zod, the very instance Surfacer's schemas use: payload and context schemas must be built with it. */
export { z } from 'zod';

// --- app definition -------------------------------------------------------------------------
export type { AppCatalogRef, AppDefinition, AppTexts } from './conversation/app-definition.ts';
export {
  ComponentDefinitionError, createComponentRegistry, defineAction, defineApp, defineComponent, defineDirective, fallbackListOf, isCatalogId,
  itemActionNames,
} from './app-kit/index.ts';
export type { AppSpec, ComponentDefinition, ComponentRegistry } from './app-kit/index.ts';
// One theme per app (AppDefinition.theme): its schema, the WCAG contrast check defineApp runs.
export { AppThemeSchema, contrastRatio, MIN_CONTRAST, safeResolveTheme, textOnPrimary, ThemeError } from './app-kit/index.ts';
export type { AppTheme, ThemeCheck } from './app-kit/index.ts';

// --- the IR: schemas (zod, the single source of truth), types, pure transitions --------------
export * from './ui-ir/index.ts';

// --- directives ----------------------------------------------------------------------------
export {
  createDirectiveRegistry, DEFAULT_LIMITS, directiveJsonSchema, foldDirectiveName, normalisePatchOps, normaliseWritablePath,
  PATCH_OP_ALIASES, PatchOpSchema, payloadJsonSchema, renderDirectiveCatalogue, renderSystemPrompt, runModelOutput, toDataOps,
  validateModelOutput, WRITABLE_POINTER,
} from './directives/index.ts';
export type {
  ApplyContext, DirectiveDefinition, DirectiveLimits, DirectiveRegistry, DirectiveWarningCode, NormaliseContext, PatchOp,
  RunResult, ValidationResult,
} from './directives/index.ts';

// --- actions -------------------------------------------------------------------------------
export {
  clientBoolean, clientChoice, clientChoices, clientNumber, clientText, createActionRegistry, FALSE_TEXT, fieldContextSchema,
  isEmptyMap, NUMBER_TEXT, TRUE_TEXT,
} from './ingress/index.ts';
export { DEFAULT_EFFECT_TIMEOUT_MS } from './ingress/index.ts';
export type {
  ActionDefinition, ActionEffect, ActionOutcome, ActionRegistry, EffectContext, FieldIssue,
} from './ingress/index.ts';

// --- collections ---------------------------------------------------------------------------
export {
  checkedItem, createListDirectives, ITEM_KEY_FIELD, itemLabel, LIST_ACTIONS, listChooseAction, ListItemInput, listRemoveAction,
} from './collections/index.ts';
export type { ListDirectiveOptions } from './collections/index.ts';
// The model places the app's own components (defineComponent) with one directive: ui.show_component.
export { createComponentDirective } from './collections/index.ts';
export type { ComponentDirectiveOptions, PlaceableComponent, ShowComponentPayload } from './collections/index.ts';
// Tables: ui.show_table and the sort and page controls every table offers (register TABLE_ACTIONS).
export { createTableDirective, TABLE_ACTIONS, tablePageAction, tableSortAction } from './collections/index.ts';
export type { ShowTablePayload, TableDirectiveOptions } from './collections/index.ts';

// --- planners ------------------------------------------------------------------------------
export { ActionEventAnswer, ActionEventSchema, actionEventJsonSchema, describeActionEvent } from './planner/index.ts';
export type {
  ActionEvent, Planner, PlannerInput, PlannerName, PlannerOutput, PlannerToolDefinition, PlannerTools, RepairAttempt, RepairIssue,
  TokenUsage, ToolStep,
} from './planner/index.ts';

// --- tools (read-only, for the model's tool loop) -----------------------------------------
export { createToolRegistry, DEFAULT_TOOL_TIMEOUT_MS } from './tools/index.ts';
export type { ToolContext, ToolDefinition, ToolRegistry } from './tools/index.ts';
export { createConfiguredPlanner, plannerConfigFromEnv, PlannerError, PlannerKind } from './llm/index.ts';

// --- server --------------------------------------------------------------------------------
export { createSurfacer, MIN_SESSION_SECRET_LENGTH, SurfacerConfigError } from './server/index.ts';
export type { ListenOptions, Surfacer, SurfacerOptions } from './server/index.ts';
export { ListenError } from './host-html/index.ts';
export type { RunningServer, HostLimits } from './host-html/index.ts';
export type { McpHost } from './host-mcp/index.ts';
export type { A2uiHost, A2uiHostOptions } from './host-a2ui/index.ts';
export type { AguiHost } from './host-agui/index.ts';
export { bearerTokenAuthenticator, ownerOfPrincipal } from './hosting/index.ts';
export type { Authenticate, Principal } from './hosting/index.ts';
export { silentLogger } from './conversation/index.ts';
export type {
  ActionResult, Conversation, ConversationService, DirectivesMode, Logger, ServiceLimits, TurnResult,
} from './conversation/index.ts';

// --- telemetry (docs/operate.md): through @opentelemetry/api only ----------------------------
export { surfacerMetrics } from './telemetry/metrics.ts';
export type { SurfacerMetrics } from './telemetry/metrics.ts';
export { METRICS_PATH } from './telemetry/metrics-route.ts';
export type { MetricsEndpoint } from './telemetry/metrics-route.ts';

// --- stores and backends -------------------------------------------------------------------
export { createJsonlStore, createMemoryStore, StoreUnavailableError } from './conversation/index.ts';
export type { ConversationStore, JsonlStoreOptions, LogEntry } from './conversation/index.ts';
export { createLocalBackend, createRedisBackend } from './backend/index.ts';
export type { Backend, BackendHealth, KeyedRecords, RedisBackendOptions } from './backend/index.ts';

// --- compilers -----------------------------------------------------------------------------
export {
  A2UI_VERSIONS, a2uiWire, compileA2uiUpdate, compileA2uiV09Update, compileConversationToA2ui, compileConversationToA2uiV09,
  DEFAULT_A2UI_VERSION, flattenFollowOns, isA2uiVersion, validateA2uiMessages, validateA2uiV09Messages,
} from './compiler/index.ts';
export type {
  A2uiMessage, A2uiV09Message, A2uiVersion, A2uiWire, AppCatalogV09, CatalogDocumentV09, CompileOptionsBase, CompileResult,
  ComponentCompileOptions, Violation,
} from './compiler/index.ts';
export { appCatalogSpecV08, appCatalogSpecV09, appCatalogV08, appCatalogV09 } from './compiler/index.ts';
export { compileConversationToHtml, compileSurfaceToHtml } from './compiler/html/index.ts';
export type { HtmlCompileOptions, HtmlCompileResult } from './compiler/html/index.ts';

// --- ClientSim -----------------------------------------------------------------------------
export { createClientSim, createClientSimV09 } from './clientsim/index.ts';
export type { ClientSim, ClientSimOptions, ClientSimV09, ClientSimV09Options } from './clientsim/index.ts';
/** Everything else of ClientSim (drivers, snapshots, the state machines), by namespace. */
export * as clientsim from './clientsim/index.ts';

// --- errors --------------------------------------------------------------------------------
export {
  ERROR_REGISTRY, errorSpec, ErrorCategory, ErrorSeverity, httpStatusOf, isErrorCode, makeError, RecoveryPath, SurfacerErrorSchema,
} from './errors/index.ts';
export type { ErrorCode, ErrorSpec, SurfacerError } from './errors/index.ts';
