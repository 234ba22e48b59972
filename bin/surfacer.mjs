#!/usr/bin/env node
// The CLI runs the TypeScript sources through tsx so a fresh clone needs no build step (the
// installed package's `bin` is the compiled dist/src/cli/bin.js instead).
import { register } from 'tsx/esm/api';
register();
await import('../src/cli/bin.ts');
