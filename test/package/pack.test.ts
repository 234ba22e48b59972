import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itemFormFields, listKeys, surfaceFormFields } from '../support/html-forms.ts';
import { HttpClient } from '../support/http-client.ts';

/*
 * The package as a stranger gets it: `npm run build`, `npm pack`, the tarball installed into an
 * empty project (its dependencies from the npm registry, or npm's cache), the support-desk
 * example compiled there against the installed `.d.ts` (no skipLibCheck), and started with plain
 * `node` — no tsx, no dev dependency. Then a turn and a submit over HTTP. Slow (a build, an
 * install, two type checks): one file, generous timeouts.
 */
const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
const SECRET = 'pack-test-session-secret-0123456789';
let work: string;
let project: string;
let server: ChildProcess | undefined;
let url: string;
let output = '';

async function sh(command: string, args: string[], cwd: string): Promise<string> {
  const { stdout } = await run(command, args, { cwd, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, npm_config_update_notifier: 'false' } });
  return stdout;
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'surfacer-pack-'));
  await sh('npm', ['run', 'build'], ROOT);
  // The build ran just above; prepack would build a second time.
  const packed = JSON.parse(await sh('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], ROOT)) as Array<{ filename: string }>;
  const tarball = join(work, packed[0]!.filename);

  project = join(work, 'desk');
  mkdirSync(join(project, 'src'), { recursive: true });
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'desk', private: true, type: 'module' }));
  await sh('npm', ['install', tarball, '--no-audit', '--no-fund', '--prefer-offline'], project);

  cpSync(join(ROOT, 'examples/support-desk'), join(project, 'src'), { recursive: true, filter: (f) => !f.endsWith('.md') });
  writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({
    compilerOptions: {
      target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['ES2023', 'DOM'], strict: true,
      skipLibCheck: false, allowImportingTsExtensions: true, rewriteRelativeImportExtensions: true,
      rootDir: 'src', outDir: 'out', typeRoots: [join(ROOT, 'node_modules/@types')], types: ['node'],
    },
    include: ['src'],
  }));
  await sh(process.execPath, [TSC, '-p', 'tsconfig.json'], project);

  server = spawn(process.execPath, ['out/server.js'], {
    cwd: project, env: { PATH: process.env.PATH, PORT: '0', HOST: '127.0.0.1', SURFACER_SESSION_SECRET: SECRET }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  url = await new Promise<string>((done, fail) => {
    const seen = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) done(match[1]!);
    };
    server!.stdout!.on('data', seen);
    server!.stderr!.on('data', (chunk: Buffer) => { output += chunk.toString(); });
    server!.once('exit', (code) => fail(new Error(`the example exited (${code}): ${output}`)));
  });
}, 900_000);

afterAll(async () => {
  if (server !== undefined && server.exitCode === null) {
    const exited = new Promise((done) => server!.once('exit', done));
    server.kill('SIGTERM');
    await exited;
  }
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
}, 60_000);

describe('the packed tarball in an empty project', () => {
  it('holds compiled JavaScript, declarations, views, prompts and the prebuilt A2UI client, and needs no dev dependency', () => {
    const pkg = join(project, 'node_modules/surfacer');
    for (const file of ['dist/src/index.js', 'dist/src/index.d.ts', 'dist/src/cli/bin.js', 'dist/prompts/system.v1.md',
      'dist/src/compiler/html/views/surface.eta', 'dist/src/host-html/static/app.css', 'dist/src/host-a2ui/client/a2ui-client.js',
      'dist/src/host-a2ui/client/a2ui-client-v09.js']) {
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
    expect(output).not.toMatch(/error/i);
  });

  it('its `surfacer` command runs with plain node', async () => {
    const help = await sh(process.execPath, [join(project, 'node_modules/surfacer/dist/src/cli/bin.js'), '--help'], project);
    expect(help).toContain('serve');
  });
});
