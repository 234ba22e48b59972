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

type Lane = { tail: Promise<unknown>; depth: number };

/**
 * The end of one task of `lane`. Made by a module function and not declared inside `run`: under
 * tsx (esbuild keepNames, how a checkout runs) every function bound to a name inside a function
 * is named again at each call, one Object.defineProperty each, which added up to a few µs per
 * action on the hot path (this queue, the form and context parsers, commit's normalisation).
 */
function settledOf(lanes: Map<string, Lane>, key: string, lane: Lane): () => void {
  return () => {
    lane.depth -= 1;
    if (lane.depth === 0 && lanes.get(key) === lane) lanes.delete(key);
  };
}

export function createKeyedQueue(): KeyedQueue {
  const lanes = new Map<string, Lane>();
  return {
    run(key, task) {
      const lane = lanes.get(key) ?? { tail: Promise.resolve(), depth: 0 };
      lanes.set(key, lane);
      lane.depth += 1;
      const result = lane.tail.then(task, task);
      const settled = settledOf(lanes, key, lane);
      lane.tail = result.then(settled, settled);
      return result;
    },
    depth: (key) => lanes.get(key)?.depth ?? 0,
    get keys() { return lanes.size; },
  };
}
