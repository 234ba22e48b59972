import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { skipUnless } from './skip-reason.ts';

/*
 * The official A2UI v0.8 example streams are not part of the repository. They are found at
 * SURFACER_A2UI_EXAMPLES when it is set (a missing folder there is an error: it was asked for),
 * otherwise at `shared/a2ui-examples` beside the checkout. A git worktree sits one level deeper
 * than the main checkout, so that folder is looked up beside every ancestor of the repository.
 * When neither is there, the suites that need the streams are skipped with EXAMPLES_SKIP's
 * reason; a bare clone still passes its suite.
 */
function findExamplesDir(): string | undefined {
  const fromEnv = process.env['SURFACER_A2UI_EXAMPLES'];
  if (fromEnv !== undefined && fromEnv !== '') {
    const dir = path.resolve(fromEnv);
    if (!existsSync(path.join(dir, 'minimal'))) throw new Error(`SURFACER_A2UI_EXAMPLES=${fromEnv}: no minimal/ folder of A2UI v0.8 example streams there`);
    return dir;
  }
  let dir = path.resolve(fileURLToPath(new URL('../../', import.meta.url)));
  for (;;) {
    const candidate = path.join(path.dirname(dir), 'shared', 'a2ui-examples');
    if (existsSync(candidate)) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** The folder holding `minimal/` and `basic/`, or undefined when the streams are not here. */
export const SHARED_EXAMPLES_DIR: string | undefined = findExamplesDir();

/** `describe(name, EXAMPLES_SKIP, fn)`: runs when the streams are here, skipped with the reason otherwise. */
export const EXAMPLES_SKIP = skipUnless(SHARED_EXAMPLES_DIR === undefined
  ? 'the official A2UI v0.8 example streams are not here (set SURFACER_A2UI_EXAMPLES to their folder, or put them in ../shared/a2ui-examples)'
  : undefined);
