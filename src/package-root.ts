import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/*
 * Where this package is on disk and what it is: the one place that knows. The same module runs
 * from src/ in a checkout and from dist/src/ in the installed package, so the root is found by
 * walking up rather than by a fixed number of `..`.
 */

/** This package's root: the nearest directory above `from` whose package.json is surfacer's. */
export function surfacerRoot(from: string = dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === 'surfacer') return dir;
    if (dirname(dir) === dir) throw new Error(`no surfacer package.json above ${from}`);
  }
}

/**
 * A checkout (a clone, with the TypeScript sources) rather than the installed package, which
 * ships only dist/: the same test bin/surfacer.mjs makes to choose between them.
 */
export function isCheckout(root: string): boolean {
  return existsSync(join(root, 'src', 'cli', 'bin.ts'));
}

/** This package's version, from its package.json. */
export function surfacerVersion(root: string = surfacerRoot()): string {
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version?: unknown };
  return typeof version === 'string' ? version : 'unknown';
}
