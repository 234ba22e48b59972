import { randomBytes, timingSafeEqual } from 'node:crypto';
import { isErrorCode, makeError } from '../errors/index.ts';
import type { Planner } from '../planner/types.ts';
import {
  createRecordingSource, draw, emptyConversation, resetSurfaceEpoch as resetEpoch, type ConversationIr, type EntropySource,
} from '../ui-ir/index.ts';
import type { AppDefinition } from './app-definition.ts';
import type { FoldContext, FoldDivergence } from './fold.ts';
import { createFoldedConversations, type FoldedState } from './folded-conversations.ts';
import {
  createKeyedQueue, DEFAULT_IDEMPOTENCY_TTL_MS, idempotencyScope, type CancelSignal, type ConversationAccess, type EffectMemo, type IngressRequest,
} from '../ingress/index.ts';
import { describeActionEvent, type ActionEvent } from '../planner/action-event.ts';
import { bindTools } from '../tools/index.ts';
import type { IngressOutcome, IngressPort } from './ingress-port.ts';
import { irHash, LOG_VERSION, type ActionEntry, type CreatedEntry, type LogEntry, type TurnPartEntry } from './log.ts';
import { createTurnStreamSession, type AppendedPart, type StreamPart, type TurnStreamEvent, type TurnStreamListener } from './turn-stream.ts';
import { AppendConflictError, LogRewrittenError, StoreUnavailableError, type ConversationStore } from './store.ts';
import { createLocalTurnGate, TURN_CANCELLED, type TurnGate } from './turn-gate.ts';
import { askPlanner, recordTurn, TURN_TIMEOUT, type TurnRecordContext } from './turn-record.ts';
import type { Trace, TraceIssue, TraceSurfaceStats } from './trace.ts';
import { actionSpanAttributes, endActionSpan, endTurnSpan } from './spans.ts';
import { activeTraceId, inSpan } from '../telemetry/tracing.ts';
import { applyTurnPart, runDirectivesAdapter, type DirectivesMode, type RunDirectives } from './turn.ts';
import {
  silentLogger, type ActionResult, type Conversation, type ConversationListener,
  type Failure, type Logger, type ResetResult, type TurnResult,
} from './types.ts';

export interface ServiceLimits {
  /** A planner turn is aborted after this long. */
  turnTimeoutMs: number;
  /** Turns/actions waiting per conversation before new ones are refused (CONVERSATION_BUSY). */
  maxQueuePerConversation: number;
  /** Idempotency keys remembered per conversation, with their first outcome (oldest forgotten first). */
  idempotencyKeys: number;
  /** How long a key is remembered after its action was accepted (rebuilt from the log on load). */
  idempotencyTtlMs: number;
  /** Idle conversations kept folded in memory. */
  maxCachedConversations: number;
  maxTextLength: number;
  /**
   * Times a decision is taken again after another instance appended first (the log moved on
   * while this one decided). Past it the request is refused with CONVERSATION_BUSY.
   */
  maxConflictRetries: number;
  /** Repair follow-ups after an answer that fails to parse or validate (plan-turn.ts), 0–3. */
  maxRepairAttempts: number;
  /**
   * Log entries between checkpoints of a conversation's folded state, so that a load reads the
   * last checkpoint and the entries after it (checkpoint.ts); 0: no checkpoints.
   */
  checkpointEvery: number;
}

export const DEFAULT_SERVICE_LIMITS: ServiceLimits = {
  turnTimeoutMs: 120_000, maxQueuePerConversation: 32, idempotencyKeys: 1024, idempotencyTtlMs: DEFAULT_IDEMPOTENCY_TTL_MS,
  maxCachedConversations: 1000, maxTextLength: 4000, maxConflictRetries: 16, maxRepairAttempts: 1, checkpointEvery: 32,
};

/**
 * A client's message (an agent host's thread message) that a turn answers, recorded in a store
 * every instance shares. Both calls happen while the conversation's turn gate is held, on
 * whatever instance: so a message runs at most once across instances, and a resend that waited
 * behind its own turn finds it answered.
 */
export interface AnsweredMessage {
  /** Whether the message was answered already (by any instance). */
  answered(): Promise<boolean>;
  /** The turn ran: record the message as answered when `result` answered it (turnAnswered against `before`). */
  settled(before: ConversationIr, result: TurnResult): Promise<void>;
}

/**
 * An answer written by a model Surfacer does not run: an MCP host's model calling a directive
 * tool. It is the planner's answer for one turn with no user message.
 */
export interface HostAnswer {
  /** A directive envelope as JSON text, as a planner's raw answer is. */
  rawText: string;
  /** The tool that was called (recorded with the turn). */
  tool: string;
  /** Who wrote it, as the trace and the planner badge name it (e.g. the MCP client's name). */
  label: string;
}

/** A host's answer that would not apply whole: every issue (code, pointer), as the repair loop quotes them. Nothing was applied or logged. */
export type HostAnswerRefused = Failure & { problems: readonly TraceIssue[] };

export interface TurnOptions {
  origin?: string;
  onStream?: TurnStreamListener;
  message?: AnsweredMessage;
}

export interface ActionOptions {
  origin?: string;
  signal?: CancelSignal;
  onStream?: TurnStreamListener;
  /**
   * Who continues an action that asks for it (ActionDefinition.continueWith): the app's planner
   * (default), or the caller's own model (an MCP host's): then no turn runs here, and the applied
   * result hands the event over (`handedOver`) for the caller to tell its model.
   */
  continuedBy?: 'planner' | 'caller';
}

export interface ConversationServiceDeps {
  app: AppDefinition;
  /** Defaults to `app.offlinePlanner`. */
  planner?: Planner;
  store: ConversationStore;
  /** One running turn per conversation across instances; default: this process only. */
  turns?: TurnGate;
  entropy: EntropySource;
  /** The directives runner; default `runDirectivesAdapter` (src/directives runModelOutput). Tests may inject a fake. */
  runDirectives?: RunDirectives;
  /** src/ingress: `createIngress({...})` (see ingress-port.ts). */
  ingress: IngressPort;
  mode?: DirectivesMode;
  limits?: Partial<ServiceLimits>;
  logger?: Logger;
  /** Wall clock for trace timestamps; durations use performance.now(). */
  clock?: () => number;
  /** Random url-safe tokens for conversation ids, A2UI tokens and request ids. */
  randomToken?: (bytes: number) => string;
  /** Per-surface compiler stats recorded in the trace (the HTML host passes the HTML compiler's). */
  surfaceStats?: (ir: ConversationIr) => TraceSurfaceStats[];
}

export interface ConversationService {
  readonly planner: Planner;
  readonly app: AppDefinition;
  /** The pipeline's parsers: hosts turn client input into requests for applyAction with these. */
  readonly ingress: Pick<IngressPort, 'parseHtml' | 'parseA2ui'>;
  /**
   * A new conversation. `id` chooses its id (an agent thread's): when that conversation already
   * exists the append is refused with AppendConflictError and nothing changes.
   */
  create(ownerSessionId: string, options?: { id?: string }): Promise<Conversation>;
  /**
   * The conversation as of now: with a shared store, what other instances appended is folded in
   * first. Throws StoreUnavailableError when the store cannot be reached.
   */
  get(cid: string): Promise<Conversation | undefined>;
  /**
   * The IR as it was at `version`, for a client resuming from there, if that is one of the last
   * versions (a client further behind gets a full init: cheaper than folding a long log again).
   */
  irAt(cid: string, version: number): Promise<ConversationIr | undefined>;
  /**
   * `onStream` hears this turn's stream events only (docs/streaming.md), whatever else runs.
   * `message`: the client's message this turn answers (AnsweredMessage): a resend of it that
   * reached another instance while it ran answers MESSAGE_ALREADY_ANSWERED, running nothing.
   */
  runTurn(cid: string, text: string, signal?: AbortSignal, options?: TurnOptions): Promise<TurnResult>;
  /**
   * A turn whose answer a host's model wrote (HostAnswer): validated and applied exactly as the
   * planner's would be (aliases, normalisers, budgets, the service's mode), logged as a turn, seen
   * by every client. An answer that would not apply whole (checked on the IR as it is under the
   * turn gate: any error, even one best-effort would skip) is refused with its issues, and nothing
   * is applied or logged.
   */
  applyHostAnswer(cid: string, answer: HostAnswer, options?: { origin?: string }): Promise<TurnResult | HostAnswerRefused>;
  /**
   * The issues a host's answer has on a new, empty conversation (none: it would apply there), so
   * a call that would start a conversation can be refused before one is made. Pure.
   */
  checkHostAnswer(rawText: string): readonly TraceIssue[];
  /** Aborts the running planner turn of `cid` (a continuation too), on whatever instance it runs; false when none runs. */
  cancelTurn(cid: string): Promise<boolean>;
  /**
   * `request` comes from `ingress.parseHtml` / `ingress.parseA2ui`. `signal` cancels the action's
   * effect (e.g. the client went away). An applied action that continues the conversation
   * (ActionDefinition.continueWith) resolves at once with `continuation`, the promise of its
   * turn, which runs next in the conversation's queue; `onStream` hears that turn's stream events.
   */
  applyAction(cid: string, request: IngressRequest, options?: ActionOptions): Promise<ActionResult>;
  /**
   * Rotates a surface's epoch. With `ifEpoch`, only while the surface is still at that epoch (a
   * reset several instances ask for at once happens once); otherwise it answers ok, unchanged.
   */
  resetSurfaceEpoch(cid: string, surfaceId: string, options?: { origin?: string; reason?: string; ifEpoch?: number }): Promise<ResetResult>;
  /** Every change, this instance's and (with a shared store) other instances', one event per log entry. */
  subscribe(cid: string, listener: ConversationListener): () => void;
  /**
   * The turns of `cid` this instance runs, as they stream (docs/streaming.md): text deltas,
   * directives applied (each also a ConversationEvent with `cause.streamed`), the end.
   */
  subscribeStream(cid: string, listener: TurnStreamListener): () => void;
  traces(cid: string): Promise<Trace[] | undefined>;
  verifyA2uiToken(cid: string, token: string): Promise<boolean>;
  /** Conversations created by `owner` (the per-session cap; kept by the store, so it survives restarts). */
  countOwnedBy(owner: string): Promise<number>;
  /** Entries whose fold did not reproduce the recorded IR (empty when healthy). */
  divergences(cid: string): Promise<FoldDivergence[]>;
}

type State = FoldedState;


export function createConversationService(deps: ConversationServiceDeps): ConversationService {
  const limits = { ...DEFAULT_SERVICE_LIMITS, ...deps.limits };
  const planner = deps.planner ?? deps.app.offlinePlanner;
  const mode = deps.mode ?? 'best-effort';
  const logger = deps.logger ?? silentLogger;
  const clock = deps.clock ?? Date.now;
  const token = deps.randomToken ?? ((bytes: number) => randomBytes(bytes).toString('base64url'));
  const turns = deps.turns ?? createLocalTurnGate();
  const iso = (): string => new Date(clock()).toISOString();
  /** Requests of one conversation, one at a time in arrival order (turns hold it while planning). */
  const queue = createKeyedQueue();
  const foldContext: FoldContext = {
    turn: { runDirectives: deps.runDirectives ?? runDirectivesAdapter, registry: deps.app.directives, mode },
    actions: deps.app.actions,
  };
  const folded = createFoldedConversations({
    store: deps.store, fold: foldContext, limits, clock, logger, inUse: (cid) => queue.depth(cid) > 0,
  });
  const { load, catchUp, commit } = folded;

  function view(state: State, busy: boolean): Conversation {
    const { meta, ir, version, turnCount } = state.folded;
    return {
      id: meta.cid, ownerSessionId: meta.ownerSessionId, a2uiToken: meta.a2uiToken,
      createdAt: meta.at, ir, version, turnCount, busy,
    };
  }

  const notFound = (cid: string): Failure => ({ ok: false, error: makeError('HTTP_NOT_FOUND', `no conversation ${cid}`) });
  const unavailable = (error: unknown): Failure => ({ ok: false, error: makeError('STORE_UNAVAILABLE', String(error)) });

  /** A failed append as the caller answers it; conflicts are not failures (they are retried). */
  function logFailed(cid: string, error: unknown): Failure {
    logger.error('conversation log append failed', { cid, error: String(error) });
    return { ok: false, error: makeError('CONVERSATION_LOG_FAILED', String(error)) };
  }

  /**
   * Runs `decide` (read the state, check, append) until it is not overtaken by another writer:
   * after a conflict the state is caught up (or reloaded, if it was dropped as ahead of the log)
   * and the decision taken afresh, at most maxConflictRetries times.
   */
  async function decided<T>(cid: string, first: State, decide: (state: State) => Promise<T>): Promise<T | Failure> {
    let state = first;
    for (let attempt = 0; attempt <= limits.maxConflictRetries; attempt += 1) {
      try {
        return await decide(state);
      } catch (error) {
        if (error instanceof StoreUnavailableError) return unavailable(error);
        if (!(error instanceof AppendConflictError)) return logFailed(cid, error);
      }
      try {
        const current = await load(cid);
        if (current === undefined) return notFound(cid);
        state = current;
      } catch (error) {
        return error instanceof StoreUnavailableError ? unavailable(error) : logFailed(cid, error);
      }
    }
    return { ok: false, error: makeError('CONVERSATION_BUSY', `overtaken ${limits.maxConflictRetries + 1} times by other writers`) };
  }

  function serialised<T>(cid: string, task: () => Promise<T | Failure>): Promise<T | Failure> {
    if (queue.depth(cid) >= limits.maxQueuePerConversation) {
      return Promise.resolve({ ok: false, error: makeError('CONVERSATION_BUSY', `${queue.depth(cid)} requests queued`) });
    }
    return queue.run(cid, async () => {
      try {
        return await task();
      } catch (error) {
        if (error instanceof StoreUnavailableError) return unavailable(error);
        throw error;
      }
    });
  }

  const turnContext: TurnRecordContext = {
    planner, mode, entropy: deps.entropy, turn: foldContext.turn, iso, requestId: () => `r${token(9)}`,
    ...(deps.surfaceStats ? { surfaceStats: deps.surfaceStats } : {}),
  };

  /**
   * One planner turn, inside the conversation's queue: typed text, or the continuation of an
   * action (its log version and event). A continuation runs only while its action is pending
   * (fold.ts): checked under the turn gate after catching up, so across instances and retries it
   * runs at most once; undefined when it did not run.
   */
  function turnIn(
    cid: string, input: TurnInput, signal: AbortSignal | undefined, options: { origin?: string },
  ): Promise<TurnResult | HostAnswerRefused | undefined> {
    // The span of the whole turn: the gate, the planner (its model and tool calls, repairs), the append.
    return inSpan('surfacer.turn', {
      attributes: { 'surfacer.conversation.id': cid, 'gen_ai.conversation.id': cid, 'surfacer.turn.kind': input.continuation ? 'continuation' : input.host ? 'host' : 'text' },
    }, async (span) => {
      const result = await turnUnder(cid, input, signal, options);
      endTurnSpan(span, result);
      return result;
    });
  }

  async function turnUnder(
    cid: string, input: TurnInput, signal: AbortSignal | undefined, options: TurnOptions,
  ): Promise<TurnResult | HostAnswerRefused | undefined> {
    const state = await load(cid);
    if (!state) return notFound(cid);
    const { text, continuation } = input;
    if (continuation === undefined && text.length > limits.maxTextLength) {
      return { ok: false, error: makeError('HTTP_PAYLOAD_TOO_LARGE', `message longer than ${limits.maxTextLength}`) };
    }
    const controller = new AbortController();
    const onAbort = (): void => controller.abort(TURN_CANCELLED);
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) onAbort();
    const timer = setTimeout(() => controller.abort(TURN_TIMEOUT), limits.turnTimeoutMs);
    const claim = await turns.claim(cid, controller, limits.turnTimeoutMs).catch((error: unknown) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      throw error;
    });
    if (claim === undefined) {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      return { ok: false, error: makeError('CONVERSATION_BUSY', 'a turn is running on another instance') };
    }
    const times = { startedAt: iso(), t0: performance.now() };
    // Stored with the turn's own trace, so its page can point at the OpenTelemetry trace.
    const otelTraceId = activeTraceId();
    try {
      // Another instance's turn may have just changed the conversation: plan on what it is now.
      await catchUp(cid, state);
      if (continuation !== undefined && !state.folded.pending.has(continuation.actionVersion)) return undefined;
      // A resend of a message that ran while this one waited for the gate (here or elsewhere).
      if (options.message !== undefined && await options.message.answered()) {
        return { ok: false, error: makeError('MESSAGE_ALREADY_ANSWERED', 'the message was answered while this resend waited') };
      }
      const before = state.folded.ir;
      if (input.host !== undefined) {
        // On what the conversation is now, in the service's mode: an answer that would not apply
        // whole is handed back for the host's model to correct, and leaves no trace in the log.
        const check = foldContext.turn.runDirectives(before, input.host.rawText, { registry: deps.app.directives, mode, source: DRY_RUN_SOURCE });
        if (check.errors.length > 0) return hostAnswerRefused(check.errors);
      }
      const turnPlanner = input.host === undefined ? planner : hostPlanner(input.host);
      const tools = deps.app.tools === undefined ? undefined : bindTools(deps.app.tools, { id: cid, owner: state.folded.meta.ownerSessionId });
      const plannerInput = {
        text, ir: state.folded.ir, ...(continuation ? { event: continuation.event } : {}), ...(tools ? { tools } : {}),
      };
      const turnIndex = state.folded.turnCount;
      const session = createTurnStreamSession({
        registry: deps.app.directives, mode, ...(planner.mapText ? { mapText: (t: string) => planner.mapText!(t) } : {}),
        appendPart: (part) => appendPart(cid, state, part, { text, turnIndex, continuation: continuation !== undefined }, options),
        emit: (event) => emitStream({ ...event, cid, turnIndex } as TurnStreamEvent, options.onStream),
        onError: (error) => logger.error('a streamed part could not be applied', { cid, error }),
        signal: controller.signal,
      });
      const planned = await askPlanner({
        planner: turnPlanner, turn: foldContext.turn, maxRepairs: input.host === undefined ? limits.maxRepairAttempts : 0,
        streamedIndexes: async () => (await session.settle()).applied.map((a) => a.index),
      }, turnPlanner.streams === true ? { ...plannerInput, stream: session.sink } : plannerInput, controller, limits.turnTimeoutMs);
      const streamed = await session.settle();
      const result = await decided(cid, state, async (state) => {
        const basis = state.folded.version;
        const turn = recordTurn(input.host === undefined ? turnContext : { ...turnContext, planner: turnPlanner }, state.folded, {
          text, planned, ...times, origin: options.origin, continuation, streamed, otelTraceId, hostCall: input.host === undefined ? undefined : { tool: input.host.tool },
        });
        await commit(cid, state, turn.entry, turn.next, { kind: 'turn', ...origin(options) }, basis);
        return { ok: true as const, outcome: turn.outcome, prev: turn.prev, next: turn.next, trace: turn.trace, ...(turn.error ? { error: turn.error } : {}) };
      });
      emitStream({ kind: 'end', cid, turnIndex, outcome: result.ok ? result.outcome : 'planner_failed' }, options.onStream);
      // Recorded before the gate is let go: a resend waiting for it finds the message answered.
      // The turn is applied whatever happens to the record (a resend would then run again).
      await options.message?.settled(before, result).catch((error: unknown) => {
        logger.warn('could not record the message as answered; a resend of it would run again', { cid, error });
      });
      return result;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      await claim.release().catch((error: unknown) => logger.warn('could not release the turn', { cid, error }));
    }
  }

  const streamListeners = new Map<string, Set<TurnStreamListener>>();
  /** To every subscriber of the conversation, and to `own`, the listener of the call running the turn. */
  function emitStream(event: TurnStreamEvent, own?: TurnStreamListener): void {
    for (const listener of [...(streamListeners.get(event.cid) ?? []), ...(own ? [own] : [])]) {
      try {
        listener(event);
      } catch (error) {
        logger.warn('a turn stream listener threw', { cid: event.cid, error });
      }
    }
  }

  /**
   * Whole, valid directives of a streamed answer, applied and logged at once (a turn_part
   * entry; taken again on the state as it is now after a conflict). Undefined when the store
   * refused it: the directives are then applied with the turn's own entry.
   */
  async function appendPart(
    cid: string, first: State, part: StreamPart, t: { text: string; turnIndex: number; continuation: boolean }, options: { origin?: string },
  ): Promise<AppendedPart | undefined> {
    const applies = JSON.stringify({
      ...(part.assistantText === undefined ? {} : { assistant_text: part.assistantText }),
      directives: part.directives.map((d) => ({ type: d.type, payload: d.payload })),
    });
    const applied = part.directives.map((d) => ({ index: d.index, type: d.type, offset: part.offsets.get(d.index) ?? 0 }));
    const result = await decided(cid, first, async (state) => {
      const basis = state.folded.version;
      const recording = createRecordingSource(deps.entropy);
      const userText = part.first && !t.continuation ? t.text : undefined;
      const run = applyTurnPart(state.folded.ir, userText, applies, foldContext.turn, recording);
      const next = run.ir;
      const entry: TurnPartEntry = {
        type: 'turn_part', v: LOG_VERSION, turnIndex: t.turnIndex, at: iso(), text: t.text, first: part.first, continuation: t.continuation,
        applies, applied, draws: recording.drawn, irHash: irHash(next), ...origin(options),
      };
      await commit(cid, state, entry, next, { kind: 'turn', streamed: true, ...origin(options) }, basis);
      return { ok: true as const, version: basis + 1, warnings: run.warnings, errors: run.errors };
    });
    if (!result.ok) logger.warn('a streamed part was not logged; it is applied with the turn', { cid, code: result.error.code });
    return result.ok ? { version: result.version, warnings: result.warnings, errors: result.errors } : undefined;
  }

  /**
   * An action decided (with retries after conflicts), and the continuation it asks for: a fresh
   * one once it was applied, or a pending one again when this is a retry (same idempotency key)
   * of an action whose continuation the log does not hold (e.g. the process died before it ran).
   */
  async function decideAction(cid: string, request: IngressRequest, options: { origin?: string; signal?: CancelSignal }):
    Promise<{ result: ActionResult; continues?: { actionVersion: number; event: ActionEvent } }> {
    const state = await folded.cached(cid);
    if (!state) return { result: notFound(cid) };
    let caughtUp = false;
    let continues: { actionVersion: number; event: ActionEvent } | undefined;
    // The effect of this request runs once, whatever the number of decisions (ingress EffectMemo).
    const effects: EffectMemo = {};
    const key = idempotencyScope(cid, request);
    let latest = state;
    const result = await decided<ActionResult>(cid, state, async (state) => {
      latest = state;
      const basis = state.folded.version;
      const prev = state.folded.ir;
      const access: ConversationAccess = {
        id: cid,
        owner: state.folded.meta.ownerSessionId,
        effects,
        ...(options.signal ? { signal: options.signal } : {}),
        // Methods, not arrow properties: tsx names each arrow property again per request (see
        // settledOf in src/ingress/queue.ts); neither uses `this`.
        read() { return prev; },
        async commit(ir, record) {
          const entry: LogEntry = {
            type: 'action', v: LOG_VERSION, at: iso(), request: record.request as LogActionRequest,
            draw: { now: record.draw.now, nonce: record.draw.nonce }, ...(record.effect ? { effect: record.effect } : {}),
            irHash: irHash(ir, prev), ...origin(options),
          };
          const continuesWith = record.continuation === undefined ? undefined : { event: record.continuation, key };
          await commit(cid, state, entry, ir, { kind: 'action', surfaceId: record.request.surfaceId, ...origin(options) }, basis, continuesWith);
          continues = record.continuation === undefined ? undefined : { actionVersion: basis + 1, event: record.continuation };
        },
        idempotency: state.idempotency,
      };
      const outcome: IngressOutcome = await deps.ingress.apply(request, access);
      if (outcome.kind === 'rejected') {
        // A shared log may hold changes this instance has not folded yet (the client saw them
        // elsewhere): judge once more on the state as it is now before refusing. (An effect's
        // failure is kept in `effects`: judging again does not run it again.)
        if (!caughtUp) {
          caughtUp = true;
          // Whoever folds it: a notice's catch-up may be folding it as this one waits its turn.
          await catchUp(cid, state);
          const now = await folded.cached(cid);
          if (now !== state || state.folded.version !== basis) throw new AppendConflictError(cid, basis, now?.folded.version);
        }
        return {
          ok: false, error: outcome.error, status: outcome.status, surfaceId: request.surfaceId,
          ...(outcome.issues ? { issues: outcome.issues } : {}),
        };
      }
      if (outcome.replayed) {
        // A retry answered from the log: acknowledged only once what it replays is, which this
        // process may have read before its writer's acknowledgement.
        try {
          await folded.confirm(cid, state);
        } catch (error) {
          // Lost in a failover (never acknowledged): decided again on the log as it is now.
          if (error instanceof LogRewrittenError) throw new AppendConflictError(cid, basis);
          throw error;
        }
      }
      const next = state.folded.ir;
      if (outcome.kind === 'recover') {
        return {
          ok: true, kind: 'recover', status: 202, replayed: outcome.replayed, prev, next,
          surfaceId: outcome.surfaceId, epoch: outcome.epoch, recovery: outcome.recovery, error: outcome.error,
        };
      }
      return {
        ok: true, kind: 'applied', status: 200, replayed: outcome.replayed, prev, next,
        surfaceId: outcome.surfaceId, action: outcome.action, ...(outcome.toast ? { toast: outcome.toast } : {}),
      };
    });
    if (result.ok && result.kind === 'applied' && result.replayed && key !== undefined) {
      const pending = [...latest.folded.pending.values()].find((p) => p.key === key);
      if (pending !== undefined) continues = { actionVersion: pending.actionVersion, event: pending.event };
    }
    return continues === undefined ? { result } : { result, continues };
  }

  return {
    planner,
    app: deps.app,
    ingress: deps.ingress,

    async create(ownerSessionId, options = {}) {
      const cid = options.id ?? `c${token(12)}`;
      const entry: CreatedEntry = { type: 'created', v: LOG_VERSION, cid, ownerSessionId, a2uiToken: token(24), at: iso() };
      await deps.store.append(cid, entry, 0);
      const state = await folded.cached(cid, { justCreated: true });
      if (!state) throw new Error(`conversation ${cid} vanished after create`);
      return view(state, false);
    },

    async get(cid) {
      // Issued together: with Redis, one round trip for both.
      const [state, busy] = await Promise.all([load(cid), turns.running(cid)]);
      return state ? view(state, busy) : undefined;
    },

    irAt: (cid, version) => folded.irAt(cid, version),

    runTurn(cid, text, signal, options = {}) {
      return serialised<TurnResult>(cid, async () => (await turnIn(cid, { text }, signal, options)) as TurnResult);
    },

    applyHostAnswer(cid, answer, options = {}) {
      return serialised<TurnResult | HostAnswerRefused>(cid, async () => (await turnIn(cid, { text: '', host: answer }, undefined, options))!);
    },

    checkHostAnswer(rawText) {
      return foldContext.turn.runDirectives(emptyConversation('new'), rawText, { registry: deps.app.directives, mode, source: DRY_RUN_SOURCE }).errors;
    },

    cancelTurn(cid) {
      return turns.cancel(cid);
    },

    applyAction(cid, request, options = {}) {
      // Resolves with the action's result as soon as it is decided; a continuation it starts
      // keeps the conversation's queue (nothing of this instance slips in between) and is handed
      // over as a promise of its own.
      return new Promise<ActionResult>((resolve, reject) => {
        serialised<ActionResult>(cid, async () => {
          // The decision's span (retries after conflicts included); a continuation turn is a span of its own beside it.
          const decided = await inSpan('surfacer.action', { attributes: actionSpanAttributes(cid, request) }, async (span) => {
            const decided = await decideAction(cid, request, options);
            endActionSpan(span, decided.result);
            return decided;
          });
          const result = decided.result;
          if (decided.continues === undefined || !result.ok || result.kind !== 'applied') return result;
          if (options.continuedBy === 'caller') {
            return { ...result, handedOver: { event: decided.continues.event, text: describeActionEvent(decided.continues.event) } };
          }
          const continuation = turnIn(cid, { text: describeActionEvent(decided.continues.event), continuation: decided.continues }, undefined, options)
            .catch((error: unknown): TurnResult => {
              if (error instanceof StoreUnavailableError) return unavailable(error);
              logger.error('continuation turn failed', { cid, error });
              return { ok: false, error: makeError('INTERNAL_ERROR', String(error)) };
            });
          resolve({ ...result, continuation });
          await continuation;
          return result;
        }).then(resolve, reject);
      });
    },

    resetSurfaceEpoch(cid, surfaceId, options = {}) {
      return serialised<ResetResult>(cid, async () => {
        const state = await load(cid);
        if (!state) return notFound(cid);
        return decided<ResetResult>(cid, state, async (state) => {
          const basis = state.folded.version;
          const prev = state.folded.ir;
          if (options.ifEpoch !== undefined && prev.surfaces.find((s) => s.id === surfaceId)?.epoch !== options.ifEpoch) {
            return { ok: true, prev, next: prev, surfaceId };
          }
          const recording = createRecordingSource(deps.entropy);
          const reset = resetEpoch(prev, surfaceId, draw(recording));
          if (!reset.ok) return { ok: false, error: reset.error, surfaceId };
          const entry: LogEntry = {
            type: 'reset', v: LOG_VERSION, at: iso(), surfaceId, reason: (options.reason ?? 'regenerate').slice(0, 200),
            draws: recording.drawn, irHash: irHash(reset.ir), ...origin(options),
          };
          await commit(cid, state, entry, reset.ir, { kind: 'reset', surfaceId, ...origin(options) }, basis);
          return { ok: true, prev, next: reset.ir, surfaceId };
        });
      });
    },

    subscribe: (cid, listener) => folded.subscribe(cid, listener),

    subscribeStream(cid, listener) {
      const set = streamListeners.get(cid) ?? new Set();
      set.add(listener);
      streamListeners.set(cid, set);
      return () => {
        set.delete(listener);
        if (set.size === 0 && streamListeners.get(cid) === set) streamListeners.delete(cid);
      };
    },

    async traces(cid) {
      const state = await load(cid);
      return state ? [...state.folded.traces] : undefined;
    },

    async verifyA2uiToken(cid, candidate) {
      const state = await folded.cached(cid);
      if (!state) return false;
      const a = Buffer.from(state.folded.meta.a2uiToken);
      const b = Buffer.from(candidate);
      return a.length === b.length && timingSafeEqual(a, b);
    },

    countOwnedBy(owner) {
      return deps.store.countOwnedBy(owner);
    },

    async divergences(cid) {
      return (await load(cid))?.folded.divergences ?? [];
    },
  };
}

type LogActionRequest = ActionEntry['request'];

/** A planner turn's input: typed text, the continuation of an action, or a host's answer (text empty). */
interface TurnInput {
  text: string;
  continuation?: { actionVersion: number; event: ActionEvent };
  host?: HostAnswer;
}

/**
 * Draws for the check of a host's answer, which is thrown away: the turn that applies it draws
 * from the service's source, as any turn does.
 */
const DRY_RUN_SOURCE: EntropySource = { now: () => '1970-01-01T00:00:00.000Z', nonce: () => 'dry-run-check' };

/** The planner of one host turn: it hands over the answer the host's model wrote. */
function hostPlanner(answer: HostAnswer): Planner {
  return {
    name: 'host', label: answer.label,
    plan: async () => ({ rawText: answer.rawText, provider: 'host', model: answer.label, llmMs: 0 }),
  };
}

/** A host's answer refused for `issues` (the first one is the error, with its code and pointer). */
export function hostAnswerRefused(issues: readonly TraceIssue[]): HostAnswerRefused {
  const first = issues[0]!;
  const error = makeError(isErrorCode(first.code) ? first.code : 'DIRECTIVE_ENVELOPE_INVALID', first.detail ?? first.message, {
    message: first.message, ...(first.pointer === undefined ? {} : { pointer: first.pointer }),
  });
  return { ok: false, error, problems: issues };
}

function origin(options: { origin?: string }): { origin?: string } {
  return options.origin === undefined ? {} : { origin: options.origin };
}
