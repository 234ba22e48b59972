import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const PACKAGE = '@sparticuz/chromium';
const require = createRequire(import.meta.url);
const run = promisify(execFile);

/** Where unpacked browsers live: inside node_modules, so `npm ci` starts afresh and nothing is shared with other users. */
export function npmChromiumCache(projectRoot: string): string {
  return join(projectRoot, 'node_modules', '.cache', 'surfacer');
}

export interface UnpackedChromium {
  executablePath: string;
  fontconfigFile: string;
  /** Set when this call unpacked it (not when it found an earlier unpack). */
  unpackedMs?: number;
}

/** Unpacks the package's compressed files into `stagingDir`; resolves when they are complete. */
export type ChromiumExtractor = (stagingDir: string, projectRoot: string) => Promise<void>;

/** The installed package's version (its exports map hides package.json from require). */
export function npmChromiumVersion(): string {
  for (let dir = dirname(require.resolve(PACKAGE)); dir !== dirname(dir); dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
    if (pkg.name === PACKAGE && pkg.version !== undefined) return pkg.version;
  }
  throw new Error(`cannot find the version of ${PACKAGE}`);
}

/**
 * The package unpacks into os.tmpdir() (/tmp/chromium, /tmp/fonts, …), writing the binary in
 * place: a second process that looks while the first writes would run a truncated file, and
 * every user of the machine shares those names. A child process whose TMPDIR is our private
 * staging directory keeps the unpack ours; the package's own API does the work.
 */
export const extractWithSparticuz: ChromiumExtractor = async (stagingDir, projectRoot) => {
  const script = `const { default: c } = await import('${PACKAGE}'); process.stdout.write(await c.executablePath());`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
    cwd: projectRoot, env: { ...process.env, TMPDIR: stagingDir },
  });
  if (stdout !== join(stagingDir, 'chromium')) throw new Error(`${PACKAGE} unpacked to ${stdout}, not into ${stagingDir}`);
};

/**
 * Its fonts.conf names /tmp/fonts and Chromium reads it only when told to (the package sets
 * FONTCONFIG_PATH on Amazon Linux alone): on a machine without fonts every glyph would be blank.
 * Ours adds the bundled fonts to the machine's own configuration, when there is one.
 */
export function fontconfigXml(dir: string, systemConfig = '/etc/fonts/fonts.conf'): string {
  const xml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return [
    '<?xml version="1.0"?>',
    '<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">',
    '<fontconfig>',
    `  <include ignore_missing="yes">${xml(systemConfig)}</include>`,
    `  <dir>${xml(join(dir, 'fonts'))}</dir>`,
    `  <cachedir>${xml(join(dir, 'fontconfig-cache'))}</cachedir>`,
    '</fontconfig>',
    '',
  ].join('\n');
}

function published(dir: string): UnpackedChromium | undefined {
  const fontconfigFile = join(dir, 'fonts.conf');
  return existsSync(fontconfigFile) ? { executablePath: join(dir, 'chromium'), fontconfigFile } : undefined;
}

/**
 * Unpacks once per package version under `cacheRoot`. The unpack happens in a fresh staging
 * directory published by one rename, so concurrent callers (vitest runs in parallel, other
 * worktrees) never see a half-written browser; a loser of the rename race uses the winner's copy.
 */
export async function unpackNpmChromium(
  cacheRoot: string, projectRoot: string, extract: ChromiumExtractor = extractWithSparticuz, version = npmChromiumVersion(),
): Promise<UnpackedChromium> {
  const dir = join(cacheRoot, `sparticuz-chromium-${version}`);
  const earlier = published(dir);
  if (earlier !== undefined) return earlier;
  mkdirSync(cacheRoot, { recursive: true });
  const staging = mkdtempSync(join(cacheRoot, `.unpacking-${version}-`));
  try {
    const started = performance.now();
    await extract(staging, projectRoot);
    writeFileSync(join(staging, 'fonts.conf'), fontconfigXml(dir));
    try {
      renameSync(staging, dir);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
    }
    const result = published(dir);
    if (result === undefined) throw new Error(`unpacked ${PACKAGE} but ${dir} is incomplete`);
    return { ...result, unpackedMs: Math.round(performance.now() - started) };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
