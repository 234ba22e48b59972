import { makeError, type SurfacerError } from '../../errors/index.ts';
import { blockKey, childBlocks, stableId, type Block } from '../../ui-ir/index.ts';
import { viewKey } from './field-values.ts';

/**
 * Component ids, the same scheme in every A2UI version: `<surfaceId>.<key>[.<role>].<Type>`,
 * derived from IR structure only (a recompile of the same IR yields the same ids) and ending in
 * the component type, so an id never changes type. Charset `[A-Za-z0-9_.-]` (no `:`, which
 * renderers use for template instances, no `/`).
 */

/** True when `stableId` leaves `s` as it is (every character in `[A-Za-z0-9_-]`). */
function isIdSafe(s: string): boolean {
  for (let i = 0; i < s.length; i += 1) {
    const c = s.charCodeAt(i);
    if (!((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 45)) return false;
  }
  return true;
}

/** One id part as `stableId` writes it; the common already-safe part skips its regex. */
export function idPart(s: string): string {
  return isIdSafe(s) ? s : stableId(s);
}

/** Id bases of one surface's components (an id is a base plus `.<Type>`). */
export class ComponentIds {
  private readonly usedKeys = new Set<string>();
  /** `stableId(surfaceId)`: every id starts with it. */
  private readonly prefix: string;

  constructor(surfaceId: string) {
    this.prefix = stableId(surfaceId);
  }

  /**
   * `stableId(surfaceId, part)`: the id of a block or role, without the type suffix. stableId
   * maps each part on its own and joins them with `.`, so the surface part is done once.
   */
  base(part: string): string {
    return `${this.prefix}.${idPart(part)}`;
  }

  /**
   * The id base of a block, `stableId(surfaceId, key)`; a second input with the same name gets an
   * extra `dup<index path>` part (and a warning: both edit one value).
   */
  unique(block: Block, indexPath: number[], warnings: SurfacerError[]): string {
    const key = blockKey(block, indexPath);
    const before = this.usedKeys.size;
    this.usedKeys.add(key);
    if (this.usedKeys.size !== before) return this.base(key);
    warnings.push(makeError('COMPILER_A2UI_DUPLICATE_FIELD',
      `a second input is bound to the same name (${key}); both edit one value`, { pointer: `/view/blocks/${indexPath.join('/blocks/')}` }));
    return `${this.base(key)}.${idPart(`dup${viewKey(indexPath)}`)}`;
  }
}

/** Context keys owned by ingress (the surface nonce and rev travel in every action's context). */
export const INGRESS_CONTEXT_KEYS: ReadonlyMap<string, string> = new Map([['nonce', 'ingress'], ['rev', 'ingress']]);

/**
 * The field names a button's context lists: every field of the view, in view order, except those
 * whose name is `reserved` (name → what for; each gets a warning and is not sent with actions).
 */
export function contextFieldNames(blocks: readonly Block[], reserved: ReadonlyMap<string, string>, warnings: SurfacerError[]): string[] {
  const names = new Set<string>();
  collectFields(blocks, names);
  const out: string[] = [];
  for (const name of names) {
    const owner = reserved.get(name);
    if (owner !== undefined) {
      warnings.push(makeError('COMPILER_A2UI_CONTEXT_KEY_RESERVED',
        `field "${name}" is not sent in action context: "${name}" is reserved for ${owner}`, { pointer: `/draft/${name}` }));
    } else out.push(name);
  }
  return out;
}

function collectFields(blocks: readonly Block[], names: Set<string>): void {
  for (const b of blocks) {
    if (b.kind === 'field') names.add(b.name);
    else {
      const children = childBlocks(b);
      if (children !== undefined) collectFields(children, names);
    }
  }
}
