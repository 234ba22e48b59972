import type { LogEntry } from './log.ts';

/**
 * Where conversation logs live. `append` resolves only once the entry is durable (for the
 * disk store: written and fsynced), so the service acknowledges nothing that a crash could lose.
 * A shared engine (e.g. Redis streams) fits behind the same interface.
 */
export interface ConversationStore {
  append(cid: string, entry: LogEntry): Promise<void>;
  /** All entries in order, or undefined when the conversation does not exist. */
  read(cid: string): Promise<LogEntry[] | undefined>;
  close(): Promise<void>;
}
