import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // `import … from 'surfacer'` (examples/) means the sources here, as tsconfig.json's `paths` says.
  resolve: { alias: [{ find: /^surfacer$/, replacement: fileURLToPath(new URL('./src/index.ts', import.meta.url)) }] },
  test: {
    include: ['test/**/*.test.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
    // Finds (or unpacks) Chromium once for the whole run; see test/support/browser/.
    globalSetup: ['./test/support/browser/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Browser and HTTP suites start servers and Chromium; two workers suit a 2-core machine.
    maxWorkers: 2,
  },
});
