import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    // Native addons (node-pty, better-sqlite3) are happiest in child processes, not worker threads.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // e2e and integration tests spawn real processes; keep parallelism modest on 2-core machines.
    maxWorkers: 2,
  },
});
