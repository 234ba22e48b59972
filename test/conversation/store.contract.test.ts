import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  AppendConflictError, createMemoryStore, parseLog, type ConversationStore, type JsonlStoreOptions, type LogEntry,
} from '../../src/conversation/index.ts';
import { jsonlTestFiles } from '../support/jsonl-stores.ts';
import { sequential } from '../support/log-writer.ts';
import { redisForTestFile } from '../support/redis-server.ts';

const files = jsonlTestFiles('surfacer-store-');
const { tempDir } = files;
const jsonlStore = (options: JsonlStoreOptions) => sequential(files.jsonlStore(options));

const redis = redisForTestFile();
let prefixes = 0;
/** A fresh key space on the test's Redis per store: the contract's conversation ids repeat. */
const redisStore = (): ConversationStore => redis.backend({ prefix: `t${(prefixes += 1)}:` }).store;

const created = (cid: string, owner = 'owner'): LogEntry => ({ type: 'created', v: 1, cid, ownerSessionId: owner, a2uiToken: 't'.repeat(32), at: '2026-01-01T00:00:00.000Z' });
const reset = (n: number): LogEntry => ({
  type: 'reset', v: 1, at: `2026-01-01T00:00:0${n}.000Z`, surfaceId: 'main', reason: `r${n}`,
  draws: [{ kind: 'now', value: 'x' }, { kind: 'nonce', value: 'y' }], irHash: 'A'.repeat(43),
});

// One contract, every implementation (style.md §8).
describe.each<[string, () => ConversationStore]>([
  ['memory', () => createMemoryStore()],
  ['jsonl', () => files.jsonlStore({ dir: tempDir() })],
  ['redis', () => redisStore()],
])('conversation store contract (%s)', (_name, makeStore) => {
  const make = () => sequential(makeStore());
  it('appends and reads back entries in order', async () => {
    const store = make();
    await store.append('c1', created('c1'));
    await store.append('c1', reset(1));
    await store.append('c1', reset(2));
    expect(await store.read('c1')).toEqual([created('c1'), reset(1), reset(2)]);
  });

  it('keeps conversations apart and says undefined for unknown ones', async () => {
    const store = make();
    await store.append('a', created('a'));
    await store.append('b', created('b'));
    await store.append('b', reset(1));
    expect(await store.read('a')).toHaveLength(1);
    expect(await store.read('b')).toHaveLength(2);
    expect(await store.read('zzz')).toBeUndefined();
    expect(await store.read('../etc/passwd')).toBeUndefined();
  });

  it('returns copies: callers cannot change stored entries', async () => {
    const store = make();
    await store.append('c', created('c'));
    const [entry] = (await store.read('c'))!;
    (entry as { ownerSessionId: string }).ownerSessionId = 'mallory';
    expect((await store.read('c'))![0]).toEqual(created('c'));
  });

  it('appends only at the version the writer folded: a writer that is behind writes nothing', async () => {
    const store = makeStore();
    await store.append('c', created('c'), 0);
    await store.append('c', reset(1), 1);
    // Another writer folded version 1 too, and decided after the first one appended.
    await expect(store.append('c', reset(2), 1)).rejects.toBeInstanceOf(AppendConflictError);
    await expect(store.append('c', created('c'), 0)).rejects.toBeInstanceOf(AppendConflictError);
    expect(await store.read('c')).toEqual([created('c'), reset(1)]);
    await store.append('c', reset(2), 2);
    expect(await store.read('c')).toEqual([created('c'), reset(1), reset(2)]);
  });

  it('reads the entries after a version', async () => {
    const store = make();
    await store.append('c', created('c'));
    await store.append('c', reset(1));
    await store.append('c', reset(2));
    expect(await store.read('c', 1)).toEqual([reset(1), reset(2)]);
    expect(await store.read('c', 3)).toEqual([]);
  });

  it('keeps the latest checkpoint per conversation, whole, beside the log (which it leaves as it is)', async () => {
    const store = make();
    const checkpoints = store.checkpoints!;
    await store.append('c1', created('c1'));
    await store.append('c1', reset(1));
    expect(await checkpoints.read('c1')).toBeUndefined();
    expect(await checkpoints.readChunks('c1', 2)).toEqual([undefined, undefined]);
    const big = `${'{"x":1}\n'.repeat(20_000)}`;
    await checkpoints.write('c1', 'first\n', [{ index: 0, text: '[0]' }]);
    await checkpoints.write('c2', 'other\n', []);
    expect(await checkpoints.read('c1')).toBe('first\n');
    // Chunks are kept across heads; a later write adds (or replaces) only those it names.
    await checkpoints.write('c1', big, [{ index: 1, text: '[1]' }]);
    expect(await checkpoints.read('c1')).toBe(big);
    expect(await checkpoints.readChunks('c1', 3)).toEqual(['[0]', '[1]', undefined]);
    await checkpoints.write('c1', 'third\n', [{ index: 0, text: '[zero]' }]);
    expect(await checkpoints.readChunks('c1', 2)).toEqual(['[zero]', '[1]']);
    expect(await checkpoints.read('c2')).toBe('other\n');
    expect(await checkpoints.readChunks('c2', 0)).toEqual([]);
    expect(await store.read('c1')).toEqual([created('c1'), reset(1)]);
  });

  it('counts the conversations each owner created', async () => {
    const store = make();
    await store.append('a', created('a'));
    await store.append('b', created('b'));
    await store.append('x', created('x', 'other'));
    await store.append('a', reset(1));
    expect(await store.countOwnedBy('owner')).toBe(2);
    expect(await store.countOwnedBy('other')).toBe(1);
    expect(await store.countOwnedBy('nobody')).toBe(0);
  });
});

describe('JSONL store: owners after a restart', () => {
  it('counts conversations created before the restart, and those created after it, once each', async () => {
    const dir = tempDir();
    const first = jsonlStore({ dir });
    await first.append('a', created('a'));
    await first.append('b', created('b'));
    await first.close();
    const second = jsonlStore({ dir });
    const counting = second.countOwnedBy('owner');
    await second.append('c', created('c'));
    expect(await counting).toBeGreaterThanOrEqual(2);
    expect(await second.countOwnedBy('owner')).toBe(3);
  });
});

describe('JSONL store on disk', () => {
  it('keeps every conversation in order when more are written than it keeps open', async () => {
    const dir = tempDir();
    const store = jsonlStore({ dir, fsync: false });
    const cids = Array.from({ length: 200 }, (_, i) => `c${i}`);
    await Promise.all(cids.map((cid) => store.append(cid, created(cid))));
    // Interleaved, unawaited: each conversation's appends still land in call order.
    await Promise.all([1, 2, 3].flatMap((n) => cids.map((cid) => store.append(cid, reset(n)))));
    await store.close();
    const reread = jsonlStore({ dir });
    for (const cid of [cids[0]!, cids[99]!, cids[199]!]) expect(await reread.read(cid)).toEqual([created(cid), reset(1), reset(2), reset(3)]);
  });

  it('writes one JSON object per line and refuses to create a conversation twice', async () => {
    const dir = tempDir();
    const store = jsonlStore({ dir });
    await store.append('c1', created('c1'));
    await store.append('c1', reset(1));
    const lines = readFileSync(join(dir, 'c1.jsonl'), 'utf8').split('\n');
    expect(lines).toHaveLength(3);
    expect(JSON.parse(lines[0]!)).toEqual(created('c1'));
    expect(lines[2]).toBe('');
    await expect(store.append('c1', created('c1'))).rejects.toThrow();
    await expect(store.append('../x', created('x'))).rejects.toThrow(/invalid conversation id/);
  });

  it('drops a torn last line (a crash mid-append) and appends cleanly after it', async () => {
    const dir = tempDir();
    const store = jsonlStore({ dir });
    await store.append('c1', created('c1'));
    await store.append('c1', reset(1));
    appendFileSync(join(dir, 'c1.jsonl'), JSON.stringify(reset(2)).slice(0, 40));
    expect(await store.read('c1')).toEqual([created('c1'), reset(1)]);
    await store.append('c1', reset(3));
    expect(await jsonlStore({ dir }).read('c1')).toEqual([created('c1'), reset(1), reset(3)]);
  });

  it('refuses a corrupt line in the middle', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'c1.jsonl'), `${JSON.stringify(created('c1'))}\n{"nope":1}\n${JSON.stringify(reset(1))}\n`);
    await expect(jsonlStore({ dir }).read('c1')).rejects.toThrow(/line 2 is corrupt/);
    expect(parseLog('').entries).toEqual([]);
  });
});

/**
 * An `fs` seam whose handles fail on demand: `fail.write` writes half the data and then throws
 * ENOSPC (a write that stopped partway), `fail.sync` lets the write through and throws EIO on
 * fdatasync, `fail.truncate` refuses the rollback. Each flag is spent by the failure it causes.
 */
function faultyFs(): { fs: NonNullable<JsonlStoreOptions['fs']>; fail: { write: boolean; sync: boolean; truncate: boolean } } {
  const fail = { write: false, sync: false, truncate: false };
  const errno = (code: string): NodeJS.ErrnoException => Object.assign(new Error(`${code}: injected`), { code });
  const wrap = (handle: FileHandle): FileHandle => new Proxy(handle, {
    get(target, prop) {
      if (prop === 'appendFile' && fail.write) {
        return async (data: string) => {
          fail.write = false;
          await target.write(data.slice(0, Math.floor(data.length / 2)));
          throw errno('ENOSPC');
        };
      }
      if (prop === 'datasync' && fail.sync) return async () => { fail.sync = false; throw errno('EIO'); };
      if (prop === 'truncate' && fail.truncate) return async () => { fail.truncate = false; throw errno('EIO'); };
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { fail, fs: { open: async (path, flags) => wrap(await open(path, flags)) } };
}

describe('JSONL store: a failed append leaves no trace', () => {
  it('cuts a write that failed partway, appends after it and reads every acknowledged entry after a restart', async () => {
    const dir = tempDir();
    const { fs, fail } = faultyFs();
    const store = jsonlStore({ dir, fs });
    await store.append('c1', created('c1'));
    await store.append('c1', reset(1));
    const before = readFileSync(join(dir, 'c1.jsonl'), 'utf8');
    fail.write = true;
    await expect(store.append('c1', reset(2))).rejects.toThrow(/ENOSPC/);
    expect(readFileSync(join(dir, 'c1.jsonl'), 'utf8')).toBe(before);
    await store.append('c1', reset(3));
    await store.close();
    expect(await jsonlStore({ dir }).read('c1')).toEqual([created('c1'), reset(1), reset(3)]);
  });

  it('cuts an entry whose write succeeded but whose fsync failed (reported failed, never replayed)', async () => {
    const dir = tempDir();
    const { fs, fail } = faultyFs();
    const store = jsonlStore({ dir, fs });
    await store.append('c1', created('c1'));
    const before = readFileSync(join(dir, 'c1.jsonl'), 'utf8');
    fail.sync = true;
    await expect(store.append('c1', reset(1))).rejects.toThrow(/EIO/);
    expect(readFileSync(join(dir, 'c1.jsonl'), 'utf8')).toBe(before);
    expect(await store.read('c1')).toEqual([created('c1')]);
    await store.append('c1', reset(2));
    await store.close();
    expect(await jsonlStore({ dir }).read('c1')).toEqual([created('c1'), reset(2)]);
  });

  it('retries a failed cut before the next append', async () => {
    const dir = tempDir();
    const { fs, fail } = faultyFs();
    const store = jsonlStore({ dir, fs });
    await store.append('c1', created('c1'));
    Object.assign(fail, { write: true, truncate: true });
    await expect(store.append('c1', reset(1))).rejects.toThrow(/ENOSPC/);
    await store.append('c1', reset(2));
    await store.close();
    expect(await jsonlStore({ dir }).read('c1')).toEqual([created('c1'), reset(2)]);
  });

  it('removes a conversation whose first entry failed, so it can be created again', async () => {
    const dir = tempDir();
    const { fs, fail } = faultyFs();
    const store = jsonlStore({ dir, fs });
    fail.write = true;
    await expect(store.append('c1', created('c1'))).rejects.toThrow(/ENOSPC/);
    expect(await store.read('c1')).toBeUndefined();
    await store.append('c1', created('c1'));
    expect(await jsonlStore({ dir }).read('c1')).toEqual([created('c1')]);
  });
});
