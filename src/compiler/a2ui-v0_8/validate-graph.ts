import type { PathNode } from '../a2ui-shared/index.ts';
import type { Issue } from './validate-props.ts';

// The component graph of one surfaceUpdate: cycles, nesting depth, reachability. Iterative,
// so adversarial nesting cannot overflow the stack.

/** One component of a surfaceUpdate: its references, and the graph walk's bookkeeping. */
export interface GraphNode {
  id: string;
  kids: readonly string[];
  /** `kids` resolved to the nodes of the same message (dangling and self references left out). */
  nodes: readonly GraphNode[];
  /** Index in the message's components (locations are built only for findings). */
  j: number;
  type: string;
  props: Record<string, unknown>;
  state: 0 | 1 | 2;
  depth: number;
  next: number;
  /** Reachability mark (the root's walk number). */
  seen: number;
}

/** Cycles (self loops are reported by the caller and left out of `nodes`) and the longest chain. */
export function checkGraph(nodes: readonly GraphNode[], maxDepth: number, issue: Issue, at: PathNode): void {
  let cyclic = false;
  let deepest: GraphNode | undefined;
  for (let r = 0; r < nodes.length; r += 1) {
    const root = nodes[r]!;
    if (root.state !== 0) continue;
    const stack: GraphNode[] = [root];
    root.state = 1;
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      if (top.next < top.nodes.length) {
        const child = top.nodes[top.next++]!;
        if (child.state === 1) {
          cyclic = true;
          const ids = stack.map((n) => n.id);
          issue('A2UI_S2C_CYCLE', `components form a cycle: ${[...ids.slice(ids.indexOf(child.id)), child.id].join(' → ')}`, at);
        } else if (child.state === 0) {
          child.state = 1;
          stack.push(child);
        }
      } else {
        let d = 1;
        const kids = top.nodes;
        for (let k = 0; k < kids.length; k += 1) if (kids[k]!.depth + 1 > d) d = kids[k]!.depth + 1;
        top.depth = d;
        top.state = 2;
        if (deepest === undefined || d > deepest.depth) deepest = top;
        stack.pop();
      }
    }
  }
  if (!cyclic && deepest !== undefined && deepest.depth > maxDepth) {
    issue('A2UI_S2C_NESTING_TOO_DEEP', `nesting below "${deepest.id}" is ${deepest.depth} levels, more than ${maxDepth}`, at);
  }
}

export /** Marks every node reachable from `root` with `mark` (a number unique per walk). */
function markReachable(root: GraphNode | undefined, mark: number): void {
  if (root === undefined) return;
  root.seen = mark;
  const stack = [root];
  while (stack.length > 0) {
    const kids = stack.pop()!.nodes;
    for (let k = 0; k < kids.length; k += 1) {
      const child = kids[k]!;
      if (child.seen !== mark) { child.seen = mark; stack.push(child); }
    }
  }
}

