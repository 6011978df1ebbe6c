import { defineConfig } from 'vitest/config';

// The real agent CLIs (hundreds of MB, installed on demand) have their own suite and config:
// `node test/real-agents/run.mjs` (vitest.real-agents.config.ts).
const exclude = ['**/node_modules/**', '**/.cache/**', 'test/real-agents/**', 'test/federation/**', 'test/browser/**'];

export default defineConfig({
  test: {
    // Native addons (node-pty, better-sqlite3) are happiest in child processes, not worker threads.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // e2e and integration tests spawn real processes; keep parallelism modest on 2-core machines.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        // Unit files share their worker's module graph instead of importing it afresh each (Ink,
        // React, xterm, SQLite, zod): on 2 busy cores test/unit took 292 s isolated and 63 s not,
        // the same 1,686 tests passing. A unit file owns nothing process-wide that outlives it
        // (each releases what it starts in afterEach), which is what sharing a process needs.
        test: { name: 'unit', include: ['test/unit/**/*.test.ts', 'test/unit/**/*.test.tsx'], exclude, isolate: false },
      },
      {
        extends: true,
        // Integration and e2e files start hubs, servers and ptys in their process: each keeps its own.
        test: { name: 'system', include: ['test/**/*.test.ts', 'test/**/*.test.tsx'], exclude: [...exclude, 'test/unit/**'] },
      },
    ],
  },
});
