import type { ConversationIr } from '../ui-ir/index.ts';

export type PlannerName = 'offline' | 'ollama' | 'openai' | 'replay';

/** A problem found in an earlier answer, as the repair follow-up quotes it to the model. */
export interface RepairIssue {
  code: string;
  /** JSON Pointer into the (normalised) envelope; absent or "" for the whole answer. */
  pointer?: string;
  detail: string;
}

/** One earlier answer of this turn that did not pass, and why. */
export interface RepairAttempt {
  rawText: string;
  errors: RepairIssue[];
}

/** What a planner is told: the user's text and the state the model should see. */
export interface PlannerInput {
  text: string;
  ir: ConversationIr;
  /**
   * Set when this call is a repair follow-up: the earlier answers of the same turn, oldest first.
   * Chat planners replay each as an assistant message followed by a user message quoting its errors.
   */
  repair?: { attempts: RepairAttempt[] };
}

/** Token counts as the provider reported them. */
export interface TokenUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** Raw model output plus what the trace records about how it was produced. */
export interface PlannerOutput {
  rawText: string;
  provider: PlannerName;
  model?: string;
  llmMs: number;
  usage?: TokenUsage;
  meta?: Record<string, unknown>;
}

export interface Planner {
  readonly name: PlannerName;
  /** Human-readable label shown in the UI (the offline planner says it is offline). */
  readonly label: string;
  plan(input: PlannerInput, signal: AbortSignal): Promise<PlannerOutput>;
}
