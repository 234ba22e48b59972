import { spawnSync } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Where the browser tests' Chromium came from, and what its process needs in its environment. */
export interface FoundChromium {
  source: 'SURFACER_CHROMIUM' | 'system' | '@sparticuz/chromium';
  executablePath: string;
  /** Added to the browser's environment (the npm Chromium's font configuration). */
  env: Record<string, string>;
}

export interface ChromiumProbes {
  env: NodeJS.ProcessEnv;
  isExecutableFile: (path: string) => boolean;
  /** Whether `path --version` runs and exits 0 (a snap stub or a broken install does not). */
  answersVersion: (path: string) => boolean;
  /** Unpacks (or reuses) the Chromium that @sparticuz/chromium ships in its tarball. */
  unpackNpmChromium: () => Promise<{ executablePath: string; fontconfigFile: string }>;
}

/** Debian's package installs /usr/bin/chromium; a PATH without /usr/bin still finds it there. */
const SYSTEM_FALLBACK = '/usr/bin/chromium';

/**
 * SURFACER_CHROMIUM if set, else a system `chromium` that runs, else the npm one. A
 * SURFACER_CHROMIUM that is not an executable file is an error rather than a silent fallback:
 * whoever set it meant it. A system `chromium` that does not run (Ubuntu's snap stub without the
 * snap) is passed over. SURFACER_SYSTEM_CHROMIUM=0 passes over every system one, so a machine
 * that has one can still test what a machine without one does (the clean-clone test): the PATH
 * alone cannot hide Debian's /usr/bin/chromium.
 */
export async function findChromium(probes: ChromiumProbes): Promise<FoundChromium> {
  const override = probes.env['SURFACER_CHROMIUM'];
  if (override !== undefined && override !== '') {
    if (!probes.isExecutableFile(override)) throw new Error(`SURFACER_CHROMIUM=${override} is not an executable file`);
    return { source: 'SURFACER_CHROMIUM', executablePath: override, env: {} };
  }
  const onPath = (probes.env['PATH'] ?? '').split(delimiter).filter((dir) => dir !== '').map((dir) => join(dir, 'chromium'));
  const candidates = probes.env['SURFACER_SYSTEM_CHROMIUM'] === '0' ? [] : [...onPath, SYSTEM_FALLBACK];
  const system = candidates.find((path) => probes.isExecutableFile(path) && probes.answersVersion(path));
  if (system !== undefined) return { source: 'system', executablePath: system, env: {} };
  const npm = await probes.unpackNpmChromium();
  return { source: '@sparticuz/chromium', executablePath: npm.executablePath, env: { FONTCONFIG_FILE: npm.fontconfigFile } };
}

export function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

export function answersVersion(path: string): boolean {
  const run = spawnSync(path, ['--version'], { timeout: 15_000, stdio: 'ignore' });
  return run.error === undefined && run.status === 0;
}
