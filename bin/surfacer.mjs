#!/usr/bin/env node
// The `surfacer` command, in a checkout and in the installed package alike (package.json `bin`).
// A checkout has the TypeScript sources and tsx: run the sources, so nothing needs building and a
// stale dist/ is never what runs. The installed package ships no sources and no tsx: run its
// compiled dist/src/cli/bin.js with plain node.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

const sources = new URL('../src/cli/bin.ts', import.meta.url);

function hasTsx() {
  try {
    createRequire(import.meta.url).resolve('tsx/esm/api');
    return true;
  } catch {
    return false;
  }
}

if (existsSync(sources) && hasTsx()) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(sources.href);
} else {
  const compiled = new URL('../dist/src/cli/bin.js', import.meta.url);
  if (!existsSync(compiled)) {
    // A checkout installed without dev dependencies (no tsx) and never built.
    process.stderr.write('surfacer: no way to run: neither tsx for the sources (npm ci) nor a build (npm run build)\n');
    process.exit(1);
  }
  await import(compiled.href);
}
