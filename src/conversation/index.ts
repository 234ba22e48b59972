export type { AppDefinition, AppTexts } from './app-definition.ts';
export { DEFAULT_APP_TEXTS, resolveAppTexts } from './app-texts.ts';
export type { ResolvedAppTexts } from './app-texts.ts';
export { foldLog, foldMore, formatDivergence } from './fold.ts';
export type { FoldContext, FoldDivergence, FoldResult, FoldStep, LoggedOutcome } from './fold.ts';
export { replayAction } from './ingress-port.ts';
export type { IngressPort } from './ingress-port.ts';
export { createJsonlStore, parseLog } from './jsonl-store.ts';
export type { JsonlStoreOptions } from './jsonl-store.ts';
export { CONVERSATION_ID, irHash, legacyIrHash, LogEntrySchema } from './log.ts';
export type { LogEntry } from './log.ts';
export { createMemoryStore } from './memory-store.ts';
export { summarizeSurface, surfaceSummary } from './summary.ts';
export { createConversationService, DEFAULT_SERVICE_LIMITS } from './service.ts';
export type { ConversationService, ConversationServiceDeps, ServiceLimits } from './service.ts';
export { AppendConflictError, StoreUnavailableError } from './store.ts';
export type { ConversationStore } from './store.ts';
export { createLocalTurnGate, TURN_CANCELLED } from './turn-gate.ts';
export type { TurnClaim, TurnGate } from './turn-gate.ts';
export { PlannerProvider, TRACE_VERSION, TraceAttempt, TraceSchema } from './trace.ts';
export type { Trace, TraceIssue, TraceSurfaceStats } from './trace.ts';
export { MAX_REPAIR_ATTEMPTS, planTurn } from './plan-turn.ts';
export type { AttemptRecord, PlannedTurn, PlanTurnOptions, RepairSummary } from './plan-turn.ts';
export { applyFailedTurn, applyTurn, runDirectivesAdapter } from './turn.ts';
export type { DirectiveRunOptions, DirectiveRunResult, DirectivesMode, RunDirectives, TurnContext } from './turn.ts';
export { silentLogger } from './types.ts';
export type {
  ActionResult, ChangeCause, Conversation, ConversationEvent, ConversationListener, Logger, ResetResult, TurnResult,
} from './types.ts';
