#!/usr/bin/env node
// `npm run build`: what the published package runs, with no dev dependency at run time.
//  1. tsc -p tsconfig.build.json        src/**/*.ts → dist/src/**/*.js + .d.ts
//  2. the files read at run time next to the code (import.meta.url-relative: .eta views, css,
//     prompts/*.md) copied to the same relative places under dist/
//  3. the A2UI browser clients (the v0.8 and the v0.9 page's) bundled once with the server's own
//     esbuild options into dist/src/host-a2ui/client/, which the server prefers to bundling at run time
//  4. the MCP App view (src/host-mcp/view-html.ts): its finished HTML document, script and
//     stylesheet inlined, into dist/src/host-mcp/view/, which mcpViewHtml() prefers likewise
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const say = (line) => process.stdout.write(`${line}\n`);

rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit', cwd: root });
say('tsc: dist/src');

/** Every file under `dir` that tsc does not emit (anything but .ts), to the same path under dist/. */
function copyAssets(dir) {
  let count = 0;
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || entry.name.endsWith('.ts')) continue;
    const from = join(entry.parentPath, entry.name);
    const to = join(dist, relative(root, from));
    mkdirSync(dirname(to), { recursive: true });
    cpSync(from, to);
    count += 1;
  }
  say(`assets: ${count} files of ${dir}/`);
}
copyAssets('src');
copyAssets('prompts');

register();
const { appElementsOf, buildA2uiAppClient, buildA2uiClient, prebuiltAppClient, PREBUILT_CLIENTS } = await import('../src/host-a2ui/client-bundle.ts');
for (const { version, file } of PREBUILT_CLIENTS) {
  const client = await buildA2uiClient(version);
  const target = join(dist, relative(root, fileURLToPath(file)));
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, client.contents);
  say(`client ${version}: ${relative(root, target)} (${Buffer.byteLength(client.contents)} bytes, ${client.path})`);
}
// The demo app's pages (what `surfacer serve` runs) with its own elements, prebuilt: the
// installed package has no esbuild to bundle them.
const { createDemoApp } = await import('../src/app/index.ts');
const demo = appElementsOf(createDemoApp());
for (const { version } of demo === undefined ? [] : PREBUILT_CLIENTS) {
  const client = await buildA2uiAppClient(version, demo);
  if (client === undefined) throw new Error('the demo app\'s client could not be bundled');
  const target = join(dist, relative(root, fileURLToPath(prebuiltAppClient(version, demo))));
  writeFileSync(target, client.contents);
  say(`demo app client ${version}: ${relative(root, target)} (${Buffer.byteLength(client.contents)} bytes, ${client.path})`);
}

// The MCP App view, whole (the installed package has no esbuild to bundle it).
const { buildMcpViewHtml, PREBUILT_MCP_VIEW } = await import('../src/host-mcp/view-html.ts');
const mcpView = await buildMcpViewHtml();
const mcpViewTarget = join(dist, relative(root, fileURLToPath(PREBUILT_MCP_VIEW)));
mkdirSync(dirname(mcpViewTarget), { recursive: true });
writeFileSync(mcpViewTarget, mcpView);
say(`MCP App view: ${relative(root, mcpViewTarget)} (${Buffer.byteLength(mcpView)} bytes)`);
