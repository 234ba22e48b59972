import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { createJsonlStore, type JsonlStoreOptions } from '../../src/conversation/index.ts';

/**
 * Temporary log directories and JSONL stores for one test file. After its tests the stores are
 * closed (their open log handles are not left to the garbage collector, which Node warns about
 * and will refuse), then the directories are removed.
 */
export function jsonlTestFiles(prefix: string): {
  tempDir(): string;
  jsonlStore(options: JsonlStoreOptions): ReturnType<typeof createJsonlStore>;
} {
  const dirs: string[] = [];
  const stores: Array<ReturnType<typeof createJsonlStore>> = [];
  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close()));
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  return {
    tempDir() {
      const dir = mkdtempSync(join(tmpdir(), prefix));
      dirs.push(dir);
      return dir;
    },
    jsonlStore(options) {
      const store = createJsonlStore(options);
      stores.push(store);
      return store;
    },
  };
}
