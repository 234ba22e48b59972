/**
 * What every planner takes and gives (the offline, model and replay planners alike), the action
 * event a continuation turn is given, and the app's tools as a turn's planner sees them.
 */
export { ActionEventAnswer, ActionEventSchema, actionEventJsonSchema, describeActionEvent } from './action-event.ts';
export type { ActionEvent } from './action-event.ts';
export type {
  Planner, PlannerFallback, PlannerInput, PlannerName, PlannerOutput, PlannerStream, PlannerToolDefinition, PlannerTools, RepairAttempt, RepairIssue, TokenUsage, ToolStep,
} from './types.ts';
export { sumUsage } from './usage.ts';
export { plannerBadge, type PlannerBadge } from './badge.ts';
