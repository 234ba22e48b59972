/**
 * Runs tasks one at a time per key (a conversation), in arrival order. This is what makes
 * read-IR → check rev → apply → commit atomic: two submits of one conversation can never
 * both pass the rev check. Keys with nothing queued hold no memory.
 */
export function createKeyedQueue(): { run<T>(key: string, task: () => Promise<T>): Promise<T>; readonly pending: number } {
  const tails = new Map<string, Promise<unknown>>();
  return {
    get pending() { return tails.size; },
    run<T>(key: string, task: () => Promise<T>): Promise<T> {
      const previous = tails.get(key) ?? Promise.resolve();
      const result = previous.then(task, task);
      const tail = result.then(() => undefined, () => undefined);
      tails.set(key, tail);
      void tail.then(() => { if (tails.get(key) === tail) tails.delete(key); });
      return result;
    },
  };
}
