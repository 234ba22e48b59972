import { randomBytes, timingSafeEqual } from 'node:crypto';
import { makeError, SurfacerErrorSchema, type SurfacerError } from '../errors/index.ts';
import type { Planner, PlannerOutput } from '../planner/types.ts';
import {
  createRecordingSource, draw, resetSurfaceEpoch as resetEpoch, type ConversationIr, type EntropySource,
} from '../ui-ir/index.ts';
import type { AppDefinition } from './app-definition.ts';
import { foldLog, formatDivergence, type FoldContext, type FoldDivergence } from './fold.ts';
import {
  createKeyedQueue, createMemoryIdempotencyStore, DEFAULT_IDEMPOTENCY_TTL_MS, type ConversationAccess, type IngressRequest,
  type MemoryIdempotencyStore,
} from '../ingress/index.ts';
import type { IngressOutcome, IngressPort, StoredOutcome } from './ingress-port.ts';
import { irHash, LOG_VERSION, type ActionEntry, type CreatedEntry, type LogEntry } from './log.ts';
import { planTurn } from './plan-turn.ts';
import type { ConversationStore } from './store.ts';
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
  /** Repair follow-ups after an answer that fails to parse or validate (plan-turn.ts), 0–3. */
  maxRepairAttempts: number;
}

export const DEFAULT_SERVICE_LIMITS: ServiceLimits = {
  turnTimeoutMs: 120_000, maxQueuePerConversation: 32, idempotencyKeys: 1024, idempotencyTtlMs: DEFAULT_IDEMPOTENCY_TTL_MS,
  maxCachedConversations: 1000, maxTextLength: 4000, maxRepairAttempts: 1,
};

export interface ConversationServiceDeps {
  app: AppDefinition;
  /** Defaults to `app.offlinePlanner`. */
  planner?: Planner;
  store: ConversationStore;
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
  get(cid: string): Promise<Conversation | undefined>;
  runTurn(cid: string, text: string, signal?: AbortSignal, options?: { origin?: string }): Promise<TurnResult>;
  /** Aborts the running planner turn of `cid`; false when none runs. */
  cancelTurn(cid: string): boolean;
  /** `request` comes from `ingress.parseHtml` / `ingress.parseA2ui`. */
  applyAction(cid: string, request: IngressRequest, options?: { origin?: string }): Promise<ActionResult>;
  resetSurfaceEpoch(cid: string, surfaceId: string, options?: { origin?: string; reason?: string }): Promise<ResetResult>;
  subscribe(cid: string, listener: ConversationListener): () => void;
  traces(cid: string): Promise<Trace[] | undefined>;
  verifyA2uiToken(cid: string, token: string): Promise<boolean>;
  /** Entries whose fold did not reproduce the recorded IR (empty when healthy). */
  divergences(cid: string): Promise<FoldDivergence[]>;
}

interface State {
  meta: CreatedEntry;
  ir: ConversationIr;
  version: number;
  turnCount: number;
  traces: Trace[];
  /** First outcomes of accepted actions by idempotency key, rebuilt from the log on load. */
  idempotency: MemoryIdempotencyStore<StoredOutcome>;
  divergences: FoldDivergence[];
  running?: AbortController;
}

const CANCELLED = 'cancelled';
const TIMEOUT = 'timeout';

export function createConversationService(deps: ConversationServiceDeps): ConversationService {
  const limits = { ...DEFAULT_SERVICE_LIMITS, ...deps.limits };
  const planner = deps.planner ?? deps.app.offlinePlanner;
  const mode = deps.mode ?? 'best-effort';
  const logger = deps.logger ?? silentLogger;
  const clock = deps.clock ?? Date.now;
  const token = deps.randomToken ?? ((bytes: number) => randomBytes(bytes).toString('base64url'));
  const iso = (): string => new Date(clock()).toISOString();
  const queue = createKeyedQueue();
  const states = new Map<string, State>();
  const loading = new Map<string, Promise<State | undefined>>();
  const listeners = new Map<string, Set<ConversationListener>>();
  const foldContext: FoldContext = {
    turn: { runDirectives: deps.runDirectives ?? runDirectivesAdapter, registry: deps.app.directives, mode },
    actions: deps.app.actions,
  };

  function view(state: State): Conversation {
    return {
      id: state.meta.cid, ownerSessionId: state.meta.ownerSessionId, a2uiToken: state.meta.a2uiToken,
      createdAt: state.meta.at, ir: state.ir, version: state.version, turnCount: state.turnCount,
      busy: state.running !== undefined,
    };
  }

  function remember(cid: string, state: State): void {
    states.delete(cid);
    states.set(cid, state);
    if (states.size <= limits.maxCachedConversations) return;
    for (const [key, candidate] of states) {
      if (states.size <= limits.maxCachedConversations) break;
      if (key !== cid && queue.depth(key) === 0 && !listeners.has(key) && !candidate.running) states.delete(key);
    }
  }

  async function load(cid: string): Promise<State | undefined> {
    const cached = states.get(cid);
    if (cached) { remember(cid, cached); return cached; }
    const pending = loading.get(cid);
    if (pending) return pending;
    const promise = (async () => {
      const entries = await deps.store.read(cid);
      if (!entries || entries.length === 0) return undefined;
      const folded = foldLog(entries, foldContext);
      if (folded.divergences.length > 0) logger.warn('conversation log did not replay exactly', { cid, divergences: folded.divergences.map(formatDivergence) });
      const idempotency = createMemoryIdempotencyStore<StoredOutcome>({
        ttlMs: limits.idempotencyTtlMs, maxEntries: limits.idempotencyKeys, clock,
      });
      // Keys recorded in the log survive restarts, each for the rest of its TTL.
      for (const { key, outcome, at } of folded.outcomes) {
        const storedAt = Date.parse(at);
        // A time this server did not write (the schema only says string): keep the key a full TTL.
        idempotency.set(key, outcome, Number.isNaN(storedAt) ? undefined : storedAt);
      }
      const state: State = {
        meta: folded.meta, ir: folded.ir, version: folded.version, turnCount: folded.turnCount, traces: folded.traces,
        idempotency, divergences: folded.divergences,
      };
      remember(cid, state);
      return state;
    })().finally(() => loading.delete(cid));
    loading.set(cid, promise);
    return promise;
  }

  const notFound = (cid: string): Failure => ({ ok: false, error: makeError('HTTP_NOT_FOUND', `no conversation ${cid}`) });

  /** Appends first, then changes memory and notifies: nothing unrecorded is ever acknowledged. */
  async function commit(cid: string, state: State, entry: LogEntry, next: ConversationIr, cause: ChangeCause): Promise<Failure | undefined> {
    try {
      await deps.store.append(cid, entry);
    } catch (error) {
      logger.error('conversation log append failed', { cid, error: String(error) });
      return { ok: false, error: makeError('CONVERSATION_LOG_FAILED', String(error)) };
    }
    const prev = state.ir;
    state.ir = next;
    state.version += 1;
    if (prev !== next) emit({ cid, prev, next, cause, version: state.version });
    return undefined;
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
    return queue.run(cid, task);
  }

  async function plan(state: State, text: string, controller: AbortController): Promise<
    { kind: 'ok'; output: PlannerOutput } | { kind: 'failed'; error: SurfacerError; llmMs: number } | { kind: 'cancelled'; llmMs: number }
  > {
    const started = performance.now();
    try {
      const output = await planTurn({ text, ir: state.ir }, { planner, turn: foldContext.turn, maxRepairs: limits.maxRepairAttempts }, controller.signal);
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

  return {
    planner,
    app: deps.app,
    ingress: deps.ingress,

    async create(ownerSessionId) {
      const cid = `c${token(12)}`;
      const entry: CreatedEntry = { type: 'created', v: LOG_VERSION, cid, ownerSessionId, a2uiToken: token(24), at: iso() };
      await deps.store.append(cid, entry);
      const state = await load(cid);
      if (!state) throw new Error(`conversation ${cid} vanished after create`);
      return view(state);
    },

    async get(cid) {
      const state = await load(cid);
      return state ? view(state) : undefined;
    },

    runTurn(cid, text, signal, options = {}) {
      return serialised<TurnResult>(cid, async () => {
        const state = await load(cid);
        if (!state) return notFound(cid);
        if (text.length > limits.maxTextLength) {
          return { ok: false, error: makeError('HTTP_PAYLOAD_TOO_LARGE', `message longer than ${limits.maxTextLength}`) };
        }
        const controller = new AbortController();
        const onAbort = (): void => controller.abort(CANCELLED);
        signal?.addEventListener('abort', onAbort, { once: true });
        if (signal?.aborted) onAbort();
        const timer = setTimeout(() => controller.abort(TIMEOUT), limits.turnTimeoutMs);
        state.running = controller;
        const startedAt = iso();
        const t0 = performance.now();
        try {
          const planned = await plan(state, text, controller);
          const prev = state.ir;
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
          const trace = buildTrace({
            requestId: `r${token(9)}`, cid, turnIndex: state.turnCount, startedAt, finishedAt: iso(), mode, outcome,
            planner, output: planned.kind === 'ok' ? planned.output : undefined, run, surfaces, error,
            timings: {
              llm_ms: planned.kind === 'ok' ? planned.output.llmMs : planned.llmMs,
              directives_ms: directivesMs, compile_ms: compileMs, total_ms: performance.now() - t0,
            },
          });
          const entry: LogEntry = {
            type: 'turn', v: LOG_VERSION, turnIndex: state.turnCount, at: startedAt, text, outcome, mode,
            planner: {
              name: planner.name, provider: planned.kind === 'ok' ? planned.output.provider : planner.name, label: planner.label,
              ...(planned.kind === 'ok' && planned.output.model !== undefined ? { model: planned.output.model } : {}),
              ...(planned.kind === 'ok' ? { rawText: planned.output.rawText } : {}),
              llmMs: trace.timings.llm_ms,
              ...(error && planned.kind === 'failed' ? { error: { code: error.code, message: error.message } } : {}),
            },
            draws: recording.drawn, irHash: irHash(next), trace,
          };
          const failed = await commit(cid, state, entry, next, { kind: 'turn', ...origin(options) });
          if (failed) return failed;
          state.turnCount += 1;
          state.traces.push(trace);
          return { ok: true, outcome, prev, next, trace, ...(error ? { error } : {}) };
        } finally {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          state.running = undefined;
        }
      });
    },

    cancelTurn(cid) {
      const running = states.get(cid)?.running;
      if (!running) return false;
      running.abort(CANCELLED);
      return true;
    },

    applyAction(cid, request, options = {}) {
      return serialised<ActionResult>(cid, async () => {
        const state = await load(cid);
        if (!state) return notFound(cid);
        const prev = state.ir;
        let logFailure: Failure | undefined;
        const access: ConversationAccess = {
          id: cid,
          read: () => state.ir,
          commit: async (ir, record) => {
            const entry: LogEntry = {
              type: 'action', v: LOG_VERSION, at: iso(), request: record.request as LogActionRequest,
              draw: { now: record.draw.now, nonce: record.draw.nonce }, irHash: irHash(ir),
            };
            logFailure = await commit(cid, state, entry, ir, { kind: 'action', surfaceId: record.request.surfaceId, ...origin(options) });
            if (logFailure) throw new Error(logFailure.error.technical_detail);
          },
          idempotency: state.idempotency,
        };
        let outcome: IngressOutcome;
        try {
          outcome = await deps.ingress.apply(request, access);
        } catch (error) {
          if (logFailure) return logFailure;
          logger.error('ingress failed', { cid, error: String(error) });
          return { ok: false, error: makeError('INTERNAL_ERROR', String(error)), status: 500 };
        }
        if (outcome.kind === 'rejected') {
          return {
            ok: false, error: outcome.error, status: outcome.status, surfaceId: request.surfaceId,
            ...(outcome.issues ? { issues: outcome.issues } : {}),
          };
        }
        if (outcome.kind === 'recover') {
          return {
            ok: true, kind: 'recover', status: 202, replayed: outcome.replayed, prev, next: state.ir,
            surfaceId: outcome.surfaceId, recovery: outcome.recovery, error: outcome.error,
          };
        }
        return {
          ok: true, kind: 'applied', status: 200, replayed: outcome.replayed, prev, next: state.ir,
          surfaceId: outcome.surfaceId, action: outcome.action, ...(outcome.toast ? { toast: outcome.toast } : {}),
        };
      });
    },

    resetSurfaceEpoch(cid, surfaceId, options = {}) {
      return serialised<ResetResult>(cid, async () => {
        const state = await load(cid);
        if (!state) return notFound(cid);
        const recording = createRecordingSource(deps.entropy);
        const reset = resetEpoch(state.ir, surfaceId, draw(recording));
        if (!reset.ok) return { ok: false, error: reset.error, surfaceId };
        const prev = state.ir;
        const entry: LogEntry = {
          type: 'reset', v: LOG_VERSION, at: iso(), surfaceId, reason: (options.reason ?? 'regenerate').slice(0, 200),
          draws: recording.drawn, irHash: irHash(reset.ir),
        };
        const failed = await commit(cid, state, entry, reset.ir, { kind: 'reset', surfaceId, ...origin(options) });
        if (failed) return failed;
        return { ok: true, prev, next: reset.ir, surfaceId };
      });
    },

    subscribe(cid, listener) {
      const set = listeners.get(cid) ?? new Set();
      set.add(listener);
      listeners.set(cid, set);
      return () => {
        set.delete(listener);
        if (set.size === 0 && listeners.get(cid) === set) listeners.delete(cid);
      };
    },

    async traces(cid) {
      const state = await load(cid);
      return state ? [...state.traces] : undefined;
    },

    async verifyA2uiToken(cid, candidate) {
      const state = await load(cid);
      if (!state) return false;
      const a = Buffer.from(state.meta.a2uiToken);
      const b = Buffer.from(candidate);
      return a.length === b.length && timingSafeEqual(a, b);
    },

    async divergences(cid) {
      return (await load(cid))?.divergences ?? [];
    },
  };
}

type LogActionRequest = ActionEntry['request'];

function origin(options: { origin?: string }): { origin?: string } {
  return options.origin === undefined ? {} : { origin: options.origin };
}
