import type { RecoveryPath, SurfacerError } from '../errors/index.ts';
import { draw as drawFrom, findSurface, type ConversationIr, type Draw, type EntropySource, type ToastLevel } from '../ui-ir/index.ts';
import { parseA2uiClientMessage, type A2uiEventOptions, type A2uiParseResult, type ParseResult } from './a2ui-event.ts';
import type { ActionRegistry } from './actions.ts';
import { applyIngress } from './apply.ts';
import { checkClientError, checkIngress } from './check.ts';
import { runEffect, type CancelSignal, type EffectMemo } from './effect.ts';
import { requestFingerprint } from './fingerprint.ts';
import { parseHtmlFormAction, type HtmlFormFields } from './html-form.ts';
import { createMemoryIdempotencyStore, type IdempotencyStore } from './idempotency.ts';
import { resolveLimits, type IngressLimits } from './limits.ts';
import { createKeyedQueue } from './queue.ts';
import type { ActionEvent } from '../planner/action-event.ts';
import type { ActionRequest, ClientErrorRequest, IngressRequest, SurfaceIdDecoder } from './request.ts';
import { reject, type FieldIssue, type Rejection } from './result.ts';

export type IngressOutcome =
  | {
    readonly kind: 'applied'; readonly status: 200; readonly replayed: boolean;
    readonly surfaceId: string; readonly action: string;
    /** The surface's rev after the action, or undefined if the action closed it for good. */
    readonly rev: number | undefined;
    readonly toast?: { level: ToastLevel; text: string };
  }
  | {
    readonly kind: 'recover'; readonly status: 202; readonly replayed: boolean;
    readonly surfaceId: string; readonly epoch: number; readonly recovery: RecoveryPath; readonly error: SurfacerError;
  }
  | {
    readonly kind: 'rejected'; readonly status: number; readonly replayed: false;
    readonly error: SurfacerError; readonly issues?: readonly FieldIssue[];
  };

/** An outcome worth remembering under an idempotency key: anything but a rejection. */
export type FirstOutcome = Exclude<IngressOutcome, { kind: 'rejected' }>;

/**
 * What the idempotency store keeps under a key: the first outcome and the fingerprint of the
 * request that got it (requestFingerprint), so a reuse of the key for another request is told
 * apart from a retry. Plain JSON, for stores that serialise it.
 */
export interface StoredOutcome {
  readonly fingerprint: string;
  readonly outcome: FirstOutcome;
}

export interface CommitRecord {
  readonly request: ActionRequest;
  /** The time and nonce the transition used; log them so a replay reproduces the IR. */
  readonly draw: Draw;
  readonly toast?: { level: ToastLevel; text: string };
  /** The effect's validated result: log it, so a replay hands it to the action instead of running the effect. */
  readonly effect?: { readonly result: unknown };
  /** The planner turn the action continues with (ActionDefinition.continueWith); not logged (the fold recomputes it). */
  readonly continuation?: ActionEvent;
}

/** The caller's handle on one conversation's state. */
export interface ConversationAccess {
  readonly id: string;
  /** Who owns the conversation (an action's effect scopes what it touches by it). */
  readonly owner?: string;
  /** Cancels an action's effect (e.g. the HTTP request went away). */
  readonly signal?: CancelSignal;
  /** Keeps one request's effect step across retries of its decision (see EffectMemo); default: none kept. */
  readonly effects?: EffectMemo;
  read(): ConversationIr | Promise<ConversationIr>;
  /** Persists the new IR durably. If it throws, handle() rejects and nothing is remembered as done. */
  commit(ir: ConversationIr, record: CommitRecord): void | Promise<void>;
  /**
   * First outcomes of this conversation's actions (e.g. rebuilt from its log, so they survive
   * restarts). Default: the ingress's own store, which also always keeps client error reports:
   * they change nothing the log records, and must not push action keys out of a bounded store.
   */
  readonly idempotency?: IdempotencyStore<StoredOutcome>;
}

export interface IngressOptions {
  readonly actions: ActionRegistry;
  readonly decodeSurfaceId: SurfaceIdDecoder;
  /** Time and nonces for applied actions; drawn only once an action passed every check. */
  readonly source: EntropySource;
  readonly limits?: Partial<IngressLimits>;
  /** For conversations whose access brings none. Default: in-memory, 24 h TTL, 10,000 entries, system clock. */
  readonly idempotency?: IdempotencyStore<StoredOutcome>;
}

export interface Ingress {
  readonly limits: IngressLimits;
  /** Any A2UI client message, v0.8 or v0.9 (told apart by the body's `version` key), and its dialect. */
  parseA2ui(body: string | Uint8Array, options?: Pick<A2uiEventOptions, 'contentLength' | 'idempotencyKey'>): A2uiParseResult;
  parseHtml(fields: HtmlFormFields): ParseResult<ActionRequest>;
  /**
   * Idempotency + check + apply + commit, atomically per conversation. Resolves with an
   * outcome for every client mistake; rejects only if read/commit/the store throw.
   */
  handle(request: IngressRequest, conversation: ConversationAccess): Promise<IngressOutcome>;
  /**
   * `handle` without its queue, for a caller that already runs one request at a time per
   * conversation (the conversation service, whose turns share that order).
   */
  apply(request: IngressRequest, conversation: ConversationAccess): Promise<IngressOutcome>;
}

function rejected(r: Rejection): IngressOutcome {
  return r.issues === undefined
    ? { kind: 'rejected', status: r.status, replayed: false, error: r.error }
    : { kind: 'rejected', status: r.status, replayed: false, error: r.error, issues: r.issues };
}

/**
 * Keys are scoped to conversation and surface; a client chooses a key per request, so the same
 * key on another action or message is a reused key (422), never a second request. (An HTML
 * render's buttons share one `_idem`: its parser makes each button's key its own.)
 */
export function idempotencyScope(conversationId: string, request: IngressRequest): string | undefined {
  if (request.idempotencyKey === undefined) return undefined;
  return `${conversationId}\n${request.surfaceId}\n${request.idempotencyKey}`;
}

/** What an accepted action answers, live and when rebuilt from a log. */
export function appliedOutcome(
  request: ActionRequest, ir: ConversationIr, toast: { level: ToastLevel; text: string } | undefined,
): Extract<FirstOutcome, { kind: 'applied' }> {
  return {
    kind: 'applied', status: 200, replayed: false, surfaceId: request.surfaceId, action: request.action,
    rev: findSurface(ir, request.surfaceId)?.rev, ...(toast ? { toast } : {}),
  };
}

/** The entry to store for `request`'s first outcome (live, and when rebuilt from the log). */
export function storedOutcome(request: IngressRequest, outcome: FirstOutcome): StoredOutcome {
  return { fingerprint: requestFingerprint(request), outcome };
}

function keyReused(request: IngressRequest): IngressOutcome {
  return rejected(reject(
    'A2UI_C2S_IDEMPOTENCY_KEY_REUSED',
    `idempotency key ${JSON.stringify(request.idempotencyKey)} already answered a different request to this surface; `
      + 'use a new key for a new request',
  ));
}

export function createIngress(options: IngressOptions): Ingress {
  const limits = resolveLimits(options.limits);
  const sharedStore = options.idempotency ?? createMemoryIdempotencyStore<StoredOutcome>();
  const queue = createKeyedQueue();

  async function runAction(request: ActionRequest, conversation: ConversationAccess): Promise<IngressOutcome> {
    const ir = await conversation.read();
    const checked = checkIngress(request, ir, options.actions);
    if (!checked.ok) return rejected(checked);
    // Runs once per request: a decision taken again (the service's retry) reuses its step.
    const memo = conversation.effects ?? {};
    memo.step ??= await runEffect(checked, ir, {
      conversation: { id: conversation.id, owner: conversation.owner }, idempotencyKey: request.idempotencyKey,
      ...(conversation.signal ? { signal: conversation.signal } : {}),
    });
    const step = memo.step;
    if (!step.ok) return rejected(step);
    const draw = drawFrom(options.source);
    const applied = applyIngress(ir, checked, draw, step.effect);
    if (!applied.ok) return rejected(applied);
    await conversation.commit(applied.ir, {
      request, draw, ...(applied.toast ? { toast: applied.toast } : {}), ...(step.effect ? { effect: step.effect } : {}),
      ...(applied.continuation ? { continuation: applied.continuation } : {}),
    });
    return appliedOutcome(request, applied.ir, applied.toast);
  }

  async function runClientError(request: ClientErrorRequest, conversation: ConversationAccess): Promise<IngressOutcome> {
    const checked = checkClientError(request, await conversation.read());
    if (!checked.ok) return rejected(checked);
    return {
      kind: 'recover', status: 202, replayed: false, surfaceId: request.surfaceId, epoch: request.epoch,
      recovery: checked.recovery, error: checked.error,
    };
  }

  async function apply(request: IngressRequest, conversation: ConversationAccess): Promise<IngressOutcome> {
    const key = idempotencyScope(conversation.id, request);
    const store = request.kind === 'action' ? conversation.idempotency ?? sharedStore : sharedStore;
    if (key !== undefined) {
      const first = await store.get(key);
      if (first !== undefined) {
        // Checked before anything else, so the answer does not depend on how the IR moved since.
        return first.fingerprint === requestFingerprint(request) ? { ...first.outcome, replayed: true } : keyReused(request);
      }
    }
    const outcome = request.kind === 'action'
      ? await runAction(request, conversation)
      : await runClientError(request, conversation);
    // Rejections applied nothing, so they are not remembered: a form re-sent with the
    // same per-render key after fixing a field is judged afresh.
    if (key !== undefined && outcome.kind !== 'rejected') await store.set(key, storedOutcome(request, outcome));
    return outcome;
  }

  return {
    limits,
    parseA2ui: (body, extra = {}) => parseA2uiClientMessage(body, { ...extra, decodeSurfaceId: options.decodeSurfaceId, limits }),
    parseHtml: (fields) => parseHtmlFormAction(fields, { limits }),
    handle: (request, conversation) => queue.run(conversation.id, () => apply(request, conversation)),
    apply,
  };
}
