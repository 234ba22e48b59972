import type { z } from 'zod';
import type { ActionEvent } from '../planner/action-event.ts';
import type { ConversationIr, Draw, Surface, ToastLevel, TransitionResult } from '../ui-ir/index.ts';

type Refusal = Extract<TransitionResult, { ok: false }>;

/** What an effect is given besides its request (effect.ts runs it). */
export interface EffectContext {
  /**
   * The request's idempotency key, if the client sent one. Pass it downstream (an HTTP API's
   * Idempotency-Key, a unique column): a retry after a crash between the effect and the log
   * append runs the effect again with the same key, and only the key makes that exactly-once.
   */
  readonly idempotencyKey: string | undefined;
  /** Aborted on cancel and on timeout; an effect that ignores it is abandoned (its late result is dropped). */
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  /** The conversation and its owner (the session that created it): scope what the effect touches. */
  readonly conversation: { readonly id: string; readonly owner: string | undefined };
}

/**
 * An asynchronous step with side effects (save to the app's store, call an HTTP API), run after
 * every ingress check and before the pure transition. Its result (validated by `result`) is
 * recorded in the action's log entry and handed to `handle`: a fold or `surfacer replay` reads
 * it from the log and never runs the effect. A failure, timeout or cancel is a canonical error
 * (ACTION_EFFECT_*): nothing is applied or logged.
 */
export interface ActionEffect<P = unknown, R = unknown> {
  /**
   * Pure: what to ask of the outside world for this request, a refusal (e.g. the domain check of
   * the input: nothing runs, nothing changes), or undefined when this request needs no effect
   * (then `handle` gets undefined). Runs live only; a fold passes the recorded result.
   */
  prepare(ir: ConversationIr, surface: Surface, context: Record<string, unknown>): { ok: true; request: P } | Refusal | undefined;
  run(request: P, context: EffectContext): Promise<unknown>;
  /** The result's schema: plain JSON, since the log records it. */
  result: z.ZodType<R>;
  /** Default DEFAULT_EFFECT_TIMEOUT_MS. */
  timeoutMs?: number;
}

/** What `continueWith` sees: the action's state before and after, and what the user sent. */
export interface ActionOutcome<R = unknown> {
  before: ConversationIr;
  after: ConversationIr;
  /** The surface as the user saw it (before the action). */
  surface: Surface;
  context: Record<string, unknown>;
  effect: R | undefined;
}

/**
 * An allowlisted action as the app registers it. Ingress checks envelope, surface, nonce,
 * epoch, rev and limits itself; the action owns only its context schema and its effect.
 */
export interface ActionDefinition<R = unknown> {
  /** Stable name carried by buttons (`form.submit`). */
  name: string;
  description: string;
  /**
   * `item`: a per-item action, offered by a surface's lists on each item (ui-ir ListBlock). Its
   * request carries the list's name and the item's key, which ingress checks against what the
   * surface shows and hands to `handle` as `context.list` and `context.item`. Ingress accepts it
   * only from an item button, and a `surface` action (the default) only from the view's buttons.
   * `table`: a table's sort or page control (collections' TABLE_ACTIONS), offered by every table
   * of a surface. Its request names the table (`table`), which ingress checks against the
   * surface and hands to `handle` as `context.table`; the action checks the rest against it.
   */
  readonly scope?: 'surface' | 'item' | 'table';
  /**
   * Schema of the context beyond the ingress-owned keys (`nonce`, `rev`), for this surface; for
   * an item action also beyond `list` and `item`.
   * It coerces what real clients send: numbers as strings, "on"/"true" booleans, empty strings.
   */
  contextSchema(surface: Surface): z.ZodType<Record<string, unknown>>;
  /** An asynchronous side effect run before `handle` (see ActionEffect). */
  effect?: ActionEffect<any, R>;
  /**
   * Pure: applies a validated action. `toast` is shown to the user after it succeeds. `effect`
   * is the effect's result (undefined without one, or in a log written before the action had one).
   */
  handle(ir: ConversationIr, surface: Surface, context: Record<string, unknown>, draw: Draw, effect?: R):
    | { ok: true; ir: ConversationIr; toast?: { level: ToastLevel; text: string } }
    | Refusal;
  /**
   * Pure: after the action was applied (never for an idempotent replay), the conversation
   * continues with a planner turn whose input is this event; undefined: it does not continue.
   */
  continueWith?(outcome: ActionOutcome<R>): ActionEvent | undefined;
}

export interface ActionRegistry {
  readonly definitions: readonly ActionDefinition[];
  resolve(name: string): ActionDefinition | undefined;
}

export function createActionRegistry(definitions: readonly ActionDefinition<any>[]): ActionRegistry {
  const byName = new Map<string, ActionDefinition>();
  for (const d of definitions) {
    if (byName.has(d.name)) throw new Error(`action "${d.name}" registered twice`);
    byName.set(d.name, d);
  }
  return { definitions, resolve: (name) => byName.get(name) };
}
