import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { displayNameOf, packageNameOf, readTemplates, renderApp, runInit, staleBuild, type BuildPackage } from '../../src/cli/commands/init.ts';
import { surfacerRoot } from '../../src/package-root.ts';
import { a2uiWire, createClientSim, createSurfacer, type AppDefinition } from '../../src/index.ts';
import { memoryIo } from '../support/cli-io.ts';

/*
 * `surfacer init` in process: the files it writes, the names and dependencies it puts in them,
 * what it refuses; then the app it wrote, imported as it is (its `surfacer` is this checkout's
 * sources, through the vitest alias) and served. The package init makes the app from is made up
 * here (a copy of this one's package.json and templates, as a clone or as the installed package)
 * and its build recorded, so no test builds this checkout. test/package/pack.test.ts runs it for
 * real: from the installed package and from an unbuilt clone, the app's npm install, npm test and
 * npm start.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const work = mkdtempSync(join(tmpdir(), 'surfacer-init-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const EXPECTED_FILES = ['.gitignore', '.npmrc', 'README.md', 'package.json', 'src/app.ts', 'src/server.ts', 'test/app.test.ts', 'tsconfig.json'];

/** A surfacer package to make apps from: a clone (sources, built or not) or the installed package (dist/ only). */
function fakePackage(name: string, shape: { checkout: boolean; built: boolean }): string {
  const root = join(work, 'packages', name);
  mkdirSync(root, { recursive: true });
  cpSync(join(ROOT, 'package.json'), join(root, 'package.json'));
  cpSync(join(ROOT, 'templates/init'), join(root, 'templates/init'), { recursive: true });
  if (shape.checkout) writeSource(root, 'src/cli/bin.ts');
  if (shape.built) writeBuild(root);
  return root;
}

function writeSource(root: string, file: string): void {
  mkdirSync(join(root, file, '..'), { recursive: true });
  writeFileSync(join(root, file), '');
}

/** What a build leaves that init looks at; dated after every source. */
function writeBuild(root: string): void {
  mkdirSync(join(root, 'dist/src'), { recursive: true });
  writeFileSync(join(root, 'dist/src/index.js'), '');
  const later = new Date(Date.now() + 60_000);
  utimesSync(join(root, 'dist/src/index.js'), later, later);
}

/** A build double: records the roots it was asked to build, and builds (or fails) as told. */
function recordingBuild(outcome: 'builds' | 'fails' = 'builds'): BuildPackage & { roots: string[] } {
  const roots: string[] = [];
  const build = async (root: string, log: { write: (text: string) => unknown }): Promise<boolean> => {
    roots.push(root);
    log.write('tsc: dist/src\n');
    if (outcome === 'builds') writeBuild(root);
    return outcome === 'builds';
  };
  return Object.assign(build, { roots });
}

const CLONE = fakePackage('clone', { checkout: true, built: true });

async function init(args: string[], root = CLONE, build = recordingBuild()): Promise<{ code: number; out: string; err: string }> {
  const io = memoryIo();
  const code = await runInit(args, io, { root, build });
  return { code, out: io.out(), err: io.err() };
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1).split('\\').join('/'))
    .sort();
}

type Pkg = { name: string; scripts: Record<string, string>; dependencies: Record<string, string>; devDependencies: Record<string, string> };
const readJson = <T>(file: string): T => JSON.parse(readFileSync(file, 'utf8')) as T;

describe('surfacer init DIR', () => {
  it('writes the app: package.json, tsconfig, src/app.ts, src/server.ts, a ClientSim test, a README, and says what next', async () => {
    const dir = join(work, 'plant-journal');
    const { code, out, err } = await init([dir]);
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(filesUnder(dir)).toEqual(EXPECTED_FILES);
    expect(out).toContain(`Wrote Plant Journal to ${dir}: ${EXPECTED_FILES.join(', ')}`);
    // Every command the app needs, in the order they work: start last, as it keeps running.
    expect(out).toContain(`Next:\n  cd ${dir}\n  npm install\n  npm test `);
    expect(out).toMatch(/\n {2}npm test .*\n {2}npm start .*http:\/\/127\.0\.0\.1:8787/);
    expect(out).toContain(`After changing surfacer itself: \`npm run build\` in ${CLONE}`);

    const pkg = readJson<Pkg>(join(dir, 'package.json'));
    const own = readJson<Pkg>(join(ROOT, 'package.json'));
    expect(pkg.name).toBe('plant-journal');
    // Not on the registry: the clone this command ran from, linked (not copied) by the app's .npmrc.
    expect(pkg.dependencies).toEqual({ surfacer: `file:${CLONE}` });
    expect(readFileSync(join(dir, '.npmrc'), 'utf8')).toMatch(/^install-links=false$/m);
    // The tools Surfacer itself is built and tested with, exactly.
    expect(pkg.devDependencies).toEqual({
      '@types/node': own.devDependencies['@types/node'], typescript: own.devDependencies.typescript, vitest: own.devDependencies.vitest,
    });
    expect(pkg.scripts).toMatchObject({ start: 'node dist/server.js', prestart: 'npm run build' });
    // What `start` runs is what tsc writes: rootDir src, outDir dist (no TS5011, no dist/src/).
    const tsconfig = readJson<{ compilerOptions: Record<string, unknown>; include: string[] }>(join(dir, 'tsconfig.json'));
    expect(tsconfig.compilerOptions).toMatchObject({ rootDir: 'src', outDir: 'dist', rewriteRelativeImportExtensions: true });
    expect(tsconfig.include).toEqual(['src']);

    for (const file of EXPECTED_FILES) expect(readFileSync(join(dir, file), 'utf8'), file).not.toContain('__APP_NAME__');
    expect(readFileSync(join(dir, 'README.md'), 'utf8').split('\n')[0]).toBe('# Plant Journal');
    expect(readFileSync(join(dir, 'src/app.ts'), 'utf8')).toContain("export const APP_NAME = 'Plant Journal';");
    // The server reads what `surfacer serve` reads.
    const server = readFileSync(join(dir, 'src/server.ts'), 'utf8');
    for (const setting of ['process.env.PORT', 'process.env.HOST', 'process.env.SURFACER_SESSION_SECRET', 'port: { type: \'string\' }', 'host: { type: \'string\' }']) {
      expect(server, setting).toContain(setting);
    }
  });

  it('--name and --surfacer: any name, quotes and backslashes included, stays a valid string in app.ts', async () => {
    const dir = join(work, 'quoted');
    const name = 'Ana\'s "Desk" \\ 2';
    expect((await init(['--name', name, '--surfacer', 'file:../surfacer-0.1.0.tgz', dir])).code).toBe(0);
    expect(readJson<Pkg>(join(dir, 'package.json')).dependencies.surfacer).toBe('file:../surfacer-0.1.0.tgz');
    const { APP_NAME, createApp } = await import(join(dir, 'src/app.ts')) as { APP_NAME: string; createApp: () => AppDefinition };
    expect(APP_NAME).toBe(name);
    expect(createApp().name).toBe(name);
    expect(readFileSync(join(dir, 'README.md'), 'utf8').split('\n')[0]).toBe(`# ${name}`);
  });

  it('from an unbuilt clone: builds it first (its output on stderr), then writes an app linked to it', async () => {
    const clone = fakePackage('unbuilt', { checkout: true, built: false });
    const build = recordingBuild();
    const dir = join(work, 'from-unbuilt');
    const { code, out, err } = await init([dir], clone, build);
    expect(code).toBe(0);
    expect(build.roots).toEqual([clone]);
    expect(err).toBe(`surfacer init: building surfacer in ${clone} first (it has no dist/): npm run build\ntsc: dist/src\n`);
    expect(out).toContain(`It depends on surfacer as file:${clone} (this clone, linked`);
    expect(readFileSync(join(dir, '.npmrc'), 'utf8')).toMatch(/^install-links=false$/m);

    // Built now: the next app is written without another build.
    expect((await init([join(work, 'from-built')], clone, build)).err).toBe('');
    expect(build.roots).toEqual([clone]);
  });

  it('from a clone whose sources changed after its build: builds it again', async () => {
    const clone = fakePackage('stale', { checkout: true, built: true });
    expect(staleBuild(clone)).toBeUndefined();
    writeSource(clone, 'src/new-module.ts');
    const later = new Date(Date.now() + 120_000);
    utimesSync(join(clone, 'src/new-module.ts'), later, later);
    expect(staleBuild(clone)).toBe('src/new-module.ts changed since dist/ was built');
    const build = recordingBuild();
    expect((await init([join(work, 'from-stale')], clone, build)).code).toBe(0);
    expect(build.roots).toEqual([clone]);
  });

  it('a failed build: exit 1, the reason on stderr, nothing written', async () => {
    const clone = fakePackage('broken', { checkout: true, built: false });
    const dir = join(work, 'from-broken');
    const { code, out, err } = await init([dir], clone, recordingBuild('fails'));
    expect(code).toBe(1);
    expect(out).toBe('');
    expect(err).toContain(`surfacer init: the build failed (above); fix it, or run \`npm run build\` in ${clone}, then init again`);
    expect(existsSync(dir)).toBe(false);
  });

  it('from the installed package: copied in by the app\'s npm install, never built', async () => {
    const installed = fakePackage('installed', { checkout: false, built: true });
    const build = recordingBuild();
    const dir = join(work, 'from-installed');
    const { code, out } = await init([dir], installed, build);
    expect(code).toBe(0);
    expect(build.roots).toEqual([]);
    expect(out).toContain(`It depends on surfacer as file:${installed} (this package, copied in by npm install`);
    expect(out).not.toContain('After changing surfacer itself');
    expect(readFileSync(join(dir, '.npmrc'), 'utf8')).toMatch(/^install-links=true$/m);
  });

  it('--surfacer from an unbuilt clone: the spec as given, nothing built', async () => {
    const build = recordingBuild();
    const dir = join(work, 'named-spec');
    expect((await init(['--surfacer', 'surfacer@0.1.0', dir], fakePackage('unbuilt-named', { checkout: true, built: false }), build)).code).toBe(0);
    expect(build.roots).toEqual([]);
    expect(readJson<Pkg>(join(dir, 'package.json')).dependencies.surfacer).toBe('surfacer@0.1.0');
  });

  it('writes into an empty directory; refuses a non-empty one or a file (exit 1, nothing written)', async () => {
    const empty = join(work, 'empty');
    mkdirSync(empty);
    expect((await init([empty])).code).toBe(0);

    const used = join(work, 'used');
    mkdirSync(used);
    writeFileSync(join(used, 'notes.txt'), 'mine');
    const refused = await init([used]);
    expect(refused).toEqual({ code: 1, out: '', err: `surfacer init: ${used} is not empty (notes.txt); choose a new or empty directory\n` });
    expect(readdirSync(used)).toEqual(['notes.txt']);

    const file = join(work, 'a-file');
    writeFileSync(file, '');
    expect((await init([file])).err).toContain(`${file} exists and is not a directory`);
  });

  it.each([
    [[], 'expected DIR'],
    [['a', 'b'], 'expected one DIR'],
    [['--name', ' ', 'x'], '--name must be 1 to 80 characters'],
    [['--name', 'a\u0007b', 'x'], '--name must be 1 to 80 characters'],
    [['--surfacer', '', 'x'], '--surfacer needs an npm spec'],
  ])('usage errors exit 2: %j', async (args, message) => {
    const { code, err } = await init(args.map((a) => (a === 'x' ? join(work, 'never') : a)));
    expect(code).toBe(2);
    expect(err).toContain(message);
    expect(existsSync(join(work, 'never'))).toBe(false);
  });

  it('names from the directory: a title and an npm package name', () => {
    expect(displayNameOf('/x/my-notes')).toBe('My Notes');
    expect(displayNameOf('app')).toBe('App');
    expect(packageNameOf('/x/My Notes!')).toBe('my-notes');
    expect(packageNameOf('/x/.hidden_')).toBe('hidden_');
    expect(packageNameOf('/x/!!!')).toBe('surfacer-app');
  });

  it('the templates are files of the package: shipped (package.json files) and all rendered', () => {
    const own = readJson<{ files: string[] }>(join(ROOT, 'package.json'));
    expect(own.files).toContain('templates/init');
    expect(surfacerRoot()).toBe(ROOT);
    const templates = readTemplates(join(ROOT, 'templates/init'));
    const rendered = renderApp(templates, { name: 'X', packageName: 'x', surfacerSpec: 'file:y', linkSurfacer: false, devTools: {} });
    expect(rendered.map((f) => f.path).sort()).toEqual(EXPECTED_FILES);
  });

  it('the template imports only `surfacer`, Node built-ins, vitest (its test) and its own files: the public API is enough', () => {
    const offending: string[] = [];
    for (const file of readTemplates(join(ROOT, 'templates/init')).filter((f) => f.path.endsWith('.ts'))) {
      for (const match of file.contents.matchAll(/\bfrom\s+'([^']+)'|\bimport\(\s*'([^']+)'/g)) {
        const spec = (match[1] ?? match[2])!;
        if (spec === 'surfacer' || spec.startsWith('node:') || spec.startsWith('./') || spec.startsWith('../src/')) continue;
        if (spec === 'vitest' && file.path.startsWith('test/')) continue;
        offending.push(`${file.path}: ${spec}`);
      }
    }
    expect(offending).toEqual([]);
  });

  it('docs/build-your-own-app.md names every file init writes', () => {
    const doc = readFileSync(join(ROOT, 'docs/build-your-own-app.md'), 'utf8');
    for (const file of EXPECTED_FILES) expect(doc, file).toContain(`\`${file}\``);
  });
});

describe('the app init wrote', () => {
  it('serves its own name and texts, and a turn of its offline planner opens a panel a client renders', async () => {
    const dir = join(work, 'served');
    expect((await init(['--name', 'Served Notes', dir])).code).toBe(0);
    const { createApp } = await import(join(dir, 'src/app.ts')) as { createApp: () => AppDefinition };
    const app = createApp();
    expect(app.texts).toMatchObject({ placeholder: expect.any(String), emptyState: expect.any(String), description: expect.any(String) });
    expect(app.texts!.hints!.length).toBeGreaterThan(0);

    const surfacer = createSurfacer({ app });
    try {
      const first = await surfacer.fetch(new Request('http://127.0.0.1/'));
      expect(first.status).toBe(303);
      const page = await surfacer.fetch(new Request(`http://127.0.0.1${first.headers.get('location')!}`, {
        headers: { cookie: (first.headers.get('set-cookie') ?? '').split(';')[0]! },
      }));
      expect(/<title>([^<]*)<\/title>/.exec(await page.text())?.[1]).toBe('Served Notes');

      const { id } = await surfacer.conversations.create('test');
      // Every hint the page offers is a request the offline planner answers with a panel.
      for (const hint of app.texts!.hints!) {
        expect((await surfacer.conversations.runTurn(id, hint)).ok, hint).toBe(true);
        const compiled = a2uiWire('0.8').compileConversation((await surfacer.conversations.get(id))!.ir);
        if (!compiled.ok) throw new Error(JSON.stringify(compiled.errors));
        const sim = createClientSim();
        expect(sim.applyAll(compiled.batches.flatMap((b) => b.messages))).toEqual([]);
        expect([...sim.surfaces().values()].map((s) => s.rendering)).toEqual([true]);
      }
    } finally {
      await surfacer.close();
    }
  });
});
