import type { ActionEvent } from '../planner/action-event.ts';
import type { SurfacerError } from '../errors/index.ts';
import type { ConversationIr, ToastLevel } from '../ui-ir/index.ts';
import type { Trace } from './trace.ts';

export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };

/** A conversation as callers see it. `ir` is immutable; every change produces a new one. */
export interface Conversation {
  id: string;
  ownerSessionId: string;
  /** Bearer token for external A2UI clients of this conversation only. */
  a2uiToken: string;
  createdAt: string;
  ir: ConversationIr;
  /** Number of log entries; increases by one with every recorded change. */
  version: number;
  turnCount: number;
  /** A planner turn is running now. */
  busy: boolean;
}

/** Who caused a change. `origin` is an opaque client id (e.g. the page that sent the request). */
export interface ChangeCause {
  kind: 'turn' | 'action' | 'reset';
  origin?: string;
  /**
   * Part of a streamed answer applied before the answer ended (a `turn_part` entry). Even the
   * page that sent the message gets it over its event stream: its own response comes only at
   * the end, with what came after.
   */
  streamed?: boolean;
  surfaceId?: string;
}

export interface ConversationEvent {
  cid: string;
  prev: ConversationIr;
  next: ConversationIr;
  cause: ChangeCause;
  version: number;
  /**
   * The log no longer holds what this process had folded (a failover lost an append that was
   * read before it was acknowledged): `next` is the log as it is, and `version` may be at or
   * below one already announced. Clients shown the lost state must start again from `next`.
   */
  rewritten?: true;
}

export type ConversationListener = (event: ConversationEvent) => void;

export type Failure = {
  ok: false;
  error: SurfacerError;
  /** HTTP status when it differs from the registry's for error.code (e.g. ingress rejections). */
  status?: number;
  surfaceId?: string;
  /** Field-level problems (pointer into the submitted context), from ingress. */
  issues?: ReadonlyArray<{ pointer: string; message: string }>;
};

export type TurnResult =
  | {
      ok: true;
      outcome: Trace['outcome'];
      prev: ConversationIr;
      next: ConversationIr;
      trace: Trace;
      /** Why the planner produced nothing (planner_failed / cancelled). */
      error?: SurfacerError;
    }
  | Failure;

export type ActionResult =
  | {
      ok: true;
      kind: 'applied';
      status: 200;
      /** True when the idempotency key was seen before: nothing was applied this time. */
      replayed: boolean;
      prev: ConversationIr;
      next: ConversationIr;
      surfaceId: string;
      action: string;
      toast?: { level: ToastLevel; text: string };
      /**
       * The planner turn the action continues with (ActionDefinition.continueWith), queued right
       * behind it; undefined when it did not run (its action was already continued). Never rejects.
       * Absent when the action does not continue (and for a replay whose continuation already ran).
       */
      continuation?: Promise<TurnResult | undefined>;
      /**
       * The action asked to be continued and the caller said its own model continues
       * (ActionOptions.continuedBy 'caller'): what to tell it, as the planner would have been told.
       */
      handedOver?: { event: ActionEvent; text: string };
    }
  | {
      /** A client `error` event was accepted; the caller runs `recovery` (epoch_reset → resetSurfaceEpoch). */
      ok: true;
      kind: 'recover';
      status: 202;
      replayed: boolean;
      prev: ConversationIr;
      next: ConversationIr;
      surfaceId: string;
      /** The epoch the client reported the error for. */
      epoch: number;
      recovery: string;
      error: SurfacerError;
    }
  | Failure;

export type ResetResult = { ok: true; prev: ConversationIr; next: ConversationIr; surfaceId: string } | Failure;
