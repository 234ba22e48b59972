import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { usageOf } from '../commands-spec.ts';
import type { CliIo } from '../main.ts';

/**
 * `surfacer init [--name NAME] [--surfacer SPEC] DIR`: writes a small working app into DIR from
 * the files in templates/init/ (shipped in the package): package.json, tsconfig.json, src/app.ts,
 * src/server.ts, a ClientSim test and a README. Its `npm install && npm start` serves it.
 *
 * Surfacer is not on the npm registry, so by default the app depends on the very package this
 * command runs from, by a `file:` spec of its directory, and the app's `.npmrc` says
 * `install-links=true`: npm then copies that package into the app's node_modules as it would a
 * registry package (its dependencies from the registry), rather than linking to a directory the
 * app does not own. `--surfacer` names any other npm spec (a tarball, a version once published).
 */
const USAGE = usageOf('init');

/** The words of the template that are replaced by the app's own. */
export const APP_NAME_TOKEN = '__APP_NAME__';

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
    return { path: target, contents: contents.split(APP_NAME_TOKEN).join(settings.name) };
  });
}

function renderPackageJson(template: string, settings: InitSettings): string {
  const pkg = JSON.parse(template) as { name: string; dependencies: Record<string, string>; devDependencies: Record<string, string> };
  pkg.name = settings.packageName;
  pkg.dependencies = { ...pkg.dependencies, surfacer: settings.surfacerSpec };
  pkg.devDependencies = { ...pkg.devDependencies, ...settings.devTools };
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

/** This package's root: the nearest directory above this module whose package.json is surfacer's. */
export function surfacerRoot(from: string = dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === 'surfacer') return dir;
    if (dirname(dir) === dir) throw new Error(`no surfacer package.json above ${from}`);
  }
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

export async function run(args: string[], io: CliIo): Promise<number> {
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

  const root = surfacerRoot();
  const files = renderApp(readTemplates(join(root, 'templates', 'init')), {
    name, packageName: packageNameOf(dir), surfacerSpec: spec ?? `file:${root}`, devTools: devToolsOf(root),
  });
  for (const file of files) {
    const target = join(dir, ...file.path.split('/'));
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, file.contents, { flag: 'wx' });
  }

  const near = relative(process.cwd(), dir);
  const shown = near === '' ? '.' : near.startsWith('..') ? dir : near;
  const lines = [
    `Wrote ${name} to ${shown}: ${files.map((f) => f.path).sort().join(', ')}`,
    `It depends on surfacer as ${spec ?? `file:${root}`}${spec === undefined ? ' (this package; --surfacer to choose another)' : ''}.`,
  ];
  if (spec === undefined && !existsSync(join(root, 'dist', 'src', 'index.js'))) {
    // A checkout runs its sources; the app installs the built package.
    lines.push(`This checkout is not built yet: run \`npm run build\` in ${root} before the app's \`npm install\`.`);
  }
  lines.push('', 'Next:', `  cd ${shown}`, '  npm install', '  npm start     # serves http://127.0.0.1:8787', '  npm test      # the ClientSim test');
  io.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}
