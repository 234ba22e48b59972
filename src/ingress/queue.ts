/**
 * Runs tasks one at a time per key (a conversation), in arrival order; different keys run
 * concurrently. This is what makes read-IR → check rev → apply → commit atomic: two submits of
 * one conversation can never both pass the rev check. A failing task does not block the ones
 * behind it, and keys with nothing queued hold no memory.
 */
export interface KeyedQueue {
  run<T>(key: string, task: () => Promise<T>): Promise<T>;
  /** Tasks queued or running for `key`. */
  depth(key: string): number;
  /** Keys with tasks queued or running. */
  readonly keys: number;
}

export function createKeyedQueue(): KeyedQueue {
  const lanes = new Map<string, { tail: Promise<unknown>; depth: number }>();
  return {
    run(key, task) {
      const lane = lanes.get(key) ?? { tail: Promise.resolve(), depth: 0 };
      lanes.set(key, lane);
      lane.depth += 1;
      const result = lane.tail.then(task, task);
      lane.tail = result.then(settled, settled);
      function settled(): void {
        lane.depth -= 1;
        if (lane.depth === 0 && lanes.get(key) === lane) lanes.delete(key);
      }
      return result;
    },
    depth: (key) => lanes.get(key)?.depth ?? 0,
    get keys() { return lanes.size; },
  };
}
