/*
 * How deep a message may nest, as the official A2UI agent-SDK validator counts it
 * (agent_sdks/python, MAX_GLOBAL_DEPTH): the message itself is depth 0, every value inside an
 * object or an array is one deeper than its container, scalars included, and a value deeper
 * than 50 refuses the message ("Global recursion limit exceeded"). Its conformance suite
 * refuses a v0.9 updateDataModel whose value nests 56 objects.
 */
export const A2UI_MAX_MESSAGE_DEPTH = 50;

/**
 * The path from `value` (itself at `depth`) to the first value deeper than `limit`, or undefined
 * when none is. Iterative (a hostile stream may nest far beyond the stack), and it stops at the
 * first finding; a subtree that cannot reach the limit is still walked, as its size bounds it.
 */
export function pathBeyondDepth(value: unknown, depth: number, limit = A2UI_MAX_MESSAGE_DEPTH): (string | number)[] | undefined {
  if (depth > limit) return [];
  if (typeof value !== 'object' || value === null) return undefined;
  const values: unknown[] = [value];
  const depths: number[] = [depth];
  const parents: number[] = [-1];
  const keys: (string | number)[] = [''];
  const stack: number[] = [0];
  const pathTo = (node: number, last: string | number): (string | number)[] => {
    const tail: (string | number)[] = [last];
    for (let n = node; n > 0; n = parents[n]!) tail.push(keys[n]!);
    return tail.reverse();
  };
  while (stack.length > 0) {
    const node = stack.pop()!;
    const v = values[node] as object;
    const childDepth = depths[node]! + 1;
    const entries: [string | number, unknown][] = Array.isArray(v) ? v.map((x, i) => [i, x]) : Object.entries(v);
    for (const [key, child] of entries) {
      if (childDepth > limit) return pathTo(node, key);
      if (typeof child === 'object' && child !== null) {
        stack.push(values.length);
        values.push(child);
        depths.push(childDepth);
        parents.push(node);
        keys.push(key);
      }
    }
  }
  return undefined;
}
