/**
 * Another build of this repository beside the current one, for benches that compare two builds
 * in the same run (BENCH_COMPARE in bench/http-actions.ts, PROFILE_BUILD in
 * bench/profile-actions.ts). Not a bench (the leading `_` keeps bench/run.ts away).
 *
 * `spec` is a directory holding a checkout (used as it is), or anything `git rev-parse` takes
 * for a commit: that commit is checked out as a detached git worktree in a temporary folder,
 * with this tree's node_modules symlinked into it (nothing is installed), and `dispose()`
 * removes the worktree again. Dispose is also run on SIGINT/SIGTERM, so an interrupted bench
 * leaves no worktree behind.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The checkout this file belongs to. */
export const CURRENT_ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));

export interface OtherBuild { root: string; label: string; dispose(): void }

export function openBuild(spec: string): OtherBuild {
  if (existsSync(spec) && statSync(spec).isDirectory()) {
    const root = resolve(spec);
    return { root, label: root, dispose: () => {} };
  }
  const git = (...args: string[]): string => execFileSync('git', ['-C', CURRENT_ROOT, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  const commit = git('rev-parse', '--verify', `${spec}^{commit}`);
  const parent = mkdtempSync(join(tmpdir(), 'surfacer-build-'));
  const root = join(parent, 'tree');
  let disposed = false;
  const dispose = (): void => {
    if (disposed) return;
    disposed = true;
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    try { git('worktree', 'remove', '--force', root); } catch { /* not created, or already gone */ }
    rmSync(parent, { recursive: true, force: true });
    try { git('worktree', 'prune'); } catch { /* nothing to prune */ }
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    dispose();
    process.kill(process.pid, signal);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    git('worktree', 'add', '--detach', root, commit);
    symlinkSync(join(CURRENT_ROOT, 'node_modules'), join(root, 'node_modules'), 'dir');
  } catch (error) {
    dispose();
    throw error;
  }
  return { root, label: commit.startsWith(spec) ? commit.slice(0, 7) : `${spec} (${commit.slice(0, 7)})`, dispose };
}
