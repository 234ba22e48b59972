import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itemFormFields, listKeys, surfaceFormFields } from '../support/html-forms.ts';
import { HttpClient } from '../support/http-client.ts';

/*
 * The package as a stranger gets it: `npm run build`, `npm pack`, the tarball installed into an
 * empty project (its dependencies from the npm registry, or npm's cache), the support-desk
 * example compiled there against the installed `.d.ts` (no skipLibCheck), and started with plain
 * `node` — no tsx, no dev dependency. Then a turn and a submit over HTTP. And `surfacer init`
 * as a newcomer runs it: the tarball installed into an empty folder, `npx surfacer init app`,
 * then the new app's own `npm install`, `npm test` and `npm start`, and a turn over HTTP. And
 * `surfacer init` from a clone nobody built: init builds it, and the app links to it. Slow
 * (two builds, four installs, type checks): one file, so the package is built and packed once,
 * and only if a test here needs the tarball (`-t 'unbuilt clone'` runs without it). The installs
 * need the npm registry, or npm's cache of these versions (--prefer-offline).
 */
const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
const SECRET = 'pack-test-session-secret-0123456789';
let work: string;
let tarball: string;
let packing: Promise<string> | undefined;
let project: string;
let server: Started | undefined;
let url: string;

async function sh(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<string> {
  const { stdout } = await run(command, args, { cwd, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, npm_config_update_notifier: 'false', ...env } });
  return stdout;
}

interface Started { child: ChildProcess; url: string; output: () => string }

interface Finished { code: number | null; stdout: string; stderr: string }

/** Runs a command to its end, whatever its exit status, keeping both streams. */
async function runToEnd(command: string, args: string[], cwd: string): Promise<Finished> {
  return run(command, args, { cwd, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, npm_config_update_notifier: 'false' } })
    .then(({ stdout, stderr }) => ({ code: 0, stdout, stderr }), (error: { code?: number; stdout?: string; stderr?: string }) => ({
      code: error.code ?? null, stdout: error.stdout ?? '', stderr: error.stderr ?? '',
    }));
}

/** Starts `command` (in its own process group, so an `npm start` and its node go together) and waits for "listening on URL". */
async function start(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Started> {
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  const url = await new Promise<string>((done, fail) => {
    const seen = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) done(match[1]!);
    };
    child.stdout!.on('data', seen);
    child.stderr!.on('data', (chunk: Buffer) => { output += chunk.toString(); });
    child.once('exit', (code) => fail(new Error(`${command} ${args.join(' ')} exited (${code}): ${output}`)));
  });
  return { child, url, output: () => output };
}

/** An app `surfacer init` wrote: its `npm test` passes, the type check and its one test file's two tests. */
async function expectAppTestsPass(app: string): Promise<void> {
  // Plain text: no colours in the summary this reads.
  const { FORCE_COLOR: _force, ...env } = process.env;
  const { stdout } = await run('npm', ['test'], { cwd: app, env: { ...env, NO_COLOR: '1', npm_config_update_notifier: 'false' } });
  expect(stdout).toMatch(/Test Files\s+1 passed \(1\)/);
  expect(stdout).toMatch(/Tests\s+2 passed \(2\)/);
}

async function stop(started: Started | undefined): Promise<void> {
  const child = started?.child;
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  process.kill(-child.pid!, 'SIGTERM');
  await exited;
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'surfacer-pack-'));
});

/** This checkout built and packed, once for the file. */
function packedTarball(): Promise<string> {
  packing ??= (async () => {
    await sh('npm', ['run', 'build'], ROOT);
    // The build ran just above; prepack would build a second time.
    const packed = JSON.parse(await sh('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], ROOT)) as Array<{ filename: string }>;
    return join(work, packed[0]!.filename);
  })();
  return packing;
}

// Three installs, two of them with typescript and vitest: removing them takes a while on a busy disk.
afterAll(async () => {
  if (work !== undefined) await rm(work, { recursive: true, force: true });
}, 300_000);

describe('the packed tarball in an empty project', () => {
  beforeAll(async () => {
    tarball = await packedTarball();
    project = join(work, 'desk');
    mkdirSync(join(project, 'src'), { recursive: true });
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'desk', private: true, type: 'module' }));
    await sh('npm', ['install', tarball, '--no-audit', '--no-fund', '--prefer-offline'], project);

    // Not its elements/: browser modules (Lit) bundled into the page clients where esbuild is; the
    // installed package has none, so this desk's Lit pages show its components' fallbacks.
    cpSync(join(ROOT, 'examples/support-desk'), join(project, 'src'), { recursive: true, filter: (f) => !f.endsWith('.md') && !f.includes('/elements') });
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({
      compilerOptions: {
        target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['ES2023', 'DOM'], strict: true,
        skipLibCheck: false, allowImportingTsExtensions: true, rewriteRelativeImportExtensions: true,
        rootDir: 'src', outDir: 'out', typeRoots: [join(ROOT, 'node_modules/@types')], types: ['node'],
      },
      include: ['src'],
    }));
    await sh(process.execPath, [TSC, '-p', 'tsconfig.json'], project);

    server = await start(process.execPath, ['out/server.js'], project, { PATH: process.env.PATH, PORT: '0', HOST: '127.0.0.1', SURFACER_SESSION_SECRET: SECRET });
    url = server.url;
  }, 900_000);

  afterAll(() => stop(server), 60_000);

  it('holds compiled JavaScript, declarations, views, prompts and the prebuilt A2UI client, and needs no dev dependency', () => {
    const pkg = join(project, 'node_modules/surfacer');
    for (const file of ['dist/src/index.js', 'dist/src/index.d.ts', 'dist/src/cli/bin.js', 'dist/prompts/system.v1.md',
      'dist/src/compiler/html/views/surface.eta', 'dist/src/host-html/static/app.css', 'dist/src/host-a2ui/client/a2ui-client.js',
      'dist/src/host-a2ui/client/a2ui-client-v09.js', 'dist/src/host-mcp/view/surfacer-view.html']) {
      expect(existsSync(join(pkg, file)), file).toBe(true);
    }
    expect(existsSync(join(pkg, 'src')), 'no TypeScript sources').toBe(false);
    const installed = readdirSync(join(project, 'node_modules'));
    for (const dev of ['tsx', 'esbuild', 'vitest', 'typescript', 'lit', '@a2ui']) expect(installed, dev).not.toContain(dev);
  });

  it('runs the example with plain node: a turn shows the queue, an item action and a form submit apply', async () => {
    const client = new HttpClient(url);
    const first = await client.get('/');
    expect(first.status).toBe(303);
    const base = first.headers.get('location')!;
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await (await client.get(base)).text())?.[1];
    expect(csrf).toBeTruthy();

    const turn = await client.post(`${base}/messages`, { _csrf: csrf!, text: 'show the queue' }, { as: 'json' });
    expect(turn.status).toBe(200);
    await turn.arrayBuffer();
    let page = await (await client.get(base)).text();
    expect(listKeys(page, 'tickets')).toEqual(['T-1001', 'T-1002', 'T-1003']);

    const take = await client.post(`${base}/actions`, { _csrf: csrf!, ...itemFormFields(page, 'T-1003', 'ticket.take')! }, { as: 'json' });
    expect(take.status).toBe(200);
    await take.arrayBuffer();

    const ask = await client.post(`${base}/messages`, { _csrf: csrf!, text: 'new ticket about the printer' }, { as: 'json' });
    expect(ask.status).toBe(200);
    await ask.arrayBuffer();
    page = await (await client.get(base)).text();
    const submit = await client.post(`${base}/actions`, {
      ...surfaceFormFields(page, 'new-ticket'), _csrf: csrf!, _action: 'ticket.submit',
      subject: 'Printer jammed', customer: 'Dee', priority: 'urgent', details: 'Floor 2',
    }, { as: 'json' });
    expect(submit.status).toBe(200);
    await submit.arrayBuffer();
    page = await (await client.get(base)).text();
    expect(listKeys(page, 'tickets')).toEqual(['T-1001', 'T-1002', 'T-1003', 'T-1004']);
    expect(page).toContain('Printer jammed');
    expect(page).toContain('taken');
  });

  it.each([
    ['v0.8', '', /src="(\/assets\/a2ui-client-[0-9a-f]+\.js)"/],
    ['v0.9', '?v=0.9', /src="(\/assets\/a2ui-client-v09-[0-9a-f]+\.js)"/],
  ])('serves the A2UI %s page and its prebuilt client bundle', async (_version, query, scriptTag) => {
    const client = new HttpClient(url);
    const base = (await client.get('/')).headers.get('location')!;
    const a2ui = await client.get(`/a2ui${base}${query}`);
    expect(a2ui.status).toBe(200);
    const script = scriptTag.exec(await a2ui.text())?.[1];
    expect(script).toBeDefined();
    const bundle = await client.get(script!);
    expect(bundle.status).toBe(200);
    expect((await bundle.text()).length).toBeGreaterThan(100_000);
    expect(server!.output()).not.toMatch(/error/i);
  });

  it('serves the MCP door: the app\'s directives as tools and the prebuilt MCP App view', async () => {
    const rpc = async (method: string, params: unknown): Promise<{ result?: Record<string, unknown> }> => {
      const response = await fetch(`${url}/mcp`, {
        method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      });
      expect(response.status).toBe(200);
      const text = await response.text();
      // A 2025-era request without a handshake: the SDK's stateless fallback answers it as one SSE event.
      return JSON.parse(/^data: (.*)$/m.exec(text)?.[1] ?? text) as { result?: Record<string, unknown> };
    };
    const tools = (await rpc('tools/list', {})).result!['tools'] as Array<{ name: string }>;
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['show_list', 'surfacer_read', 'surfacer_view_action']));
    const view = ((await rpc('resources/read', { uri: 'ui://surfacer/view.html' })).result!['contents'] as Array<{ mimeType: string; text: string }>)[0]!;
    expect(view.mimeType).toBe('text/html;profile=mcp-app');
    expect(view.text.length).toBeGreaterThan(100_000);
    expect(server!.output()).not.toMatch(/error/i);
  });

  it('its `surfacer` command runs with plain node', async () => {
    const help = await sh(process.execPath, [join(project, 'node_modules/surfacer/dist/src/cli/bin.js'), '--help'], project);
    expect(help).toContain('serve');
    // The package's bin (the launcher) finds no sources there, so it runs dist/ with plain node too.
    expect(await sh(join(project, 'node_modules/.bin/surfacer'), ['--help'], project)).toBe(help);
  });
});

describe('surfacer init from the installed package', () => {
  let fresh: string;
  let app: string;
  let initOutput: string;
  let started: Started | undefined;

  beforeAll(async () => {
    // An empty folder, the tarball installed there, and the command a newcomer types.
    tarball = await packedTarball();
    fresh = join(work, 'fresh');
    mkdirSync(fresh);
    await sh('npm', ['install', tarball, '--no-audit', '--no-fund', '--prefer-offline'], fresh);
    initOutput = await sh('npx', ['--no-install', 'surfacer', 'init', 'app'], fresh);
    app = join(fresh, 'app');
    await sh('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], app);
  }, 900_000);

  afterAll(() => stop(started), 60_000);

  it('wrote an app that depends on the installed package, copied into its node_modules', () => {
    expect(initOutput).toContain('Wrote App to app: .gitignore, .npmrc, README.md, package.json, src/app.ts, src/server.ts, test/app.test.ts, tsconfig.json');
    const pkg = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(pkg.dependencies.surfacer).toBe(`file:${join(fresh, 'node_modules/surfacer')}`);
    // install-links: a copy of the package, its dependencies beside it, not a link into another project.
    expect(existsSync(join(app, 'node_modules/surfacer/dist/src/index.js'))).toBe(true);
    expect(existsSync(join(app, 'node_modules/hono'))).toBe(true);
    expect(readFileSync(join(app, 'node_modules/.package-lock.json'), 'utf8')).not.toContain('"link": true');
  });

  it('its npm test passes: the type check and the ClientSim test', () => expectAppTestsPass(app), 120_000);

  it('its npm start serves it (--port over PORT): its own title, and a turn over HTTP opens its panel, whose Save applies', async () => {
    started = await start('npm', ['start', '--', '--port', '0'], app, {
      PATH: process.env.PATH, PORT: 'not-a-port', HOST: '127.0.0.1', SURFACER_SESSION_SECRET: SECRET, npm_config_update_notifier: 'false',
    });
    expect(started.output()).toContain('App listening on http://127.0.0.1:');
    const client = new HttpClient(started.url);
    const first = await client.get('/');
    expect(first.status).toBe(303);
    const base = first.headers.get('location')!;
    let page = await (await client.get(base)).text();
    expect(/<title>([^<]*)<\/title>/.exec(page)?.[1]).toBe('App');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page)?.[1];
    expect(csrf).toBeTruthy();

    const turn = await client.post(`${base}/messages`, { _csrf: csrf!, text: 'a note about the team meeting' }, { as: 'json' });
    expect(turn.status).toBe(200);
    await turn.arrayBuffer();
    page = await (await client.get(base)).text();
    const hidden = surfaceFormFields(page, 'note');
    expect(hidden._nonce, 'the note panel').toBeDefined();
    expect(page).toContain('value="the team meeting"');

    const save = await client.post(`${base}/actions`, { ...hidden, _csrf: csrf!, _action: 'note.save', title: 'Team meeting', text: 'Agenda' }, { as: 'json' });
    expect(save.status).toBe(200);
    expect(JSON.stringify(await save.json())).toContain('Saved \\"Team meeting\\"');
    expect(surfaceFormFields(await (await client.get(base)).text(), 'note')).toEqual({});

    // The A2UI pages of the same conversation carry the app's name too.
    for (const query of ['', '?v=0.9']) {
      const a2ui = await client.get(`/a2ui${base}${query}`);
      expect(a2ui.status).toBe(200);
      expect(/<title>([^<]*)<\/title>/.exec(await a2ui.text())?.[1]).toBe('App');
    }
    expect(started.output()).not.toMatch(/error/i);
  }, 120_000);

  it('its server honours PORT and HOST, and refuses a bad port with exit 2', async () => {
    const env = { PATH: process.env.PATH, HOST: '127.0.0.1', SURFACER_SESSION_SECRET: SECRET };
    const byEnv = await start(process.execPath, ['dist/server.js'], app, { ...env, PORT: '0' });
    try {
      expect(byEnv.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect((await fetch(byEnv.url, { redirect: 'manual' })).status).toBe(303);
    } finally {
      await stop(byEnv);
    }
    const bad = await run(process.execPath, ['dist/server.js', '--port', '70000'], { cwd: app, env }).then(() => undefined, (e: { code: number; stderr: string }) => e);
    expect(bad?.code).toBe(2);
    expect(bad?.stderr).toMatch(/(--port|PORT) is "70000"; it must be a whole number from 0 to 65535/);
  }, 60_000);
});

describe('surfacer init from an unbuilt clone', () => {
  let clone: string;
  let app: string;
  let initOutput: Finished;

  beforeAll(async () => {
    // This checkout's files as a clone of it holds them (tracked, and new ones not ignored), so
    // with no dist/. Its node_modules is this one's, linked: `npm ci` there would install the
    // same lock again, a gigabyte and a minute more.
    clone = join(work, 'clone', 'surfacer');
    const listed = await sh('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], ROOT);
    for (const file of listed.split('\0').filter((f) => f !== '' && existsSync(join(ROOT, f)))) {
      mkdirSync(dirname(join(clone, file)), { recursive: true });
      cpSync(join(ROOT, file), join(clone, file), { preserveTimestamps: true });
    }
    symlinkSync(join(ROOT, 'node_modules'), join(clone, 'node_modules'));
    expect(existsSync(join(clone, 'dist'))).toBe(false);
    // The README's command, run from the folder beside the clone.
    initOutput = await runToEnd(process.execPath, [join(clone, 'bin/surfacer.mjs'), 'init', 'my-app'], join(work, 'clone'));
    app = join(work, 'clone', 'my-app');
    await sh('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], app);
  }, 900_000);

  it('built the clone first, and wrote an app that links to it, so a later build there reaches the app', () => {
    expect(initOutput.code, initOutput.stderr).toBe(0);
    expect(initOutput.stderr).toContain(`surfacer init: building surfacer in ${clone} first (it has no dist/)`);
    expect(existsSync(join(clone, 'dist/src/index.js'))).toBe(true);
    expect(initOutput.stdout).toContain(`It depends on surfacer as file:${clone} (this clone, linked`);
    expect(initOutput.stdout).toMatch(/Next:\n {2}cd my-app\n {2}npm install\n {2}npm test .*\n {2}npm start /);
    // A link, not a copy: what the app imports is the clone's dist/ as it is now, whatever builds come.
    expect(realpathSync(join(app, 'node_modules/surfacer'))).toBe(realpathSync(clone));
    expect(readFileSync(join(app, 'node_modules/.package-lock.json'), 'utf8')).toContain('"link": true');
  });

  it('its npm test passes: the type check against the clone\'s build, and the ClientSim test', () => expectAppTestsPass(app), 120_000);
});
