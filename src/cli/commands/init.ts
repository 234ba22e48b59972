import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { isCheckout, surfacerRoot } from '../../package-root.ts';
import { usageOf } from '../commands-spec.ts';
import type { CliIo } from '../main.ts';

/**
 * `surfacer init [--name NAME] [--surfacer SPEC] DIR`: writes a small working app into DIR from
 * the files in templates/init/ (shipped in the package): package.json, tsconfig.json, src/app.ts,
 * src/server.ts, a ClientSim test and a README. Its `npm install && npm start` serves it.
 *
 * Surfacer is not on the npm registry, so by default the app depends on the very package this
 * command runs from, by a `file:` spec of its directory, and the app's `.npmrc` says how npm
 * installs it:
 * - from the installed package (node_modules/surfacer of some folder), `install-links=true`: npm
 *   copies it into the app's node_modules as it would a registry package, rather than linking to
 *   a directory the app does not own;
 * - from a clone, `install-links=false`: npm links to the clone. A copy would be a snapshot of
 *   whatever dist/ held at the app's first `npm install` (none at all in a fresh clone), and npm
 *   keeps a `file:` copy of the same version on every later install, so a rebuild would never
 *   reach the app. Through the link, every `npm run build` in the clone does. The clone is built
 *   first when its dist/ is missing or older than its sources, as the package's `exports` point
 *   into dist/.
 * `--surfacer` names any other npm spec (a tarball, a version once published); then nothing is built.
 */
const USAGE = usageOf('init');

/** The words of the template that are replaced by the app's own. */
export const APP_NAME_TOKEN = '__APP_NAME__';

/** In the template's npmrc: `true` (copy the package in) or `false` (link to a clone). */
export const INSTALL_LINKS_TOKEN = '__INSTALL_LINKS__';

/** Files npm pack leaves out of a tarball (dot files) are kept under another name in templates/init/. */
const RENAMED: Readonly<Record<string, string>> = { gitignore: '.gitignore', npmrc: '.npmrc' };

/** The development tools the app installs: the versions Surfacer itself is built and tested with. */
const DEV_TOOLS = ['@types/node', 'typescript', 'vitest'] as const;

export interface InitSettings {
  /** The app's name as people read it: the page title. */
  name: string;
  /** The npm package name. */
  packageName: string;
  /** How package.json names surfacer. */
  surfacerSpec: string;
  /** npm links to surfacerSpec's directory (a clone) instead of copying it in. */
  linkSurfacer: boolean;
  /** Exact versions of DEV_TOOLS. */
  devTools: Readonly<Record<string, string>>;
}

export interface TemplateFile {
  /** Relative to the template directory, `/`-separated. */
  path: string;
  contents: string;
}

/** "my-notes" → "My Notes". */
export function displayNameOf(dir: string): string {
  const words = basename(resolve(dir)).split(/[-_.\s]+/).filter((w) => w !== '');
  const name = words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join(' ');
  return name === '' ? 'My App' : name;
}

/** A valid npm package name from a directory name ("My Notes!" → "my-notes"). */
export function packageNameOf(dir: string): string {
  const name = basename(resolve(dir)).toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[._-]+|[-.]+$/g, '').slice(0, 214);
  return name === '' ? 'surfacer-app' : name;
}

/** A TypeScript string literal of `text`, in the single quotes the template uses. */
function tsString(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** Pure: the app's files from the template's, with the app's name and dependencies in. */
export function renderApp(templates: readonly TemplateFile[], settings: InitSettings): TemplateFile[] {
  return templates.map(({ path, contents }) => {
    const target = join(dirname(path), RENAMED[basename(path)] ?? basename(path)).split('\\').join('/');
    if (path === 'package.json') return { path: target, contents: renderPackageJson(contents, settings) };
    if (path.endsWith('.ts')) return { path: target, contents: contents.split(tsString(APP_NAME_TOKEN)).join(tsString(settings.name)) };
    return { path: target, contents: contents.split(APP_NAME_TOKEN).join(settings.name).split(INSTALL_LINKS_TOKEN).join(String(!settings.linkSurfacer)) };
  });
}

function renderPackageJson(template: string, settings: InitSettings): string {
  const pkg = JSON.parse(template) as { name: string; dependencies: Record<string, string>; devDependencies: Record<string, string> };
  pkg.name = settings.packageName;
  pkg.dependencies = { ...pkg.dependencies, surfacer: settings.surfacerSpec };
  pkg.devDependencies = { ...pkg.devDependencies, ...settings.devTools };
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

export function readTemplates(dir: string): TemplateFile[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => {
      const file = join(entry.parentPath, entry.name);
      return { path: relative(dir, file).split('\\').join('/'), contents: readFileSync(file, 'utf8') };
    })
    .sort((a, b) => (a.path < b.path ? -1 : 1));
}

function devToolsOf(root: string): Record<string, string> {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { devDependencies?: Record<string, string> };
  const tools: Record<string, string> = {};
  for (const tool of DEV_TOOLS) {
    const version = pkg.devDependencies?.[tool];
    if (version === undefined) throw new Error(`surfacer's package.json names no ${tool} version`);
    tools[tool] = version;
  }
  return tools;
}

/** Why DIR cannot take a new app, if it cannot. */
function unusable(dir: string): string | undefined {
  if (!existsSync(dir)) return undefined;
  if (!statSync(dir).isDirectory()) return `${dir} exists and is not a directory`;
  const entries = readdirSync(dir);
  return entries.length === 0 ? undefined : `${dir} is not empty (${entries.slice(0, 5).join(', ')}${entries.length > 5 ? ', …' : ''})`;
}

/** What `npm run build` reads: its sources, and the prompts it copies beside them. */
const BUILD_INPUTS = ['src', 'prompts'] as const;

/** Why a checkout's dist/ cannot serve an app as it is (missing, or older than a source), if it cannot. */
export function staleBuild(root: string): string | undefined {
  const built = join(root, 'dist', 'src', 'index.js');
  if (!existsSync(built)) return 'it has no dist/';
  const builtAt = statSync(built).mtimeMs;
  for (const dir of BUILD_INPUTS) {
    if (!existsSync(join(root, dir))) continue;
    for (const entry of readdirSync(join(root, dir), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const file = join(entry.parentPath, entry.name);
      if (statSync(file).mtimeMs > builtAt) return `${relative(root, file).split('\\').join('/')} changed since dist/ was built`;
    }
  }
  return undefined;
}

/** Builds the checkout at `root` as `npm run build` does, its output to `log`; true when it succeeded. */
export type BuildPackage = (root: string, log: Writable) => Promise<boolean>;

const buildPackage: BuildPackage = (root, log) => new Promise((done) => {
  const child = spawn(process.execPath, [join(root, 'scripts', 'build-package.mjs')], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', (chunk: Buffer) => log.write(chunk));
  child.stderr.on('data', (chunk: Buffer) => log.write(chunk));
  child.once('error', (error) => { log.write(`${error.message}\n`); done(false); });
  child.once('close', (code) => done(code === 0));
});

export function run(args: string[], io: CliIo): Promise<number> {
  return runInit(args, io, { root: surfacerRoot(), build: buildPackage });
}

export interface InitDeps {
  /** The package the app is made from: its templates, its tool versions, what the app depends on. */
  root: string;
  build: BuildPackage;
}

/** `run` with the package and the build given: tests make them up rather than build the checkout they run in. */
export async function runInit(args: string[], io: CliIo, deps: InitDeps): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args, allowPositionals: true, options: { name: { type: 'string' }, surfacer: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
  } catch (error) {
    io.stderr.write(`surfacer init: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (parsed.values.help) {
    io.stdout.write(USAGE);
    return 0;
  }
  if (parsed.positionals.length !== 1) {
    io.stderr.write(`surfacer init: ${parsed.positionals.length === 0 ? 'expected DIR, the new app\'s directory' : 'expected one DIR'}\n${USAGE}`);
    return 2;
  }
  const dir = resolve(parsed.positionals[0]!);
  const name = (parsed.values.name ?? displayNameOf(dir)).trim();
  if (name === '' || name.length > 80 || /\p{Cc}/u.test(name)) {
    io.stderr.write(`surfacer init: --name must be 1 to 80 characters, without control characters\n${USAGE}`);
    return 2;
  }
  const spec = parsed.values.surfacer?.trim();
  if (spec === '') {
    io.stderr.write(`surfacer init: --surfacer needs an npm spec, e.g. file:../surfacer-0.1.0.tgz\n${USAGE}`);
    return 2;
  }
  const why = unusable(dir);
  if (why !== undefined) {
    io.stderr.write(`surfacer init: ${why}; choose a new or empty directory\n`);
    return 1;
  }

  const { root } = deps;
  const link = spec === undefined && isCheckout(root);
  const stale = link ? staleBuild(root) : undefined;
  if (stale !== undefined) {
    // Before anything is written: a failed build leaves no app that cannot work.
    io.stderr.write(`surfacer init: building surfacer in ${root} first (${stale}): npm run build\n`);
    if (!await deps.build(root, io.stderr)) {
      io.stderr.write(`surfacer init: the build failed (above); fix it, or run \`npm run build\` in ${root}, then init again\n`);
      return 1;
    }
  }
  const files = renderApp(readTemplates(join(root, 'templates', 'init')), {
    name, packageName: packageNameOf(dir), surfacerSpec: spec ?? `file:${root}`, linkSurfacer: link, devTools: devToolsOf(root),
  });
  for (const file of files) {
    const target = join(dir, ...file.path.split('/'));
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, file.contents, { flag: 'wx' });
  }

  const near = relative(process.cwd(), dir);
  const shown = near === '' ? '.' : near.startsWith('..') ? dir : near;
  const how = spec !== undefined ? '' : link
    ? ' (this clone, linked: its `npm run build` reaches the app; --surfacer to choose another)'
    : ' (this package, copied in by npm install; --surfacer to choose another)';
  const lines = [
    `Wrote ${name} to ${shown}: ${files.map((f) => f.path).sort().join(', ')}`,
    `It depends on surfacer as ${spec ?? `file:${root}`}${how}.`,
    '', 'Next:', `  cd ${shown}`, '  npm install', '  npm test      # type-check, then the ClientSim test',
    '  npm start     # serves http://127.0.0.1:8787: say "a note about the team meeting"',
  ];
  if (link) lines.push(`After changing surfacer itself: \`npm run build\` in ${root}, then restart the app.`);
  io.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}
