import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    // The real agent CLIs (hundreds of MB, installed on demand) have their own suite and config:
    // `node test/real-agents/run.mjs` (vitest.real-agents.config.ts).
    exclude: ['**/node_modules/**', '**/.cache/**', 'test/real-agents/**', 'test/federation/**', 'test/browser/**'],
    // Native addons (node-pty, better-sqlite3) are happiest in child processes, not worker threads.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // e2e and integration tests spawn real processes; keep parallelism modest on 2-core machines.
    maxWorkers: 2,
  },
});
