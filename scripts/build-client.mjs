#!/usr/bin/env node
// Writes the A2UI browser clients to dist/a2ui-client/ under their hashed names, plus
// manifest.json: the plain clients (the v0.8 page's and the v0.9 page's, for an app without
// components of its own) and their stylesheet, then one pair per example app with its own elements
// bundled in (the demo's PortraitCard, the support desk's TicketTable and BarChart). Same esbuild
// options as the in-process build the server uses (src/host-a2ui/client-bundle.ts), so the bytes —
// and names — are identical to what the server serves.
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { register } from 'tsx/esm/api';

register();
const { a2uiClientAssets, appElementsOf } = await import('../src/host-a2ui/client-bundle.ts');
const { createDemoApp } = await import('../src/app/index.ts');
const { createSupportDeskApp } = await import('../examples/support-desk/app.ts');

const outDir = resolve(process.argv[2] ?? 'dist/a2ui-client');
const [v08, v09] = await Promise.all([a2uiClientAssets('0.8'), a2uiClientAssets('0.9')]);
const assets = { script: v08.script, scriptV09: v09.script, style: v08.style };
for (const [app, definition] of [['demo', createDemoApp()], ['supportDesk', createSupportDeskApp()]]) {
  const elements = appElementsOf(definition);
  if (elements === undefined) continue;
  const [a08, a09] = await Promise.all([a2uiClientAssets('0.8', elements), a2uiClientAssets('0.9', elements)]);
  if (!a08.appComponents || !a09.appComponents) throw new Error(`the ${app} app's elements could not be bundled`);
  assets[`${app}Script`] = a08.script;
  assets[`${app}ScriptV09`] = a09.script;
}
await mkdir(outDir, { recursive: true });
const manifest = {};
for (const [kind, asset] of Object.entries(assets)) {
  const name = asset.path.slice(asset.path.lastIndexOf('/') + 1);
  await writeFile(join(outDir, name), asset.contents);
  manifest[kind] = { path: asset.path, file: name, etag: asset.etag, bytes: Buffer.byteLength(asset.contents) };
  process.stdout.write(`${join(outDir, name)}  ${manifest[kind].bytes} bytes\n`);
}
await writeFile(join(outDir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
