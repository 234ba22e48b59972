import type { ConversationIr } from '../ui-ir/index.ts';

/** What a planner is told: the user's text and the state the model should see. */
export interface PlannerInput {
  text: string;
  ir: ConversationIr;
}

/** Raw model output plus what the trace records about how it was produced. */
export interface PlannerOutput {
  rawText: string;
  provider: 'offline' | 'ollama' | 'replay';
  model?: string;
  llmMs: number;
  meta?: Record<string, unknown>;
}

export interface Planner {
  readonly name: 'offline' | 'ollama' | 'replay';
  /** Human-readable label shown in the UI (the offline planner says it is offline). */
  readonly label: string;
  plan(input: PlannerInput, signal: AbortSignal): Promise<PlannerOutput>;
}
