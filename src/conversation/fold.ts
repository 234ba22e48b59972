import { idempotencyScope, type ActionRegistry } from '../ingress/index.ts';
import {
  createReplaySource, draw, emptyConversation, resetSurfaceEpoch, type ConversationIr,
} from '../ui-ir/index.ts';
import { replayAction, type ActionRequest, type StoredOutcome } from './ingress-port.ts';
import { irHash, legacyIrHash, type CreatedEntry, type LogEntry } from './log.ts';
import type { ActionEvent } from '../planner/action-event.ts';
import type { Trace } from './trace.ts';
import { applyFailedTurn, applyTurn, applyTurnPart, type TurnContext } from './turn.ts';

export interface FoldContext {
  turn: TurnContext;
  actions: ActionRegistry;
}

/** One log entry the fold could not reproduce. */
export interface FoldDivergence {
  /** 1-based position of the entry in the log (= its line; entry 1 is "created"). */
  entry: number;
  type: LogEntry['type'];
  message: string;
}

/** The message of a divergence whose entry folded to another IR than the one it logged. */
export const IR_HASH_DIFFERS = 'IR hash differs';

/** Human text of a divergence: `entry N (type): message`. */
export function formatDivergence(d: FoldDivergence): string {
  return `entry ${d.entry} (${d.type}): ${d.message}`;
}

/**
 * An accepted action's first outcome and request fingerprint under its idempotency key (ingress
 * idempotencyScope), and when it was logged.
 */
export interface LoggedOutcome {
  key: string;
  outcome: StoredOutcome;
  at: string;
}

/**
 * An action whose continuation turn the log does not hold (yet: it is queued behind the action,
 * or the process crashed before it was recorded). A retry of the action under its idempotency
 * key runs it then (service.ts); any continuation runs only while its action is pending here.
 */
export interface PendingContinuation {
  /** The action entry's version (its 1-based position in the log). */
  actionVersion: number;
  event: ActionEvent;
  /** The action's idempotency scope (idempotencyScope), if it carried a key. */
  key?: string;
}

export interface FoldResult {
  meta: CreatedEntry;
  ir: ConversationIr;
  turnCount: number;
  traces: Trace[];
  /** Accepted actions that carried an idempotency key, oldest first. */
  outcomes: LoggedOutcome[];
  /** Entries whose re-application did not reproduce the recorded IR hash. Empty when healthy. */
  divergences: FoldDivergence[];
  /** Number of entries folded (the conversation's version). */
  version: number;
  /** Actions whose continuation the log does not hold, by action version (the newest MAX_PENDING_CONTINUATIONS). */
  pending: Map<number, PendingContinuation>;
}

export const MAX_PENDING_CONTINUATIONS = 16;

/** What an entry does to the pending continuations (fold and own appends alike). */
export function notePending(acc: FoldResult, entry: LogEntry, version: number, continuation?: ActionEvent, key?: string): void {
  if (entry.type === 'turn' && entry.continuation !== undefined) acc.pending.delete(entry.continuation.actionVersion);
  if (entry.type !== 'action' || continuation === undefined) return;
  acc.pending.set(version, { actionVersion: version, event: continuation, ...(key === undefined ? {} : { key }) });
  for (const old of acc.pending.keys()) {
    if (acc.pending.size <= MAX_PENDING_CONTINUATIONS) break;
    acc.pending.delete(old);
  }
}

/** What one folded entry did: the IR before and after it, and its logged outcome if it was a keyed action. */
export interface FoldStep {
  entry: LogEntry;
  /** The entry's version (its 1-based position in the log). */
  version: number;
  prev: ConversationIr;
  next: ConversationIr;
  outcome?: LoggedOutcome;
}

/**
 * IR = fold(log). Each entry is re-applied through the same pure functions that produced it,
 * fed its recorded draws, and checked against its recorded IR hash.
 */
export function foldLog(entries: readonly LogEntry[], ctx: FoldContext): FoldResult {
  const [first, ...rest] = entries;
  if (first?.type !== 'created') throw new Error('a conversation log starts with a "created" entry');
  const result: FoldResult = {
    meta: first, ir: emptyConversation(first.cid), turnCount: 0, traces: [], outcomes: [], divergences: [], version: 1, pending: new Map(),
  };
  for (const step of foldMore(result, rest, ctx)) if (step.outcome) result.outcomes.push(step.outcome);
  return result;
}

/**
 * Folds entries that follow `acc.version` onto it (a conversation catching up with a log other
 * instances append to): the same pure steps as foldLog, one entry at a time, so every version
 * in between is seen. Updates `acc` in place (not `acc.outcomes`: steps carry them) and returns the steps.
 */
export function foldMore(acc: FoldResult, entries: readonly LogEntry[], ctx: FoldContext): FoldStep[] {
  const steps: FoldStep[] = [];
  for (const entry of entries) {
    const prev = acc.ir;
    const version = acc.version + 1;
    const diverged = (message: string): void => { acc.divergences.push({ entry: version, type: entry.type, message }); };
    let step: { ir: ConversationIr; outcome?: LoggedOutcome; continuation?: ActionEvent } = { ir: prev };
    try {
      step = foldEntry(prev, entry, ctx, acc);
      if (entry.type !== 'created' && irHash(step.ir, prev) !== entry.irHash && legacyIrHash(step.ir) !== entry.irHash) diverged(IR_HASH_DIFFERS);
    } catch (error) {
      diverged((error as Error).message);
    }
    notePending(acc, entry, version, step.continuation, step.outcome?.key);
    acc.ir = step.ir;
    acc.version = version;
    steps.push({ entry, version, prev, next: step.ir, ...(step.outcome ? { outcome: step.outcome } : {}) });
  }
  return steps;
}

function foldEntry(ir: ConversationIr, entry: LogEntry, ctx: FoldContext, acc: FoldResult):
  { ir: ConversationIr; outcome?: LoggedOutcome; continuation?: ActionEvent } {
  switch (entry.type) {
    case 'created':
      throw new Error('a second "created" entry');
    case 'turn': {
      acc.turnCount = Math.max(acc.turnCount, entry.turnIndex + 1);
      acc.traces.push(entry.trace);
      const source = createReplaySource(entry.draws);
      // A continuation adds no user entry (its action wrote what the user sent), nor a host's call (no one typed).
      const text = entry.continuation === undefined && entry.hostCall === undefined ? entry.text : undefined;
      // After streamed parts: the user's entry is in the first part, and only the rest applies here.
      const after = entry.streamed !== undefined && entry.streamed.parts > 0;
      const own = after ? undefined : text;
      if (entry.outcome === 'applied') {
        const rawText = entry.streamed?.applies ?? entry.planner.rawText ?? '';
        return { ir: applyTurn(ir, { text: own, rawText }, { ...ctx.turn, mode: entry.mode }, source).ir };
      }
      if (entry.outcome === 'planner_failed') {
        return { ir: applyFailedTurn(ir, own, entry.planner.error?.message ?? '', source) };
      }
      return { ir };
    }
    case 'turn_part': {
      const text = entry.first && !entry.continuation ? entry.text : undefined;
      return { ir: applyTurnPart(ir, text, entry.applies, ctx.turn, createReplaySource(entry.draws)).ir };
    }
    case 'action': {
      const request = entry.request as unknown as ActionRequest;
      const replayed = replayAction(ir, request, entry.draw, ctx.actions, entry.effect);
      if (!replayed.ok) throw new Error(`action was rejected on replay: ${replayed.error.code}`);
      const key = idempotencyScope(acc.meta.cid, request);
      return {
        ir: replayed.ir, ...(key === undefined ? {} : { outcome: { key, outcome: replayed.outcome, at: entry.at } }),
        ...(replayed.continuation ? { continuation: replayed.continuation } : {}),
      };
    }
    case 'reset': {
      const reset = resetSurfaceEpoch(ir, entry.surfaceId, draw(createReplaySource(entry.draws)));
      if (!reset.ok) throw new Error(`reset was rejected on replay: ${reset.error.code}`);
      return { ir: reset.ir };
    }
  }
}
