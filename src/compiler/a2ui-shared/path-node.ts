/**
 * A location inside a message, as a linked list: one small object per level on the way down,
 * turned into pointer tokens only when a finding is reported. The validator walks every
 * property of every component; copying token arrays at each level cost more than the checks.
 */
export interface PathNode {
  readonly parent: PathNode | undefined;
  readonly key: string | number;
}

export function at(parent: PathNode | undefined, key: string | number): PathNode {
  return { parent, key };
}

export function tokensOf(node: PathNode | undefined): (string | number)[] {
  const out: (string | number)[] = [];
  for (let n = node; n !== undefined; n = n.parent) out.push(n.key);
  return out.reverse();
}
