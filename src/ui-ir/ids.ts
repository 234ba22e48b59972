import { childBlocks, type Block } from './schema.ts';

/**
 * Stable ids derived from IR structure. Parts are joined with `.`; anything outside
 * `[A-Za-z0-9_-]` becomes `_`. Never `:` (A2UI template instances use it).
 */
export function stableId(...parts: ReadonlyArray<string | number>): string {
  return parts.map((p) => String(p).replace(/[^A-Za-z0-9_-]/g, '_')).join('.');
}

/**
 * A block's key within its surface. Inputs, lists, tables and components are keyed by their name so they keep their
 * ids when blocks are reordered; other blocks by their index path.
 */
export function blockKey(block: Block, indexPath: readonly number[]): string {
  switch (block.kind) {
    case 'field': return `f-${block.name}`;
    case 'upload': return `u-${block.name}`;
    case 'list': return `l-${block.name}`;
    case 'component': return `c-${block.name}`;
    case 'table': return `t-${block.name}`;
    default: return `b${indexPath.join('-')}`;
  }
}

/** Visits every block depth-first with its index path. */
export function walkBlocks(
  blocks: readonly Block[],
  visit: (block: Block, indexPath: number[]) => void,
  prefix: number[] = [],
): void {
  blocks.forEach((block, i) => {
    const indexPath = [...prefix, i];
    visit(block, indexPath);
    const children = childBlocks(block);
    if (children !== undefined) walkBlocks(children, visit, indexPath);
  });
}
