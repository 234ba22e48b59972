import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { displayNameOf, packageNameOf, readTemplates, renderApp, surfacerRoot } from '../../src/cli/commands/init.ts';
import { main } from '../../src/cli/main.ts';
import { a2uiWire, createClientSim, createSurfacer, type AppDefinition } from '../../src/index.ts';
import { memoryIo } from '../support/cli-io.ts';

/*
 * `surfacer init` in process: the files it writes, the names and dependencies it puts in them,
 * what it refuses; then the app it wrote, imported as it is (its `surfacer` is this checkout's
 * sources, through the vitest alias) and served. test/package/pack.test.ts runs it for real:
 * the installed package's bin, the app's npm install, npm test and npm start.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const work = mkdtempSync(join(tmpdir(), 'surfacer-init-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const EXPECTED_FILES = ['.gitignore', '.npmrc', 'README.md', 'package.json', 'src/app.ts', 'src/server.ts', 'test/app.test.ts', 'tsconfig.json'];

async function init(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = memoryIo();
  const code = await main(['init', ...args], io);
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
    expect(out).toMatch(/npm install\n {2}npm start .*\n {2}npm test/);
    // A checkout runs its sources, but the app installs the built package: init says so when dist/ is missing.
    const note = `This checkout is not built yet: run \`npm run build\` in ${ROOT} before the app's \`npm install\`.`;
    if (existsSync(join(ROOT, 'dist/src/index.js'))) expect(out).not.toContain(note);
    else expect(out).toContain(note);

    const pkg = readJson<Pkg>(join(dir, 'package.json'));
    const own = readJson<Pkg>(join(ROOT, 'package.json'));
    expect(pkg.name).toBe('plant-journal');
    // Not on the registry: the package this command ran from, copied in (not linked) by the app's .npmrc.
    expect(pkg.dependencies).toEqual({ surfacer: `file:${ROOT}` });
    expect(readFileSync(join(dir, '.npmrc'), 'utf8')).toMatch(/^install-links=true$/m);
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
    const rendered = renderApp(templates, { name: 'X', packageName: 'x', surfacerSpec: 'file:y', devTools: {} });
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

  it('docs/init.md names every file init writes', () => {
    const doc = readFileSync(join(ROOT, 'docs/init.md'), 'utf8');
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
