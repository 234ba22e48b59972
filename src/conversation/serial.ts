/**
 * Runs tasks one at a time per key (one turn or action per conversation at a time), in arrival
 * order; different keys run concurrently. A failing task does not block the ones behind it.
 */
export interface KeyedQueue {
  run<T>(key: string, task: () => Promise<T>): Promise<T>;
  /** Tasks queued or running for `key`. */
  depth(key: string): number;
}

export function createKeyedQueue(): KeyedQueue {
  const tails = new Map<string, Promise<unknown>>();
  const depths = new Map<string, number>();
  return {
    run(key, task) {
      depths.set(key, (depths.get(key) ?? 0) + 1);
      const previous = tails.get(key) ?? Promise.resolve();
      const result = previous.then(task, task);
      const tail = result.then(() => undefined, () => undefined).finally(() => {
        const left = (depths.get(key) ?? 1) - 1;
        if (left === 0) {
          depths.delete(key);
          if (tails.get(key) === tail) tails.delete(key);
        } else depths.set(key, left);
      });
      tails.set(key, tail);
      return result;
    },
    depth: (key) => depths.get(key) ?? 0,
  };
}
