// The browser suite (issue #32): the page in headless Debian chromium driven by playwright-core,
// against real servers. Run by `node test/browser/run.mjs` (which installs chromium when missing),
// from .ci/run; not part of `npm test`, which must not depend on a browser being installed.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/browser/**/*.test.ts'],
    pool: 'forks',
    // Each test starts a server, rows and a browser: one at a time on a 2-core machine.
    maxWorkers: 1,
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
