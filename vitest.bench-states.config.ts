// `npm run bench:states` (issue #37): the state-accuracy benchmark on the real agent CLIs, run by vitest
// because it drives the real dashboard with the test harness (a benchmark, not a test: it prints its
// figures and asserts only that it could run). Not part of `npm test`.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['bench/states/**/*.bench-run.ts'],
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
    testTimeout: 600_000,
    hookTimeout: 60_000,
  },
});
