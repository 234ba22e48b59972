import { mkdirSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { open as openFile, readdir, readFile, rename, truncate, unlink, type FileHandle } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { CONVERSATION_ID, LogEntrySchema, type LogEntry } from './log.ts';
import { AppendConflictError, type CheckpointStore, type ConversationStore } from './store.ts';

export interface JsonlStoreOptions {
  /** Directory of `<cid>.jsonl` files; default `.data/conversations`. */
  dir?: string;
  /** fsync after every append (default true). Off only for benchmarks and throwaway runs. */
  fsync?: boolean;
  /** Test seam: how files are opened (default node:fs/promises `open`), e.g. to inject failing writes. */
  fs?: { open?: (path: string, flags: string) => Promise<FileHandle> };
}

interface OpenFile {
  /** The append chain: appends of one conversation run one at a time. */
  tail: Promise<unknown>;
  pending: number;
  /** The handle kept open in append mode (once an append needed it). */
  handle?: Promise<FileHandle>;
  /** Size to cut the file back to before the next append or read (a failed append's rollback failed). */
  truncateTo?: number;
  /** Entries in the file, once known (after a read or an append); checked by every append. */
  count?: number;
}

/** Conversations whose log file stays open between appends (least recently used closed first). */
const OPEN_FILES = 128;

/**
 * One append-only JSON Lines file per conversation. A crash can leave at most a torn last line,
 * which was never acknowledged (append resolves after the write and fsync) and is ignored on read.
 *
 * Appends of a conversation run one at a time (a per-file chain), through a file handle kept
 * open in append mode (O_APPEND: every write lands at the current end, also after a read cut a
 * torn tail), so an acknowledged append costs a write and an fdatasync instead of open, write,
 * fdatasync and close, each a trip through libuv's thread pool.
 *
 * A failed append leaves no trace: the file's size is taken before the write, and on any write
 * or sync error the file is cut back to it before the error is passed on (a failed `created`
 * removes the file). Otherwise a partial line would glue onto the next append (a corrupt middle
 * line, the conversation unreadable) and a written-but-unsynced entry, reported as failed, would
 * be replayed later. If the cut itself fails, it is retried before the next append or read.
 */
export function createJsonlStore(options: JsonlStoreOptions = {}): ConversationStore & { readonly dir: string } {
  const dir = resolve(options.dir ?? '.data/conversations');
  const fsync = options.fsync ?? true;
  const open = options.fs?.open ?? ((path: string, flags: string) => openFile(path, flags));
  mkdirSync(dir, { recursive: true });
  /** Per conversation: its append chain (tail, appends pending) and its open handle (once created). */
  const files = new Map<string, OpenFile>();

  const fileOf = (cid: string): string => {
    // cids come from URLs: the charset check keeps them inside `dir`.
    if (!CONVERSATION_ID.test(cid)) throw new Error(`invalid conversation id "${cid}"`);
    return join(dir, `${cid}.jsonl`);
  };

  async function syncDir(): Promise<void> {
    const handle = await open(dir, 'r');
    try { await handle.sync(); } catch { /* some filesystems refuse directory fsync */ } finally { await handle.close(); }
  }

  /** Closes the least recently used idle files beyond OPEN_FILES (a file with appends or a cut pending stays). */
  function trim(): void {
    for (const [cid, file] of files) {
      if (files.size <= OPEN_FILES) return;
      if (file.pending > 0 || file.truncateTo !== undefined) continue;
      files.delete(cid);
      void file.handle?.then((h) => h.close()).catch(() => {});
    }
  }

  /** Cuts a file back to `size` (best effort durable); on failure remembers to retry before the next append or read. */
  async function rollback(file: OpenFile, handle: FileHandle, size: number): Promise<void> {
    try {
      await handle.truncate(size);
      if (fsync) await handle.datasync().catch(() => {});
    } catch {
      file.truncateTo = size;
      delete file.handle; // the handle may be broken: reopen for the next append
      await handle.close().catch(() => {});
    }
  }

  /** A cut that failed earlier: done before anything else touches the file (throws if it fails again). */
  async function settle(cid: string, file: OpenFile | undefined): Promise<void> {
    if (file?.truncateTo === undefined) return;
    await truncate(fileOf(cid), file.truncateTo);
    delete file.truncateTo;
  }

  async function write(cid: string, file: OpenFile, entry: LogEntry, line: string, version: number): Promise<void> {
    if (entry.type === 'created') {
      if (version !== 0) throw new AppendConflictError(cid, version, 0);
      // 'wx': a conversation is created once; an existing file is a conflict, never overwritten.
      const handle = await open(fileOf(cid), 'wx').catch((error: NodeJS.ErrnoException) => {
        throw error.code === 'EEXIST' ? new AppendConflictError(cid, 0) : error;
      });
      try {
        await handle.appendFile(line, 'utf8');
        if (fsync) await handle.datasync();
      } catch (error) {
        await handle.close().catch(() => {});
        await unlink(fileOf(cid)).catch(() => {}); // not created: no half-made conversation stays
        throw error;
      }
      await handle.close();
      // A new file is durable only once its directory entry is.
      if (fsync) await syncDir();
      file.count = 1;
      noteOwner(cid, entry.ownerSessionId);
      return;
    }
    await settle(cid, file);
    // Unknown after the file was closed to bound open handles: count its complete lines again.
    file.count ??= (await readEntries(cid, file, Number.POSITIVE_INFINITY))?.count ?? 0;
    if (file.count !== version) throw new AppendConflictError(cid, version, file.count);
    file.handle ??= open(fileOf(cid), 'a');
    let handle: FileHandle;
    try {
      handle = await file.handle;
    } catch (error) {
      delete file.handle; // e.g. ENOENT: nothing to keep
      throw error;
    }
    const { size } = await handle.stat();
    try {
      await handle.appendFile(line, 'utf8');
      if (fsync) await handle.datasync();
    } catch (error) {
      await rollback(file, handle, size);
      throw error;
    }
    file.count = version + 1;
  }

  /**
   * The file's entries after the first `after` (the others are counted, not parsed: a load from a
   * checkpoint reads only the tail), and how many complete lines it has; a torn tail is cut first
   * (nothing may be appended after it).
   */
  async function readEntries(cid: string, file: OpenFile | undefined, after = 0): Promise<{ entries: LogEntry[]; count: number } | undefined> {
    await settle(cid, file);
    let bytes: Buffer;
    try {
      bytes = await readFile(fileOf(cid));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    // Complete lines end at the last newline; a torn tail after it was never acknowledged.
    const validBytes = bytes.lastIndexOf(NEWLINE) + 1;
    if (validBytes < bytes.length) await truncate(fileOf(cid), validBytes);
    // Lines are found in the bytes (the skipped ones are never decoded), a slice at a time.
    let count = 0;
    let tailStart = validBytes;
    let started = performance.now();
    for (let pos = 0; pos < validBytes; count += 1) {
      if (count === after) tailStart = pos;
      pos = bytes.indexOf(NEWLINE, pos) + 1;
      if ((count & 1023) === 0 && performance.now() - started > PARSE_SLICE_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        started = performance.now();
      }
    }
    if (file !== undefined) file.count = count;
    const first = Math.min(after, count);
    const lines = tailStart < validBytes ? bytes.toString('utf8', tailStart, validBytes - 1).split('\n') : [];
    const entries: LogEntry[] = [];
    started = performance.now();
    for (let i = 0; i < lines.length; i += 1) {
      entries.push(parseLine(lines[i]!, cid, first + i));
      // A long log is parsed a slice at a time: other requests run in between.
      if (performance.now() - started > PARSE_SLICE_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        started = performance.now();
      }
    }
    return { entries, count };
  }

  /** Writes `path` whole or not at all: a synced temporary file renamed over it. */
  async function replaceFile(path: string, text: string): Promise<void> {
    const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
    const handle = await open(temporary, 'w');
    try {
      await handle.writeFile(text, 'utf8');
      if (fsync) await handle.datasync();
    } catch (error) {
      await handle.close().catch(() => {});
      await unlink(temporary).catch(() => {});
      throw error;
    }
    await handle.close();
    await rename(temporary, path).catch(async (error: unknown) => {
      await unlink(temporary).catch(() => {});
      throw error;
    });
  }

  async function readIfThere(path: string): Promise<string | undefined> {
    try {
      return await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  /** `<cid>.checkpoint` (the head) and `<cid>.checkpoint.<n>` (full chunks), each replaced by a rename, the head last. */
  const checkpointFile = (cid: string, chunk?: number): string =>
    `${fileOf(cid).slice(0, -'.jsonl'.length)}.checkpoint${chunk === undefined ? '' : `.${chunk}`}`;
  const checkpoints: CheckpointStore = {
    read: (cid) => readIfThere(checkpointFile(cid)),
    readChunks: (cid, count) => Promise.all(Array.from({ length: count }, (_, i) => readIfThere(checkpointFile(cid, i)))),
    async write(cid, head, chunks) {
      for (const { index, text } of chunks) await replaceFile(checkpointFile(cid, index), text);
      await replaceFile(checkpointFile(cid), head);
    },
  };

  /**
   * Conversations per owner: built on first use from every log's first line (its `created`
   * entry), then kept current by creates. Nothing else to keep durable: the logs are the record.
   * Sets of ids, not counts: a create racing the first scan is then counted once, whether the
   * scan saw its file or not.
   */
  let owners: Promise<Map<string, Set<string>>> | undefined;
  function noteOwner(cid: string, owner: string): void {
    void owners?.then((map) => ownedBy(map, owner).add(cid));
  }
  function ownedBy(map: Map<string, Set<string>>, owner: string): Set<string> {
    let set = map.get(owner);
    if (set === undefined) map.set(owner, (set = new Set()));
    return set;
  }
  async function scanOwners(): Promise<Map<string, Set<string>>> {
    const map = new Map<string, Set<string>>();
    const names = (await readdir(dir)).filter((name) => name.endsWith('.jsonl'));
    // A few files at a time: thousands of conversations must not exhaust file handles.
    for (let i = 0; i < names.length; i += 32) {
      await Promise.all(names.slice(i, i + 32).map(async (name) => {
        const owner = await firstLineOwner(join(dir, name));
        if (owner !== undefined) ownedBy(map, owner).add(name.slice(0, -'.jsonl'.length));
      }));
    }
    return map;
  }

  return {
    dir,
    writers: 'single',
    checkpoints,
    append(cid, entry, version) {
      let line: string;
      try {
        line = `${JSON.stringify(LogEntrySchema.parse(entry))}\n`;
        fileOf(cid);
      } catch (error) {
        return Promise.reject(error);
      }
      const file = files.get(cid) ?? { tail: Promise.resolve(), pending: 0 };
      files.delete(cid); // re-inserted last: the map is in least-recently-used order
      files.set(cid, file);
      file.pending += 1;
      const done = file.tail.then(() => write(cid, file, entry, line, version)).finally(() => { file.pending -= 1; });
      file.tail = done.catch(() => {});
      trim();
      return done;
    },
    async read(cid, after = 0) {
      if (!CONVERSATION_ID.test(cid)) return undefined;
      const file = files.get(cid);
      await file?.tail; // never cut a line that is being written
      return (await readEntries(cid, file, after))?.entries;
    },
    countOwnedBy(owner) {
      owners ??= scanOwners();
      return owners.then((map) => map.get(owner)?.size ?? 0);
    },
    async close() {
      const open = [...files.values()];
      files.clear();
      await Promise.all(open.map(async (file) => {
        await file.tail;
        if (file.handle) await (await file.handle.catch(() => undefined))?.close();
      }));
    },
  };
}

/** Longest stretch a read parses before it lets other work run. */
const PARSE_SLICE_MS = 10;
const NEWLINE = 0x0a;

/** A log file's complete lines; a torn tail (bytes after the last newline) was never acknowledged. `validBytes` is where it starts. */
function logLines(text: string): { lines: string[]; validBytes: number } {
  const end = text.lastIndexOf('\n') + 1;
  return { lines: text.slice(0, end).split('\n').slice(0, -1), validBytes: Buffer.byteLength(text.slice(0, end), 'utf8') };
}

function parseLine(line: string, cid: string, index: number): LogEntry {
  try {
    return LogEntrySchema.parse(JSON.parse(line));
  } catch (error) {
    throw new Error(`conversation log ${cid} line ${index + 1} is corrupt: ${(error as Error).message}`);
  }
}

/**
 * Parses a log file. Every complete line must be a valid entry; a torn tail (bytes after the
 * last newline) was never acknowledged and is dropped. `validBytes` is where it starts.
 */
export function parseLog(text: string, cid = '?'): { entries: LogEntry[]; validBytes: number } {
  const { lines, validBytes } = logLines(text);
  return { entries: lines.map((line, i) => parseLine(line, cid, i)), validBytes };
}

/** The owner named by a log's `created` line, read without reading the whole file. */
async function firstLineOwner(path: string): Promise<string | undefined> {
  let handle: FileHandle | undefined;
  try {
    handle = await openFile(path, 'r');
    const buffer = Buffer.alloc(2048);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const text = buffer.subarray(0, bytesRead).toString('utf8');
    const end = text.indexOf('\n');
    if (end < 0) return undefined; // torn or empty: never acknowledged
    const entry = LogEntrySchema.safeParse(JSON.parse(text.slice(0, end)));
    return entry.success && entry.data.type === 'created' ? entry.data.ownerSessionId : undefined;
  } catch {
    return undefined;
  } finally {
    await handle?.close();
  }
}
