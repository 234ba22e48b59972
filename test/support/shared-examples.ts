import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The official A2UI v0.8 example streams live in `shared/a2ui-examples` beside the checkout.
 * A git worktree sits one level deeper than the main checkout, so the folder is looked up in
 * every ancestor of the repository instead of at a fixed `../shared`.
 */
function findExamplesDir(): string {
  let dir = path.resolve(fileURLToPath(new URL('../../', import.meta.url)));
  for (;;) {
    const candidate = path.join(path.dirname(dir), 'shared', 'a2ui-examples');
    if (existsSync(candidate)) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) return path.resolve(fileURLToPath(new URL('../../../shared/a2ui-examples', import.meta.url)));
    dir = parent;
  }
}

export const SHARED_EXAMPLES_DIR = findExamplesDir();
