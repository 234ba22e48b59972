#!/usr/bin/env node
// The `surfacer` command: bin/surfacer.mjs runs this through tsx in a checkout; the package's
// `bin` runs its compiled form (dist/src/cli/bin.js) with plain node.
import { main } from './main.ts';

process.exitCode = await main(process.argv.slice(2), {
  stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env,
});
