import type { TestProject } from 'vitest/node';
import { findChromium, isExecutableFile, type FoundChromium } from './find-chromium.ts';
import { npmChromiumCache, npmChromiumVersion, unpackNpmChromium } from './npm-chromium.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    chromium: FoundChromium;
  }
}

/**
 * Finds Chromium once per run, before any worker starts, and hands the result to the tests
 * (`inject('chromium')`): workers never race to unpack it.
 */
export default async function setup(project: TestProject): Promise<void> {
  const root = project.config.root;
  let unpackedMs: number | undefined;
  const found = await findChromium({
    env: process.env,
    isExecutableFile,
    unpackNpmChromium: async () => {
      const unpacked = await unpackNpmChromium(npmChromiumCache(root), root);
      unpackedMs = unpacked.unpackedMs;
      return unpacked;
    },
  });
  const from = found.source === '@sparticuz/chromium' ? `@sparticuz/chromium ${npmChromiumVersion()}` : found.source;
  const unpack = unpackedMs === undefined ? '' : `, unpacked in ${(unpackedMs / 1000).toFixed(1)} s`;
  process.stdout.write(`browser tests: Chromium from ${from} (${found.executablePath}${unpack})\n`);
  project.provide('chromium', found);
}
