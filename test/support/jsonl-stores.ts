import { afterAll } from 'vitest';
import { createJsonlStore, type JsonlStoreOptions } from '../../src/conversation/index.ts';

/**
 * `createJsonlStore` for tests: every store made here is closed after the file's tests, so its
 * open log handles are not left to the garbage collector (Node warns, and will throw, on that).
 */
export function closingJsonlStores(): (options: JsonlStoreOptions) => ReturnType<typeof createJsonlStore> {
  const stores: Array<ReturnType<typeof createJsonlStore>> = [];
  afterAll(async () => { await Promise.all(stores.map((store) => store.close())); });
  return (options) => {
    const store = createJsonlStore(options);
    stores.push(store);
    return store;
  };
}
