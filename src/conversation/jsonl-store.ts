import { mkdirSync } from 'node:fs';
import { open, readFile, truncate } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { LogEntrySchema, type LogEntry } from './log.ts';
import type { ConversationStore } from './store.ts';

export interface JsonlStoreOptions {
  /** Directory of `<cid>.jsonl` files; default `.data/conversations`. */
  dir?: string;
  /** fsync after every append (default true). Off only for benchmarks and throwaway runs. */
  fsync?: boolean;
}

const CID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * One append-only JSON Lines file per conversation. A crash can leave at most a torn last line,
 * which was never acknowledged (append resolves after the write and fsync) and is ignored on read.
 */
export function createJsonlStore(options: JsonlStoreOptions = {}): ConversationStore & { readonly dir: string } {
  const dir = resolve(options.dir ?? '.data/conversations');
  const fsync = options.fsync ?? true;
  mkdirSync(dir, { recursive: true });

  const fileOf = (cid: string): string => {
    // cids come from URLs: the charset check keeps them inside `dir`.
    if (!CID.test(cid)) throw new Error(`invalid conversation id "${cid}"`);
    return join(dir, `${cid}.jsonl`);
  };

  async function syncDir(): Promise<void> {
    const handle = await open(dir, 'r');
    try { await handle.sync(); } catch { /* some filesystems refuse directory fsync */ } finally { await handle.close(); }
  }

  return {
    dir,
    async append(cid, entry) {
      const line = `${JSON.stringify(LogEntrySchema.parse(entry))}\n`;
      const handle = await open(fileOf(cid), entry.type === 'created' ? 'wx' : 'a');
      try {
        await handle.appendFile(line, 'utf8');
        if (fsync) await handle.datasync();
      } finally {
        await handle.close();
      }
      // A new file is durable only once its directory entry is.
      if (entry.type === 'created' && fsync) await syncDir();
    },
    async read(cid) {
      if (!CID.test(cid)) return undefined;
      let text: string;
      try {
        text = await readFile(fileOf(cid), 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
      const { entries, validBytes } = parseLog(text, cid);
      // Cut a torn tail before anything is appended after it.
      if (validBytes < Buffer.byteLength(text, 'utf8')) await truncate(fileOf(cid), validBytes);
      return entries;
    },
    async close() {},
  };
}

/**
 * Parses a log file. Every complete line must be a valid entry; a torn tail (bytes after the
 * last newline) was never acknowledged and is dropped. `validBytes` is where it starts.
 */
export function parseLog(text: string, cid = '?'): { entries: LogEntry[]; validBytes: number } {
  const end = text.lastIndexOf('\n') + 1;
  const entries = text.slice(0, end).split('\n').slice(0, -1).map((line, i) => {
    try {
      return LogEntrySchema.parse(JSON.parse(line));
    } catch (error) {
      throw new Error(`conversation log ${cid} line ${i + 1} is corrupt: ${(error as Error).message}`);
    }
  });
  return { entries, validBytes: Buffer.byteLength(text.slice(0, end), 'utf8') };
}
