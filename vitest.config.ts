import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/*
 * Two groups, one after the other: the suite, then the clean-clone test (which, when asked,
 * runs the README's commands in a bare clone, the whole suite again inside). Run side by side
 * on two cores, the two passes slowed each other past their time-outs and CI past its 40 minutes.
 */
const CLEAN_CLONE = 'test/package/clone.test.ts';

export default defineConfig({
  // `import … from 'surfacer'` (examples/) means the sources here, as tsconfig.json's `paths` says.
  resolve: { alias: [{ find: /^surfacer$/, replacement: fileURLToPath(new URL('./src/index.ts', import.meta.url)) }] },
  test: {
    reporters: ['default', './test/support/summary-reporter.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'suite',
          include: ['test/**/*.test.ts'],
          exclude: [CLEAN_CLONE],
          // Finds (or unpacks) Chromium once for the whole run; see test/support/browser/.
          globalSetup: ['./test/support/browser/global-setup.ts'],
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: { name: 'clean-clone', include: [CLEAN_CLONE], sequence: { groupOrder: 1 } },
      },
    ],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // A worker keeps its modules from one file to the next: isolated, each file imported the
    // sources and the official packages afresh (714 s of a 1,505 s run on two cores, 56 s
    // shared). No test mocks modules or stubs globals; each file builds its own servers and state.
    isolate: false,
    // Browser and HTTP suites start servers and Chromium; two workers suit a 2-core machine (a
    // third filled idle time but pushed CPU-bound properties past their time-outs).
    maxWorkers: 2,
  },
});
