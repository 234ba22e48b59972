import { mkdir, open, readFile, truncate, type FileHandle } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { createCardIndex, SavedCard, type CardLibrary } from './library.ts';

/**
 * The card library in one append-only JSON Lines file, one saved card a line, fsynced before a
 * save resolves: what a save acknowledged survives a crash, and a torn last line (a crash in the
 * middle of a write, never acknowledged) is cut when the file is next read. Saves run one at a
 * time, each checking its key first, so a key is stored at most once. One process owns the file;
 * several instances need a shared store behind the same CardLibrary interface.
 */
export function createFileCardLibrary(options: { file: string; fsync?: boolean; clock?: () => number }): CardLibrary & { readonly file: string } {
  const file = resolve(options.file);
  const fsync = options.fsync ?? true;
  const index = createCardIndex(options.clock ?? Date.now);
  let chain: Promise<unknown> = Promise.resolve();
  let handle: FileHandle | undefined;
  // Read once, lazily: a damaged file then fails the saves and lookups that need it, not the server's start.
  let loaded: Promise<void> | undefined;

  async function load(): Promise<void> {
    let text = '';
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    const end = text.lastIndexOf('\n') + 1;
    const lines = text.slice(0, end).split('\n').slice(0, -1);
    index.load(lines.map((line, i) => {
      const parsed = SavedCard.safeParse(JSON.parse(line));
      if (!parsed.success) throw new Error(`card library ${file} line ${i + 1} is damaged: ${parsed.error.issues[0]?.message ?? ''}`);
      return parsed.data;
    }));
    if (end < Buffer.byteLength(text, 'utf8')) await truncate(file, Buffer.byteLength(text.slice(0, end), 'utf8'));
  }
  const ready = (): Promise<void> => {
    loaded ??= load().catch((error: unknown) => { loaded = undefined; throw error; });
    return loaded;
  };

  function serially<T>(task: () => Promise<T>): Promise<T> {
    const done = chain.then(task);
    chain = done.catch(() => {});
    return done;
  }

  return {
    file,
    save(request, signal) {
      return serially(async () => {
        await ready();
        signal?.throwIfAborted();
        const next = index.next(request);
        if ('known' in next) return next.known;
        if (handle === undefined) {
          // Made on the first save: a server that never saves a card leaves no empty directory.
          await mkdir(dirname(file), { recursive: true });
          handle = await open(file, 'a');
          // A new file is durable only once its directory entry is.
          if (fsync) await syncDir(dirname(file));
        }
        const { size } = await handle.stat();
        try {
          await handle.appendFile(`${JSON.stringify(next.fresh)}\n`, 'utf8');
          if (fsync) await handle.datasync();
        } catch (error) {
          // Not saved: cut what may have been written, so the line cannot come back later.
          await handle.truncate(size).catch(() => {});
          throw error;
        }
        index.add(next.fresh);
        return next.fresh;
      });
    },
    async find(owner, query, limit) {
      await ready();
      return index.find(owner, query, limit);
    },
    close() {
      return serially(async () => {
        await handle?.close();
        handle = undefined;
      });
    },
  };
}

async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try { await handle.sync(); } catch { /* some filesystems refuse directory fsync */ } finally { await handle.close(); }
}
