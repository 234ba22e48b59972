import { StoreUnavailableError } from '../errors/index.ts';
import type { LogEntry } from './log.ts';

// Part of this port's contract (a store throws it when it cannot be reached); defined beside the
// registry so that the ingress, which runs app effects that may throw it too, need not import
// the conversation folder.
export { StoreUnavailableError };

/**
 * Where conversation logs live. IR = fold(log) wherever the log is read, so a store shared by
 * several server instances (Redis) and an embedded one (JSONL, memory) sit behind this one
 * interface.
 *
 * `append` is a compare-and-append: the entry becomes entry number `version + 1`, where `version`
 * is the number of entries the writer folded before deciding. When the log already holds more,
 * another writer got there first: the store writes nothing and rejects with
 * AppendConflictError, and the writer re-reads, re-folds and decides again. So a conversation's
 * entries are totally ordered and no decision is ever taken on a state its writer did not see.
 * `append` resolves only once the entry is durable (JSONL: written and fsynced; Redis: accepted
 * by the server, which fsyncs before it answers with `appendfsync always`), so the service
 * acknowledges nothing a crash could lose.
 */
export interface ConversationStore {
  /**
   * 'single': this process is the only writer, so a folded conversation it holds is always
   * current. 'many': other processes append too; readers catch up before they answer.
   */
  readonly writers: 'single' | 'many';
  append(cid: string, entry: LogEntry, version: number): Promise<void>;
  /** The entries after the first `after` (default 0), in order; undefined when the conversation does not exist. */
  read(cid: string, after?: number): Promise<LogEntry[] | undefined>;
  /**
   * Stores with other writers call `changed` whenever the log of `cid` may have grown (also after
   * a reconnect, when notifications may have been missed). Returns the unsubscribe function.
   */
  watch?(cid: string, changed: () => void): () => void;
  /**
   * Resolves once the log of `cid` as this process read it, up to `version`, is acknowledged (held
   * where a failover keeps it); LogRewrittenError when the log no longer holds it. A reader can see
   * an entry before its writer's acknowledgement: what it acknowledges in turn on the strength of
   * such an entry (an idempotent replay) it confirms first. Stores that show only acknowledged
   * entries leave it out.
   */
  confirm?(cid: string, version: number): Promise<void>;
  /**
   * Where checkpoints of the folded state live (checkpoint.ts): the latest one per conversation,
   * beside its log, replaced whole or not at all (a crash mid-write leaves the previous one, or
   * none). A checkpoint is only ever a shortcut: the log is the record. Absent: every load folds
   * the whole log.
   */
  readonly checkpoints?: CheckpointStore;
  /** How many conversations `owner` created (the per-session cap survives restarts). */
  countOwnedBy(owner: string): Promise<number>;
  close(): Promise<void>;
}

export interface CheckpointStore {
  /** The head of the conversation's latest checkpoint; undefined when it has none. */
  read(cid: string): Promise<string | undefined>;
  /** Its transcript chunks 0 … count-1, in order (undefined for one the store does not hold). */
  readChunks(cid: string, count: number): Promise<Array<string | undefined>>;
  /**
   * Stores `chunks` (a chunk index's text, replacing any it had), then replaces the head with
   * `head`: a reader sees the old head or the new one, never a head naming chunks not yet written.
   */
  write(cid: string, head: string, chunks: ReadonlyArray<{ index: number; text: string }>): Promise<void>;
}

/** The log holds more entries than the writer folded: nothing was written; re-read and decide again. */
export class AppendConflictError extends Error {
  constructor(readonly cid: string, readonly expected: number, readonly actual?: number) {
    super(`conversation ${cid}: log is past version ${expected}${actual === undefined ? '' : ` (at ${actual})`}`);
    this.name = 'AppendConflictError';
  }
}

/**
 * The log no longer holds the entry this reader last read or wrote at a version: a failover
 * promoted a replica that had not received entries which were never acknowledged (they were
 * written, seen, then lost). What was folded from them is gone: the reader reloads. For the
 * request that found out, the store was briefly unavailable (503, retried).
 */
export class LogRewrittenError extends StoreUnavailableError {
  constructor(readonly cid: string, readonly version: number) {
    super(`conversation ${cid}: the log no longer holds the entry read at version ${version} (lost in a failover before it was acknowledged)`);
    this.name = 'LogRewrittenError';
  }
}
