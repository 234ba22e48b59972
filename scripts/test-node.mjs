#!/usr/bin/env node
// `npm run test:node -- <major> [vitest args…]`: the whole suite (`npm test`) on another Node major
// (scripts/node-binary.mjs fetches it). Every `node` the tests start (CLI, benches' children, the
// clean clone) is found on PATH, so that directory goes first.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeBinary, SUPPORTED_NODE_MAJORS } from './node-binary.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const [major, ...vitestArgs] = process.argv.slice(2);

function fail(message) {
  console.error(`test:node: ${message}`);
  process.exit(2);
}

if (major === undefined || !SUPPORTED_NODE_MAJORS.includes(major)) {
  fail(`name a Node major: npm run test:node -- <${SUPPORTED_NODE_MAJORS.join('|')}> (got ${major === undefined ? 'none' : JSON.stringify(major)})`);
}
let bin;
try {
  bin = nodeBinary(root, major, (line) => console.log(`test:node: ${line}`));
} catch (error) {
  fail(error.message);
}

const env = { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` };
const version = spawnSync(join(bin, 'node'), ['--version'], { encoding: 'utf8' }).stdout.trim();
console.log(`test:node: the whole suite on Node ${version}`);
const run = spawnSync('npm', ['test', ...(vitestArgs.length > 0 ? ['--', ...vitestArgs] : [])], { cwd: root, env, stdio: 'inherit' });
process.exit(run.status ?? 1);
