import type { KeyedRecords } from './types.ts';

/** Records in this process: numbered 1, 2, … in save order, one per (owner, key). */
export function createMemoryRecords<T>(): KeyedRecords<T> {
  let count = 0;
  const byOwner = new Map<string, T[]>();
  const byKey = new Map<string, T>();
  return {
    async save(owner, key, make) {
      const field = key === undefined ? undefined : `${owner}\n${key}`;
      const known = field === undefined ? undefined : byKey.get(field);
      if (known !== undefined) return known;
      count += 1;
      const record = make(count);
      if (field !== undefined) byKey.set(field, record);
      byOwner.set(owner, [...(byOwner.get(owner) ?? []), record]);
      return record;
    },
    async list(owner) {
      return [...(byOwner.get(owner) ?? [])].reverse();
    },
  };
}
