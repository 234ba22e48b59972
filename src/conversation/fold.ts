import { idempotencyScope, type ActionRegistry } from '../ingress/index.ts';
import {
  createReplaySource, draw, emptyConversation, resetSurfaceEpoch, type ConversationIr,
} from '../ui-ir/index.ts';
import { replayAction, type ActionRequest, type StoredOutcome } from './ingress-port.ts';
import { irHash, legacyIrHash, type CreatedEntry, type LogEntry } from './log.ts';
import type { Trace } from './trace.ts';
import { applyFailedTurn, applyTurn, type TurnContext } from './turn.ts';

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
}

/**
 * IR = fold(log). Each entry is re-applied through the same pure functions that produced it,
 * fed its recorded draws, and checked against its recorded IR hash.
 */
export function foldLog(entries: readonly LogEntry[], ctx: FoldContext): FoldResult {
  const [first, ...rest] = entries;
  if (first?.type !== 'created') throw new Error('a conversation log starts with a "created" entry');
  let ir = emptyConversation(first.cid);
  const result: FoldResult = {
    meta: first, ir, turnCount: 0, traces: [], outcomes: [], divergences: [], version: entries.length,
  };
  rest.forEach((entry, i) => {
    const diverged = (message: string): void => { result.divergences.push({ entry: i + 2, type: entry.type, message }); };
    try {
      ir = foldEntry(ir, entry, ctx, result);
    } catch (error) {
      diverged((error as Error).message);
      return;
    }
    if (entry.type !== 'created' && irHash(ir) !== entry.irHash && legacyIrHash(ir) !== entry.irHash) diverged('IR hash differs');
  });
  result.ir = ir;
  return result;
}

function foldEntry(ir: ConversationIr, entry: LogEntry, ctx: FoldContext, acc: FoldResult): ConversationIr {
  switch (entry.type) {
    case 'created':
      throw new Error('a second "created" entry');
    case 'turn': {
      acc.turnCount = Math.max(acc.turnCount, entry.turnIndex + 1);
      acc.traces.push(entry.trace);
      const source = createReplaySource(entry.draws);
      if (entry.outcome === 'applied') {
        return applyTurn(ir, { text: entry.text, rawText: entry.planner.rawText ?? '' }, { ...ctx.turn, mode: entry.mode }, source).ir;
      }
      if (entry.outcome === 'planner_failed') {
        return applyFailedTurn(ir, entry.text, entry.planner.error?.message ?? '', source);
      }
      return ir;
    }
    case 'action': {
      const request = entry.request as unknown as ActionRequest;
      const replayed = replayAction(ir, request, entry.draw, ctx.actions);
      if (!replayed.ok) throw new Error(`action was rejected on replay: ${replayed.error.code}`);
      const key = idempotencyScope(acc.meta.cid, request);
      if (key !== undefined) acc.outcomes.push({ key, outcome: replayed.outcome, at: entry.at });
      return replayed.ir;
    }
    case 'reset': {
      const reset = resetSurfaceEpoch(ir, entry.surfaceId, draw(createReplaySource(entry.draws)));
      if (!reset.ok) throw new Error(`reset was rejected on replay: ${reset.error.code}`);
      return reset.ir;
    }
  }
}
