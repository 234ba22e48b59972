import type { ConversationIr } from '../ui-ir/index.ts';
import type { ActionEvent } from './action-event.ts';

export type { ActionEvent, ActionEventAnswer } from './action-event.ts';

/** `host`: a model Surfacer does not run (an MCP host's, calling directive tools); never configured, only recorded. */
export type PlannerName = 'offline' | 'ollama' | 'openai' | 'replay' | 'host';

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
  /** Directives of this answer (indexes) already applied while it streamed: the follow-up asks only for the rest. */
  applied?: number[];
}

/** A read-only tool as the model is shown it (parameters: JSON Schema generated from its zod input). */
export interface PlannerToolDefinition {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** One tool call of a turn's tool loop, as executed and fed back to the model. */
export interface ToolStep {
  /** 0-based, in the order the calls were executed. */
  index: number;
  /** Which reply of the model (0-based) asked for it: one reply may make several calls. */
  round: number;
  /** The provider's call id (OpenAI `tool_calls[].id`); Ollama sends none. */
  callId?: string;
  name: string;
  arguments: unknown;
  ok: boolean;
  /** What the model was given as the tool's result (an error object when `ok` is false). */
  result: unknown;
  ms: number;
}

/**
 * The app's read-only tools, bound to one conversation for one turn. `call` never throws: an
 * unknown tool, invalid arguments, a failing or slow handler come back as `ok: false` with an
 * error object, which the planner feeds back to the model as the tool's result.
 */
export interface PlannerTools {
  readonly definitions: readonly PlannerToolDefinition[];
  call(name: string, args: unknown, signal: AbortSignal): Promise<{ ok: boolean; result: unknown }>;
}

/**
 * Where a streamed answer goes as it arrives. Transport-neutral: a planner only hands over raw
 * answer text in order (the concatenation of every delta is the answer's raw text); reading it
 * (src/directives/stream-reader.ts) and applying it is the conversation layer's business.
 */
export interface PlannerStream {
  text(delta: string): void;
}

/** What a planner is told: the user's text and the state the model should see. */
export interface PlannerInput {
  /** The user's text; for a turn that continues an action, a one-line description of it (describeActionEvent). */
  text: string;
  ir: ConversationIr;
  /**
   * Set when the turn continues an action (a clarifier's answers): the structured event. Chat
   * planners send it as the user's message (a line of text and its JSON); the transcript already
   * holds what the action wrote, so the turn adds no user entry.
   */
  event?: ActionEvent;
  /** The app's tools for this turn (absent: none, or a repair call, which never runs tools). */
  tools?: PlannerTools;
  /** A repair call of a turn that ran tools: the steps of its first call, shown again (not run again). */
  toolSteps?: ToolStep[];
  /**
   * Set when this call is a repair follow-up: the earlier answers of the same turn, oldest first.
   * Chat planners replay each as an assistant message followed by a user message quoting its errors.
   */
  repair?: { attempts: RepairAttempt[] };
  /**
   * Someone reads the answer as it arrives: a planner that can stream (capability table,
   * SURFACER_STREAM) sends the final request streamed and hands each piece here. Absent: no
   * one is watching, and the request is not streamed.
   */
  stream?: PlannerStream;
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
  /** The tool calls this answer's tool loop executed, in order (none: no loop ran). */
  toolSteps?: ToolStep[];
}

/** A model planner answered by its offline fallback (Planner.fallback). */
export interface PlannerFallback {
  /** ISO time of the first failed call of this stretch. */
  readonly since: string;
  /** The canonical code of the last failure (e.g. LLM_UNAVAILABLE). */
  readonly code: string;
  /** Who answers meanwhile. */
  readonly answeredBy: string;
}

export interface Planner {
  readonly name: PlannerName;
  /** Human-readable label shown in the UI (the offline planner says it is offline). */
  readonly label: string;
  plan(input: PlannerInput, signal: AbortSignal): Promise<PlannerOutput>;
  /** The planner may hand its answer over as it arrives (PlannerInput.stream); absent: it never does. */
  readonly streams?: boolean;
  /**
   * Set while the model cannot answer and the offline planner answers in its place (a model
   * planner with a fallback): since when, and why. Absent: the planner answers itself.
   */
  readonly fallback?: PlannerFallback;
  /**
   * How a piece of streamed answer, closed into a complete envelope, becomes what the parser
   * reads, as `rawText` was made from the whole answer (OpenAI strict mode maps nulls back).
   * Absent: the text as it is.
   */
  mapText?(text: string): string;
}
