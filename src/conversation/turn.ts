import type { DirectiveRegistry } from '../directives/registry.ts';
import { runModelOutput } from '../directives/index.ts';
import { appendTranscript, type ConversationIr, type EntropySource } from '../ui-ir/index.ts';
import type { TraceIssue } from './trace.ts';

export type DirectivesMode = 'strict' | 'best-effort';

export interface DirectiveRunOptions {
  registry: DirectiveRegistry;
  mode: DirectivesMode;
  /** Every time/nonce the directives use comes from here (recorded live, replayed on fold). */
  source: EntropySource;
}

/** What a turn needs from the directives runner (src/directives), whatever its exact shape. */
export interface DirectiveRunResult {
  ir: ConversationIr;
  applied: number;
  warnings: TraceIssue[];
  errors: TraceIssue[];
  /** The assistant_text the runner appended to the transcript, if any. */
  assistantText?: string;
}

/**
 * Parses, validates and applies raw model text. Contract: it appends the envelope's
 * assistant_text to the transcript itself (after the user's entry, which the turn adds), and it
 * is pure given its arguments: fold(log) re-runs it with the recorded draws.
 */
export type RunDirectives = (ir: ConversationIr, rawText: string, options: DirectiveRunOptions) => DirectiveRunResult;

/**
 * THE adapter to the directives runner: src/directives `runModelOutput` mapped onto what a turn
 * needs. Nothing else in the conversation layer knows the runner's shape.
 */
export const runDirectivesAdapter: RunDirectives = (ir, rawText, { registry, mode, source }) => {
  const result = runModelOutput(registry, ir, rawText, { mode: mode === 'strict' ? 'strict' : 'best_effort', source });
  const run: DirectiveRunResult = {
    ir: result.ir, applied: result.applied.length, warnings: result.warnings.map(toIssue), errors: result.errors.map(toIssue),
  };
  if (result.assistantText !== undefined) run.assistantText = result.assistantText;
  return run;
};

export function toIssue(value: unknown): TraceIssue {
  if (isRecord(value)) {
    const issue: TraceIssue = {
      code: typeof value['code'] === 'string' ? value['code'] : 'UNKNOWN',
      message: typeof value['message'] === 'string' ? value['message'] : String(value['technical_detail'] ?? ''),
    };
    if (typeof value['pointer'] === 'string') issue.pointer = value['pointer'];
    if (typeof value['recovery_path'] === 'string') issue.recovery = value['recovery_path'];
    if (typeof value['technical_detail'] === 'string') issue.detail = value['technical_detail'];
    return issue;
  }
  return { code: 'UNKNOWN', message: String(value) };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export interface TurnContext {
  runDirectives: RunDirectives;
  registry: DirectiveRegistry;
  mode: DirectivesMode;
}

const MAX_TRANSCRIPT_TEXT = 20_000;

/**
 * Pure: one planner turn applied to the IR. The order of draws (user entry, then the runner's
 * own) is part of the log format: replay depends on it. `text` undefined: a turn that continues
 * an action, whose action already wrote what the user sent (no user entry, no draw for it).
 */
export function applyTurn(
  ir: ConversationIr, input: { text: string | undefined; rawText: string }, ctx: TurnContext, source: EntropySource,
): { ir: ConversationIr; run: DirectiveRunResult } {
  const withUser = withUserEntry(ir, input.text, source);
  const run = ctx.runDirectives(withUser, input.rawText, { registry: ctx.registry, mode: ctx.mode, source });
  // Nothing said and nothing shown: tell the user why instead of staying silent.
  const silent = run.assistantText === undefined && run.applied === 0 && run.errors[0] !== undefined;
  const next = silent
    ? appendTranscript(run.ir, { role: 'system', text: clip(`Nothing could be shown: ${run.errors[0]!.message}`) }, { now: source.now() })
    : run.ir;
  return { ir: next, run };
}

/**
 * Pure: whole directives of a streamed answer applied before it ended (a `turn_part` entry):
 * always best-effort (strict mode applies nothing before the whole answer passed), the user's
 * entry only with the first part.
 */
export function applyTurnPart(ir: ConversationIr, text: string | undefined, applies: string, ctx: TurnContext, source: EntropySource): DirectiveRunResult {
  const withUser = withUserEntry(ir, text, source);
  return ctx.runDirectives(withUser, applies, { registry: ctx.registry, mode: 'best-effort', source });
}

/** Pure: the planner failed; the user's message stays in the transcript with a system note. */
export function applyFailedTurn(ir: ConversationIr, text: string | undefined, message: string, source: EntropySource): ConversationIr {
  return appendTranscript(withUserEntry(ir, text, source), { role: 'system', text: clip(message) }, { now: source.now() });
}

function withUserEntry(ir: ConversationIr, text: string | undefined, source: EntropySource): ConversationIr {
  return text === undefined ? ir : appendTranscript(ir, { role: 'user', text: clip(text) }, { now: source.now() });
}

function clip(text: string): string {
  return text.length > MAX_TRANSCRIPT_TEXT ? text.slice(0, MAX_TRANSCRIPT_TEXT) : text;
}
