import type { TestProject } from 'vitest/node';
import { answersVersion, findChromium, isExecutableFile, type FoundChromium } from './find-chromium.ts';
import { npmChromiumCache, npmChromiumVersion, unpackNpmChromium } from './npm-chromium.ts';

/** What the browser suites get: a Chromium, or why there is none (they fail with it). */
export type ChromiumLookup = { found: FoundChromium } | { error: string };

declare module 'vitest' {
  export interface ProvidedContext {
    chromium: ChromiumLookup;
  }
}

/**
 * Finds Chromium once per run, before any worker starts, and hands the result to the tests
 * (`inject('chromium')`): workers never race to unpack it. A failure is handed over too rather
 * than thrown: a throw here would abort the whole run, this way only the browser suites fail.
 */
export default async function setup(project: TestProject): Promise<void> {
  const root = project.config.root;
  let unpackedMs: number | undefined;
  try {
    const found = await findChromium({
      env: process.env,
      isExecutableFile,
      answersVersion,
      unpackNpmChromium: async () => {
        const unpacked = await unpackNpmChromium(npmChromiumCache(root), root);
        unpackedMs = unpacked.unpackedMs;
        return unpacked;
      },
    });
    const from = found.source === '@sparticuz/chromium' ? `@sparticuz/chromium ${npmChromiumVersion()}` : found.source;
    const unpack = unpackedMs === undefined ? '' : `, unpacked in ${(unpackedMs / 1000).toFixed(1)} s`;
    process.stdout.write(`browser tests: Chromium from ${from} (${found.executablePath}${unpack})\n`);
    project.provide('chromium', { found });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`browser tests: no Chromium: ${message}\n`);
    project.provide('chromium', { error: message });
  }
}
