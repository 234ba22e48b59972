import { randomBytes, timingSafeEqual } from 'node:crypto';
import { makeError, SurfacerErrorSchema, type SurfacerError } from '../errors/index.ts';
import type { Planner, PlannerOutput } from '../planner/types.ts';
import {
  createRecordingSource, draw, resetSurfaceEpoch as resetEpoch, type ConversationIr, type EntropySource,
} from '../ui-ir/index.ts';
import type { AppDefinition } from './app-definition.ts';
import { foldLog, foldMore, formatDivergence, type FoldContext, type FoldDivergence, type FoldResult } from './fold.ts';
import {
  createKeyedQueue, createMemoryIdempotencyStore, DEFAULT_IDEMPOTENCY_TTL_MS, type ConversationAccess, type IngressRequest,
  type MemoryIdempotencyStore,
} from '../ingress/index.ts';
import type { IngressOutcome, IngressPort, StoredOutcome } from './ingress-port.ts';
import { irHash, LOG_VERSION, type ActionEntry, type CreatedEntry, type LogEntry } from './log.ts';
import { AppendConflictError, StoreUnavailableError, type ConversationStore } from './store.ts';
import { createLocalTurnGate, TURN_CANCELLED, type TurnGate } from './turn-gate.ts';
import { buildTrace } from './trace-builder.ts';
import type { Trace, TraceSurfaceStats } from './trace.ts';
import {
  applyFailedTurn, applyTurn, runDirectivesAdapter, type DirectiveRunResult, type DirectivesMode, type RunDirectives,
} from './turn.ts';
import {
  silentLogger, type ActionResult, type ChangeCause, type Conversation, type ConversationListener,
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
}

export const DEFAULT_SERVICE_LIMITS: ServiceLimits = {
  turnTimeoutMs: 120_000, maxQueuePerConversation: 32, idempotencyKeys: 1024, idempotencyTtlMs: DEFAULT_IDEMPOTENCY_TTL_MS,
  maxCachedConversations: 1000, maxTextLength: 4000, maxConflictRetries: 16,
};

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
  create(ownerSessionId: string): Promise<Conversation>;
  /**
   * The conversation as of now: with a shared store, what other instances appended is folded in
   * first. Throws StoreUnavailableError when the store cannot be reached.
   */
  get(cid: string): Promise<Conversation | undefined>;
  /** The IR as it was at `version` (a client resuming from there), or undefined. */
  irAt(cid: string, version: number): Promise<ConversationIr | undefined>;
  runTurn(cid: string, text: string, signal?: AbortSignal, options?: { origin?: string }): Promise<TurnResult>;
  /** Aborts the running planner turn of `cid`, on whatever instance it runs; false when none runs. */
  cancelTurn(cid: string): Promise<boolean>;
  /** `request` comes from `ingress.parseHtml` / `ingress.parseA2ui`. */
  applyAction(cid: string, request: IngressRequest, options?: { origin?: string }): Promise<ActionResult>;
  /**
   * Rotates a surface's epoch. With `ifEpoch`, only while the surface is still at that epoch (a
   * reset several instances ask for at once happens once); otherwise it answers ok, unchanged.
   */
  resetSurfaceEpoch(cid: string, surfaceId: string, options?: { origin?: string; reason?: string; ifEpoch?: number }): Promise<ResetResult>;
  /** Every change, this instance's and (with a shared store) other instances', one event per log entry. */
  subscribe(cid: string, listener: ConversationListener): () => void;
  traces(cid: string): Promise<Trace[] | undefined>;
  verifyA2uiToken(cid: string, token: string): Promise<boolean>;
  /** Conversations created by `owner` (the per-session cap; kept by the store, so it survives restarts). */
  countOwnedBy(owner: string): Promise<number>;
  /** Entries whose fold did not reproduce the recorded IR (empty when healthy). */
  divergences(cid: string): Promise<FoldDivergence[]>;
}

interface State {
  /** meta, IR, version, turn count, traces and divergences, as folded from the log (and kept current). */
  folded: FoldResult;
  /** First outcomes of accepted actions by idempotency key, rebuilt from the log on load. */
  idempotency: MemoryIdempotencyStore<StoredOutcome>;
}

const TIMEOUT = 'timeout';

export function createConversationService(deps: ConversationServiceDeps): ConversationService {
  const limits = { ...DEFAULT_SERVICE_LIMITS, ...deps.limits };
  const planner = deps.planner ?? deps.app.offlinePlanner;
  const mode = deps.mode ?? 'best-effort';
  const logger = deps.logger ?? silentLogger;
  const clock = deps.clock ?? Date.now;
  const token = deps.randomToken ?? ((bytes: number) => randomBytes(bytes).toString('base64url'));
  const turns = deps.turns ?? createLocalTurnGate();
  const shared = deps.store.writers === 'many';
  const iso = (): string => new Date(clock()).toISOString();
  /** Requests of one conversation, one at a time in arrival order (turns hold it while planning). */
  const queue = createKeyedQueue();
  /** Changes to a folded state (an own append, or catching up with others'): never interleaved. */
  const mutations = createKeyedQueue();
  const states = new Map<string, State>();
  const loading = new Map<string, Promise<State | undefined>>();
  const listeners = new Map<string, Set<ConversationListener>>();
  const watches = new Map<string, () => void>();
  const refreshQueued = new Set<string>();
  const foldContext: FoldContext = {
    turn: { runDirectives: deps.runDirectives ?? runDirectivesAdapter, registry: deps.app.directives, mode },
    actions: deps.app.actions,
  };

  function view(state: State, busy: boolean): Conversation {
    const { meta, ir, version, turnCount } = state.folded;
    return {
      id: meta.cid, ownerSessionId: meta.ownerSessionId, a2uiToken: meta.a2uiToken,
      createdAt: meta.at, ir, version, turnCount, busy,
    };
  }

  function remember(cid: string, state: State): void {
    states.delete(cid);
    states.set(cid, state);
    if (states.size <= limits.maxCachedConversations) return;
    for (const key of states.keys()) {
      if (states.size <= limits.maxCachedConversations) break;
      if (key !== cid && queue.depth(key) === 0 && mutations.depth(key) === 0 && !listeners.has(key)) states.delete(key);
    }
  }

  function rememberOutcome(state: State, key: string, outcome: StoredOutcome, at: string): void {
    const storedAt = Date.parse(at);
    // A time this server did not write (the schema only says string): keep the key a full TTL.
    state.idempotency.set(key, outcome, Number.isNaN(storedAt) ? undefined : storedAt);
  }

  /** The cached state, or the whole log folded (once, however many ask at the same time). */
  async function cachedOrLoaded(cid: string): Promise<State | undefined> {
    const cached = states.get(cid);
    if (cached) { remember(cid, cached); return cached; }
    const pending = loading.get(cid);
    if (pending) return pending;
    const promise = (async () => {
      const entries = await deps.store.read(cid);
      if (!entries || entries.length === 0) return undefined;
      const folded = foldLog(entries, foldContext);
      if (folded.divergences.length > 0) logger.warn('conversation log did not replay exactly', { cid, divergences: folded.divergences.map(formatDivergence) });
      const state: State = {
        folded,
        idempotency: createMemoryIdempotencyStore<StoredOutcome>({ ttlMs: limits.idempotencyTtlMs, maxEntries: limits.idempotencyKeys, clock }),
      };
      // Keys recorded in the log survive restarts, each for the rest of its TTL.
      for (const { key, outcome, at } of folded.outcomes) rememberOutcome(state, key, outcome, at);
      folded.outcomes = [];
      remember(cid, state);
      return state;
    })().finally(() => loading.delete(cid));
    loading.set(cid, promise);
    return promise;
  }

  /** The state, caught up with entries other instances appended (a shared store only). */
  async function load(cid: string): Promise<State | undefined> {
    const cached = shared ? states.get(cid) : undefined;
    if (cached === undefined) return cachedOrLoaded(cid);
    await catchUp(cid, cached);
    return cachedOrLoaded(cid);
  }

  /** Folds in what the log holds beyond the state, one entry (and one event) at a time. */
  function catchUp(cid: string, state: State): Promise<number> {
    return mutations.run(cid, async () => {
      refreshQueued.delete(cid);
      const entries = await deps.store.read(cid, state.folded.version);
      if (!entries || entries.length === 0) return 0;
      for (const step of foldMore(state.folded, entries, foldContext)) {
        if (step.outcome) rememberOutcome(state, step.outcome.key, step.outcome.outcome, step.outcome.at);
        if (step.prev !== step.next) emit({ cid, prev: step.prev, next: step.next, cause: causeOf(step.entry), version: step.version });
      }
      const fresh = state.folded.divergences.filter((d) => d.entry > state.folded.version - entries.length);
      if (fresh.length > 0) logger.warn('appended entries did not replay exactly', { cid, divergences: fresh.map(formatDivergence) });
      return entries.length;
    });
  }

  /** A watched conversation's log grew somewhere: fold it in now (at most one catch-up waiting). */
  function refresh(cid: string): void {
    const state = states.get(cid);
    if (state === undefined || refreshQueued.has(cid)) return;
    refreshQueued.add(cid);
    catchUp(cid, state).catch((error: unknown) => {
      refreshQueued.delete(cid);
      logger.warn('could not catch up with the conversation log', { cid, error: String(error) });
    });
  }

  const notFound = (cid: string): Failure => ({ ok: false, error: makeError('HTTP_NOT_FOUND', `no conversation ${cid}`) });
  const unavailable = (error: unknown): Failure => ({ ok: false, error: makeError('STORE_UNAVAILABLE', String(error)) });

  /**
   * Appends `entry` as the change from version `basis` to `next`, then changes memory and
   * notifies: nothing unrecorded is ever acknowledged. Throws AppendConflictError when the log
   * moved past `basis` (here or on another instance): the caller catches up and decides again.
   */
  function commit(cid: string, state: State, entry: LogEntry, next: ConversationIr, cause: ChangeCause, basis: number): Promise<void> {
    return mutations.run(cid, async () => {
      if (state.folded.version !== basis) throw new AppendConflictError(cid, basis, state.folded.version);
      await deps.store.append(cid, entry, basis);
      const prev = state.folded.ir;
      state.folded.ir = next;
      state.folded.version = basis + 1;
      if (entry.type === 'turn') {
        state.folded.turnCount = Math.max(state.folded.turnCount, entry.turnIndex + 1);
        state.folded.traces.push(entry.trace);
      }
      if (prev !== next) emit({ cid, prev, next, cause, version: state.folded.version });
    });
  }

  /** A failed append as the caller answers it; conflicts are not failures (they are retried). */
  function logFailed(cid: string, error: unknown): Failure {
    logger.error('conversation log append failed', { cid, error: String(error) });
    return { ok: false, error: makeError('CONVERSATION_LOG_FAILED', String(error)) };
  }

  /**
   * Runs `decide` (read the state, check, append) until it is not overtaken by another writer:
   * after a conflict the state is caught up and the decision taken afresh, at most
   * maxConflictRetries times.
   */
  async function decided<T>(cid: string, state: State, decide: () => Promise<T>): Promise<T | Failure> {
    for (let attempt = 0; attempt <= limits.maxConflictRetries; attempt += 1) {
      try {
        return await decide();
      } catch (error) {
        if (error instanceof StoreUnavailableError) return unavailable(error);
        if (!(error instanceof AppendConflictError)) return logFailed(cid, error);
      }
      try {
        await catchUp(cid, state);
      } catch (error) {
        return unavailable(error);
      }
    }
    return { ok: false, error: makeError('CONVERSATION_BUSY', `overtaken ${limits.maxConflictRetries + 1} times by other writers`) };
  }

  function emit(event: Parameters<ConversationListener>[0]): void {
    for (const listener of listeners.get(event.cid) ?? []) {
      try { listener(event); } catch (error) { logger.error('conversation listener failed', { cid: event.cid, error: String(error) }); }
    }
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

  async function plan(ir: ConversationIr, text: string, controller: AbortController): Promise<
    { kind: 'ok'; output: PlannerOutput } | { kind: 'failed'; error: SurfacerError; llmMs: number } | { kind: 'cancelled'; llmMs: number }
  > {
    const started = performance.now();
    try {
      const output = await planner.plan({ text, ir }, controller.signal);
      if (controller.signal.aborted) throw controller.signal.reason;
      return { kind: 'ok', output };
    } catch (error) {
      const llmMs = performance.now() - started;
      if (controller.signal.aborted && controller.signal.reason !== TIMEOUT) return { kind: 'cancelled', llmMs };
      const timedOut = controller.signal.reason === TIMEOUT;
      if (timedOut) return { kind: 'failed', llmMs, error: makeError('PLANNER_TIMEOUT', `no answer within ${limits.turnTimeoutMs} ms`) };
      // Planners that fail with a canonical error (src/llm PlannerError.error) keep its code.
      const own = SurfacerErrorSchema.safeParse((error as { error?: unknown } | null)?.error);
      return { kind: 'failed', llmMs, error: own.success ? own.data : makeError('PLANNER_FAILED', String(error)) };
    }
  }

  /** The planner's answer (or failure) applied to the IR as it is now, and the entry that records it. */
  function turnEntry(state: State, text: string, planned: Awaited<ReturnType<typeof plan>>, times: { startedAt: string; t0: number }, origin: { origin?: string }) {
    const prev = state.folded.ir;
    const recording = createRecordingSource(deps.entropy);
    let next = prev;
    let run: DirectiveRunResult | undefined;
    let directivesMs = 0;
    if (planned.kind === 'ok') {
      const t1 = performance.now();
      const turn = applyTurn(prev, { text, rawText: planned.output.rawText }, foldContext.turn, recording);
      directivesMs = performance.now() - t1;
      next = turn.ir;
      run = turn.run;
    } else if (planned.kind === 'failed') {
      next = applyFailedTurn(prev, text, planned.error.message, recording);
    }
    const t2 = performance.now();
    const surfaces = deps.surfaceStats?.(next) ?? [];
    const compileMs = performance.now() - t2;
    const outcome = planned.kind === 'ok' ? 'applied' : planned.kind === 'failed' ? 'planner_failed' : 'cancelled';
    const error = planned.kind === 'failed' ? planned.error
      : planned.kind === 'cancelled' ? makeError('PLANNER_CANCELLED', 'cancelled by the user') : undefined;
    const turnIndex = state.folded.turnCount;
    const trace = buildTrace({
      requestId: `r${token(9)}`, cid: state.folded.meta.cid, turnIndex, startedAt: times.startedAt, finishedAt: iso(), mode, outcome,
      planner, output: planned.kind === 'ok' ? planned.output : undefined, run, surfaces, error,
      timings: {
        llm_ms: planned.kind === 'ok' ? planned.output.llmMs : planned.llmMs,
        directives_ms: directivesMs, compile_ms: compileMs, total_ms: performance.now() - times.t0,
      },
    });
    const entry: LogEntry = {
      type: 'turn', v: LOG_VERSION, turnIndex, at: times.startedAt, text, outcome, mode,
      planner: {
        name: planner.name, provider: planned.kind === 'ok' ? planned.output.provider : planner.name, label: planner.label,
        ...(planned.kind === 'ok' && planned.output.model !== undefined ? { model: planned.output.model } : {}),
        ...(planned.kind === 'ok' ? { rawText: planned.output.rawText } : {}),
        llmMs: trace.timings.llm_ms,
        ...(error && planned.kind === 'failed' ? { error: { code: error.code, message: error.message } } : {}),
      },
      draws: recording.drawn, irHash: irHash(next), trace, ...origin,
    };
    return { prev, next, entry, outcome, trace, error } as const;
  }

  return {
    planner,
    app: deps.app,
    ingress: deps.ingress,

    async create(ownerSessionId) {
      const cid = `c${token(12)}`;
      const entry: CreatedEntry = { type: 'created', v: LOG_VERSION, cid, ownerSessionId, a2uiToken: token(24), at: iso() };
      await deps.store.append(cid, entry, 0);
      const state = await cachedOrLoaded(cid);
      if (!state) throw new Error(`conversation ${cid} vanished after create`);
      return view(state, false);
    },

    async get(cid) {
      const state = await load(cid);
      return state ? view(state, await turns.running(cid)) : undefined;
    },

    async irAt(cid, version) {
      const state = await cachedOrLoaded(cid);
      if (!state || !Number.isSafeInteger(version) || version < 1) return undefined;
      if (version === state.folded.version) return state.folded.ir;
      const entries = await deps.store.read(cid);
      if (!entries || entries.length < version) return undefined;
      return foldLog(entries.slice(0, version), foldContext).ir;
    },

    runTurn(cid, text, signal, options = {}) {
      return serialised<TurnResult>(cid, async () => {
        const state = await load(cid);
        if (!state) return notFound(cid);
        if (text.length > limits.maxTextLength) {
          return { ok: false, error: makeError('HTTP_PAYLOAD_TOO_LARGE', `message longer than ${limits.maxTextLength}`) };
        }
        const controller = new AbortController();
        const onAbort = (): void => controller.abort(TURN_CANCELLED);
        signal?.addEventListener('abort', onAbort, { once: true });
        if (signal?.aborted) onAbort();
        const timer = setTimeout(() => controller.abort(TIMEOUT), limits.turnTimeoutMs);
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
        try {
          // Another instance's turn may have just changed the conversation: plan on what it is now.
          if (shared) await catchUp(cid, state);
          const planned = await plan(state.folded.ir, text, controller);
          return await decided(cid, state, async () => {
            const basis = state.folded.version;
            const turn = turnEntry(state, text, planned, times, origin(options));
            await commit(cid, state, turn.entry, turn.next, { kind: 'turn', ...origin(options) }, basis);
            return { ok: true as const, outcome: turn.outcome, prev: turn.prev, next: turn.next, trace: turn.trace, ...(turn.error ? { error: turn.error } : {}) };
          });
        } finally {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          await claim.release().catch((error: unknown) => logger.warn('could not release the turn', { cid, error: String(error) }));
        }
      });
    },

    cancelTurn(cid) {
      return turns.cancel(cid);
    },

    applyAction(cid, request, options = {}) {
      return serialised<ActionResult>(cid, async () => {
        const state = await cachedOrLoaded(cid);
        if (!state) return notFound(cid);
        let caughtUp = false;
        return decided<ActionResult>(cid, state, async () => {
          const basis = state.folded.version;
          const prev = state.folded.ir;
          const access: ConversationAccess = {
            id: cid,
            read: () => prev,
            commit: async (ir, record) => {
              const entry: LogEntry = {
                type: 'action', v: LOG_VERSION, at: iso(), request: record.request as LogActionRequest,
                draw: { now: record.draw.now, nonce: record.draw.nonce }, irHash: irHash(ir), ...origin(options),
              };
              await commit(cid, state, entry, ir, { kind: 'action', surfaceId: record.request.surfaceId, ...origin(options) }, basis);
            },
            idempotency: state.idempotency,
          };
          const outcome: IngressOutcome = await deps.ingress.apply(request, access);
          if (outcome.kind === 'rejected') {
            // A shared log may hold changes this instance has not folded yet (the client saw them
            // elsewhere): judge once more on the state as it is now before refusing.
            if (shared && !caughtUp) {
              caughtUp = true;
              if (await catchUp(cid, state) > 0) throw new AppendConflictError(cid, basis, state.folded.version);
            }
            return {
              ok: false, error: outcome.error, status: outcome.status, surfaceId: request.surfaceId,
              ...(outcome.issues ? { issues: outcome.issues } : {}),
            };
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
      });
    },

    resetSurfaceEpoch(cid, surfaceId, options = {}) {
      return serialised<ResetResult>(cid, async () => {
        const state = await load(cid);
        if (!state) return notFound(cid);
        return decided<ResetResult>(cid, state, async () => {
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

    subscribe(cid, listener) {
      const set = listeners.get(cid) ?? new Set();
      set.add(listener);
      listeners.set(cid, set);
      // Another instance's changes reach this one's listeners through the store.
      if (deps.store.watch && !watches.has(cid)) watches.set(cid, deps.store.watch(cid, () => refresh(cid)));
      return () => {
        set.delete(listener);
        if (set.size === 0 && listeners.get(cid) === set) {
          listeners.delete(cid);
          watches.get(cid)?.();
          watches.delete(cid);
        }
      };
    },

    async traces(cid) {
      const state = await load(cid);
      return state ? [...state.folded.traces] : undefined;
    },

    async verifyA2uiToken(cid, candidate) {
      const state = await cachedOrLoaded(cid);
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

function origin(options: { origin?: string }): { origin?: string } {
  return options.origin === undefined ? {} : { origin: options.origin };
}

/** Who caused a logged change, as listeners on any instance see it. */
function causeOf(entry: LogEntry): ChangeCause {
  const from = entry.type !== 'created' && entry.origin !== undefined ? { origin: entry.origin } : {};
  switch (entry.type) {
    case 'action': return { kind: 'action', surfaceId: entry.request.surfaceId, ...from };
    case 'reset': return { kind: 'reset', surfaceId: entry.surfaceId, ...from };
    default: return { kind: 'turn', ...from };
  }
}
