// The federation suite: swb nodes on a real nats-server with JetStream (installed on demand by
// test/federation/run.mjs). Not part of `npm test`: it needs the nats-server program.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/federation/**/*.test.ts'],
    pool: 'forks',
    // Each file runs its own nats-server and two or three nodes: one file at a time.
    maxWorkers: 1,
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 60_000,
  },
});
