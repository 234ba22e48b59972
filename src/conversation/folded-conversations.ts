import { decodeCheckpoint, encodeCheckpoint, MAX_KEPT_TRACES } from './checkpoint.ts';
import { foldLog, foldMore, IR_HASH_DIFFERS, notePending, type FoldContext, type FoldDivergence, type FoldResult, type FoldStep } from './fold.ts';
import type { ActionEvent } from '../planner/action-event.ts';
import { createKeyedQueue, createMemoryIdempotencyStore, type MemoryIdempotencyStore } from '../ingress/index.ts';
import type { StoredOutcome } from './ingress-port.ts';
import type { LogEntry } from './log.ts';
import { AppendConflictError, LogRewrittenError, type ConversationStore } from './store.ts';
import type { ChangeCause, ConversationListener, Logger } from './types.ts';
import type { ConversationIr } from '../ui-ir/index.ts';

/**
 * A divergence as a log field. What a fold step threw goes under `detail`, a field the process
 * logger treats as content (src/telemetry/log.ts): it may quote the entry, i.e. what a person
 * or the model wrote. The hash mismatch is said by name.
 */
function divergenceForLog(d: FoldDivergence): Record<string, unknown> {
  return { entry: d.entry, type: d.type, ...(d.message === IR_HASH_DIFFERS ? { reason: 'ir_hash_differs' } : { reason: 'fold_failed', detail: d.message }) };
}

const RETRY_FIRST_MS = 200;
const RETRY_MAX_MS = 5_000;

/** A conversation as this process holds it: the fold of its log so far. */
export interface FoldedState {
  /** meta, IR, version, turn count, traces and divergences, as folded from the log (and kept current). */
  folded: FoldResult;
  /** First outcomes of accepted actions by idempotency key, rebuilt from the log on load. */
  idempotency: MemoryIdempotencyStore<StoredOutcome>;
  /**
   * The IRs of the last RECENT_VERSIONS versions (oldest first), for clients resuming from one
   * of them. IRs are immutable and share what did not change, so this costs little.
   */
  recent: Array<{ version: number; ir: ConversationIr }>;
  /** The version of the last checkpoint written (or read) of this state; 0: none. */
  checkpointed: number;
  /** A checkpoint of it is being written. */
  checkpointing?: boolean;
  /**
   * Full transcript chunks the store holds for this state (checkpoint.ts): the next checkpoint
   * sends only those after them. Unset (0) for a state folded from the whole log: all are sent,
   * replacing whatever chunks a bad checkpoint had.
   */
  chunksStored?: number;
}

/** How far back a resuming client is brought up to date by an update rather than a full init. */
export const RECENT_VERSIONS = 64;
/** Kept idempotency outcomes per entry between two checkpoints, at most (checkpointDue). */
const OUTCOMES_PER_ENTRY = 8;
/** Entries between two checkpoints, at most, in units of checkpointEvery (checkpointDue). */
const MAX_SPACING = 4;

export interface FoldedConversations {
  /** The cached state (loaded whole on a miss), without looking for newer entries. */
  cached(cid: string, options?: { justCreated?: boolean }): Promise<FoldedState | undefined>;
  /** The state caught up with the log (a shared store's other writers included). */
  load(cid: string): Promise<FoldedState | undefined>;
  /**
   * Folds in what the log holds beyond `state`, one entry (and one event) at a time; how many.
   * Nothing to do (0) when this process is the store's only writer.
   */
  catchUp(cid: string, state: FoldedState): Promise<number>;
  /**
   * Resolves once what `state` folded is acknowledged by the store (see ConversationStore.confirm);
   * when the log no longer holds it, reloads (telling listeners) and rejects with LogRewrittenError.
   */
  confirm(cid: string, state: FoldedState): Promise<void>;
  /**
   * Appends `entry` as the change from version `basis` to `next`, then changes the state and
   * notifies: nothing unrecorded is ever acknowledged. Throws AppendConflictError when the log
   * moved past `basis` (here or on another instance): the caller catches up and decides again.
   * An action that continues (its event, and its idempotency scope) becomes pending (fold.ts).
   */
  commit(
    cid: string, state: FoldedState, entry: LogEntry, next: ConversationIr, cause: ChangeCause, basis: number,
    continues?: { event: ActionEvent; key: string | undefined },
  ): Promise<void>;
  /** The IR at `version` if it is one of the last RECENT_VERSIONS (see FoldedState.recent). */
  irAt(cid: string, version: number): Promise<ConversationIr | undefined>;
  /** Every change, one event per log entry; with a shared store also other writers' (watched). */
  subscribe(cid: string, listener: ConversationListener): () => void;
}

export interface FoldedConversationsOptions {
  store: ConversationStore;
  fold: FoldContext;
  /** `checkpointEvery`: entries between checkpoints of a conversation's folded state (0: none; checkpoint.ts). */
  limits: { idempotencyTtlMs: number; idempotencyKeys: number; maxCachedConversations: number; checkpointEvery: number };
  clock: () => number;
  logger: Logger;
  /** Conversations with work in flight are never evicted from the cache. */
  inUse(cid: string): boolean;
}

/**
 * The conversations this process has folded, kept current with their logs: the in-memory side
 * of IR = fold(log). One per service; it alone changes a folded state, and never two changes of
 * one conversation at a time (an own append and a catch-up with others' cannot interleave).
 */
export function createFoldedConversations(options: FoldedConversationsOptions): FoldedConversations {
  const { store, fold, limits, clock, logger } = options;
  const shared = store.writers === 'many';
  const mutations = createKeyedQueue();
  const states = new Map<string, FoldedState>();
  const loading = new Map<string, Promise<FoldedState | undefined>>();
  const listeners = new Map<string, Set<ConversationListener>>();
  const watches = new Map<string, () => void>();
  const refreshQueued = new Set<string>();
  /** Pause before the next try of a failed catch-up, per conversation. */
  const retryDelays = new Map<string, number>();

  function remember(cid: string, state: FoldedState): void {
    states.delete(cid);
    states.set(cid, state);
    if (states.size <= limits.maxCachedConversations) return;
    for (const key of states.keys()) {
      if (states.size <= limits.maxCachedConversations) break;
      if (key !== cid && !options.inUse(key) && mutations.depth(key) === 0 && !listeners.has(key)) states.delete(key);
    }
  }

  function rememberOutcome(state: FoldedState, key: string, outcome: StoredOutcome, at: string): void {
    const storedAt = Date.parse(at);
    // A time this server did not write (the schema only says string): keep the key a full TTL.
    state.idempotency.set(key, outcome, Number.isNaN(storedAt) ? undefined : storedAt);
  }

  function emit(event: Parameters<ConversationListener>[0]): void {
    for (const listener of listeners.get(event.cid) ?? []) {
      try { listener(event); } catch (error) { logger.error('conversation listener failed', { cid: event.cid, error }); }
    }
  }

  const newState = (folded: FoldResult, recent: FoldedState['recent'], checkpointed: number): FoldedState => ({
    folded, recent, checkpointed,
    idempotency: createMemoryIdempotencyStore<StoredOutcome>({ ttlMs: limits.idempotencyTtlMs, maxEntries: limits.idempotencyKeys, clock }),
  });

  /**
   * The state a valid checkpoint gives, with the entries after it folded in; undefined when there
   * is none, or it is not this log's (checkpoint.ts): then the caller folds the whole log.
   */
  async function fromCheckpoint(cid: string): Promise<FoldedState | undefined> {
    const checkpoints = store.checkpoints;
    if (checkpoints === undefined || limits.checkpointEvery <= 0) return undefined;
    let text: string | undefined;
    try {
      text = await checkpoints.read(cid);
    } catch (error) {
      logger.warn('could not read the conversation\'s checkpoint; folding its whole log', { cid, error });
      return undefined;
    }
    if (text === undefined) return undefined;
    const decoded = await decodeCheckpoint(text, cid, (count) => checkpoints.readChunks(cid, count));
    if (!decoded.ok) {
      logger.warn('conversation checkpoint ignored; folding its whole log', { cid, reason: decoded.reason });
      return undefined;
    }
    const { folded, outcomes } = decoded.state;
    // Entry `version` and those after it: the first must have recorded the IR the checkpoint holds.
    const tail = await store.read(cid, folded.version - 1);
    const at = tail?.[0];
    if (at === undefined || at.type === 'created' || at.irHash !== decoded.irHash) {
      logger.warn('conversation checkpoint ignored; folding its whole log', { cid, reason: 'not this log\'s', version: folded.version });
      return undefined;
    }
    const state = newState(folded, [{ version: folded.version, ir: folded.ir }], folded.version);
    state.chunksStored = decoded.chunks;
    for (const { key, outcome, storedAt } of outcomes) state.idempotency.set(key, outcome, storedAt);
    for (const step of await foldYielding(folded, tail!.slice(1))) {
      if (step.outcome) rememberOutcome(state, step.outcome.key, step.outcome.outcome, step.outcome.at);
      remember1(state.recent, step.version, step.next);
    }
    return state;
  }

  /** `justCreated`: the conversation was created a moment ago (it has no checkpoint: none is looked for). */
  function cached(cid: string, options: { justCreated?: boolean } = {}): Promise<FoldedState | undefined> {
    const known = states.get(cid);
    if (known) { remember(cid, known); return Promise.resolve(known); }
    const pending = loading.get(cid);
    if (pending) return pending;
    const promise = (async () => {
      let state = options.justCreated === true ? undefined : await fromCheckpoint(cid);
      if (state === undefined) {
        const entries = await store.read(cid);
        if (!entries || entries.length === 0) return undefined;
        // The created entry, then the rest step by step, keeping the last versions' IRs.
        const result = foldLog(entries.slice(0, 1), fold);
        const recent = [{ version: 1, ir: result.ir }];
        for (const step of await foldYielding(result, entries.slice(1))) {
          if (step.outcome) result.outcomes.push(step.outcome);
          remember1(recent, step.version, step.next);
        }
        state = newState(result, recent, 0);
        // Keys recorded in the log survive restarts, each for the rest of its TTL.
        for (const { key, outcome, at } of result.outcomes) rememberOutcome(state, key, outcome, at);
        result.outcomes = [];
        // A long log folded whole (one written before checkpoints, or whose checkpoint was bad): checkpointed now.
        if (result.version >= limits.checkpointEvery) checkpoint(cid, state);
      }
      const divergences = state.folded.divergences;
      if (divergences.length > 0) logger.warn('conversation log did not replay exactly', { cid, divergences: divergences.map(divergenceForLog) });
      remember(cid, state);
      return state;
    })().finally(() => loading.delete(cid));
    loading.set(cid, promise);
    return promise;
  }

  /**
   * Every checkpointEvery entries, or less often while the conversation keeps many idempotency
   * outcomes: a checkpoint lists every kept outcome (up to idempotencyKeys, 1,024 by default),
   * however few are new, so its cost grows with them while what it saves a load (folding the
   * entries since the last one) does not. So at most OUTCOMES_PER_ENTRY kept outcomes per entry
   * since the last checkpoint, and never more than MAX_SPACING × checkpointEvery entries apart:
   * an action-heavy conversation keeping 1,024 is checkpointed every 128 entries (by default),
   * and its load folds at most that many (128 actions: 4–9 ms here, yielding; issue 34).
   */
  function checkpointDue(state: FoldedState): boolean {
    const since = state.folded.version - state.checkpointed;
    if (since < limits.checkpointEvery) return false;
    return since >= limits.checkpointEvery * MAX_SPACING || since * OUTCOMES_PER_ENTRY >= state.idempotency.size;
  }

  /**
   * Writes a checkpoint of `state` in the background: encoded a piece at a time (the IR is
   * immutable; the small parts are taken now), written whole by the store. A failure only means
   * a longer load: it is logged, and the next entry tries again.
   */
  function checkpoint(cid: string, state: FoldedState): void {
    const checkpoints = store.checkpoints;
    if (checkpoints === undefined || limits.checkpointEvery <= 0 || state.folded.version < 2 || state.checkpointing) return;
    const before = state.checkpointed;
    state.checkpointing = true;
    state.checkpointed = state.folded.version;
    const taken = { ...state.folded, traces: state.folded.traces.slice(), pending: new Map(state.folded.pending), divergences: state.folded.divergences.slice() };
    void encodeCheckpoint(taken, state.idempotency.entries(), state.chunksStored ?? 0)
      .then(async (encoded) => {
        await checkpoints.write(cid, encoded.head, encoded.chunks);
        state.chunksStored = encoded.fullChunks;
      })
      .catch((error: unknown) => {
        state.checkpointed = before;
        logger.warn('could not write the conversation\'s checkpoint (its next load folds more of the log)', { cid, version: taken.version, error });
      })
      .finally(() => { state.checkpointing = false; });
  }

  /** foldMore, a slice at a time: a long log's fold lets other requests run in between (issue 36). */
  async function foldYielding(acc: FoldResult, entries: readonly LogEntry[]): Promise<FoldStep[]> {
    const steps: FoldStep[] = [];
    let started = performance.now();
    for (const entry of entries) {
      steps.push(...foldMore(acc, [entry], fold));
      trimTraces(acc);
      if (performance.now() - started > FOLD_SLICE_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        started = performance.now();
      }
    }
    return steps;
  }

  /**
   * Entries this process folded (never acknowledged) were lost in a failover. Reloaded from the
   * log as it is, and the listeners told of the change from what they were shown, so renderers of
   * the lost state get what brings them to the kept one.
   */
  async function reloadRewritten(cid: string, state: FoldedState): Promise<void> {
    // A warning, not an error: a failover may lose appends that were never acknowledged but that
    // this process had already read (docs/deployment.md); it is what the reload is for, and
    // every acknowledged entry is still there. What was shown of them is taken back.
    logger.warn('conversation log no longer holds what was folded; reloading it', { cid, folded: state.folded.version });
    if (states.get(cid) === state) states.delete(cid);
    const fresh = await cached(cid);
    if (fresh !== undefined && fresh.folded.ir !== state.folded.ir) {
      emit({ cid, prev: state.folded.ir, next: fresh.folded.ir, cause: { kind: 'turn' }, version: fresh.folded.version, rewritten: true });
    }
  }

  function catchUp(cid: string, state: FoldedState): Promise<number> {
    // This process is the only writer: what it holds is the log.
    if (!shared) return Promise.resolve(0);
    return mutations.run(cid, async () => {
      refreshQueued.delete(cid);
      let entries: LogEntry[] | undefined;
      try {
        entries = await store.read(cid, state.folded.version);
      } catch (error) {
        if (error instanceof LogRewrittenError) await reloadRewritten(cid, state);
        throw error;
      }
      if (!entries || entries.length === 0) return 0;
      for (const step of foldMore(state.folded, entries, fold)) {
        trimTraces(state.folded);
        if (step.outcome) rememberOutcome(state, step.outcome.key, step.outcome.outcome, step.outcome.at);
        remember1(state.recent, step.version, step.next);
        if (step.prev !== step.next) emit({ cid, prev: step.prev, next: step.next, cause: causeOf(step.entry), version: step.version });
      }
      const fresh = state.folded.divergences.filter((d) => d.entry > state.folded.version - entries.length);
      if (fresh.length > 0) logger.warn('appended entries did not replay exactly', { cid, divergences: fresh.map(divergenceForLog) });
      return entries.length;
    });
  }

  /**
   * A watched conversation's log grew somewhere: fold it in now (at most one catch-up waiting).
   * While the conversation is still loading, again once it has loaded: the load may have read
   * the log just before the change. A catch-up that fails (the store is away, or its connection
   * for commands comes back later than the one that notified) is tried again, with a growing
   * pause, as long as someone listens: a missed change would otherwise wait for the next one.
   */
  function refresh(cid: string): void {
    const pending = loading.get(cid);
    if (pending !== undefined) {
      void pending.then((state) => { if (state !== undefined) refresh(cid); }, () => {});
      return;
    }
    const state = states.get(cid);
    if (state === undefined || refreshQueued.has(cid)) return;
    refreshQueued.add(cid);
    catchUp(cid, state).then(() => retryDelays.delete(cid), (error: unknown) => {
      refreshQueued.delete(cid);
      if (!listeners.has(cid)) return;
      const delay = Math.min(RETRY_MAX_MS, (retryDelays.get(cid) ?? RETRY_FIRST_MS / 2) * 2);
      retryDelays.set(cid, delay);
      logger.warn('could not catch up with the conversation log; trying again', { cid, delayMs: delay, error });
      setTimeout(() => refresh(cid), delay).unref();
    });
  }

  return {
    cached,
    async load(cid) {
      const known = shared ? states.get(cid) : undefined;
      if (known === undefined) return cached(cid);
      await catchUp(cid, known);
      return cached(cid);
    },
    catchUp,
    confirm(cid, state) {
      const { confirm } = store;
      if (!shared || confirm === undefined) return Promise.resolve();
      return mutations.run(cid, async () => {
        // Replaced meanwhile (reloaded after a rewrite): what it replays is not the log's.
        if (states.get(cid) !== state) throw new LogRewrittenError(cid, state.folded.version);
        try {
          await confirm.call(store, cid, state.folded.version);
        } catch (error) {
          if (error instanceof LogRewrittenError) await reloadRewritten(cid, state);
          throw error;
        }
      });
    },
    async irAt(cid, version) {
      const state = await cached(cid);
      return state?.recent.find((r) => r.version === version)?.ir;
    },
    commit(cid, state, entry, next, cause, basis, continues) {
      return mutations.run(cid, async () => {
        // Replaced meanwhile (a catch-up found the log rewritten and reloaded it): this decision
        // was taken on a past the log no longer holds, whatever the version says.
        if (states.get(cid) !== state) throw new AppendConflictError(cid, basis);
        if (state.folded.version !== basis) throw new AppendConflictError(cid, basis, state.folded.version);
        try {
          await store.append(cid, entry, basis);
        } catch (error) {
          // The entry this append builds on is not the one folded: the same as a catch-up finding it.
          if (error instanceof LogRewrittenError) await reloadRewritten(cid, state).catch(() => {});
          if (error instanceof AppendConflictError && error.actual !== undefined && error.actual < basis) {
            // The log holds less than this process folded: entries were lost in the store (a
            // failover to a replica that had not received them, a Redis without AOF, a flush).
            // This fold describes a past that is gone: forget it, so the next decision reloads.
            logger.error('conversation log is shorter than the folded state; reloading it', { cid, folded: basis, log: error.actual });
            if (states.get(cid) === state) states.delete(cid);
          }
          throw error;
        }
        const prev = state.folded.ir;
        state.folded.ir = next;
        state.folded.version = basis + 1;
        notePending(state.folded, entry, basis + 1, continues?.event, continues?.key);
        remember1(state.recent, basis + 1, next);
        if (entry.type === 'turn') {
          state.folded.turnCount = Math.max(state.folded.turnCount, entry.turnIndex + 1);
          state.folded.traces.push(entry.trace);
          trimTraces(state.folded);
        }
        if (prev !== next) emit({ cid, prev, next, cause, version: state.folded.version });
        if (checkpointDue(state)) checkpoint(cid, state);
      });
    },
    subscribe(cid, listener) {
      const set = listeners.get(cid) ?? new Set();
      set.add(listener);
      listeners.set(cid, set);
      // Another instance's changes reach this one's listeners through the store.
      if (store.watch && !watches.has(cid)) watches.set(cid, store.watch(cid, () => refresh(cid)));
      return () => {
        set.delete(listener);
        if (set.size === 0 && listeners.get(cid) === set) {
          listeners.delete(cid);
          watches.get(cid)?.();
          watches.delete(cid);
        }
      };
    },
  };
}

/** Who caused a logged change, as listeners on any instance see it. */
function causeOf(entry: LogEntry): ChangeCause {
  const from = entry.type !== 'created' && entry.origin !== undefined ? { origin: entry.origin } : {};
  switch (entry.type) {
    case 'action': return { kind: 'action', surfaceId: entry.request.surfaceId, ...from };
    case 'reset': return { kind: 'reset', surfaceId: entry.surfaceId, ...from };
    case 'turn_part': return { kind: 'turn', streamed: true, ...from };
    default: return { kind: 'turn', ...from };
  }
}

/** Longest stretch a load folds before it lets other work run. */
const FOLD_SLICE_MS = 10;

/** A folded state keeps the recent turns' traces (the trace page's); every trace stays in the log. */
function trimTraces(folded: FoldResult): void {
  if (folded.traces.length > MAX_KEPT_TRACES) folded.traces.splice(0, folded.traces.length - MAX_KEPT_TRACES);
}

function remember1(recent: FoldedState['recent'], version: number, ir: ConversationIr): void {
  recent.push({ version, ir });
  if (recent.length > RECENT_VERSIONS) recent.shift();
}
