// The real-agent suite: Claude Code, Codex CLI and Gemini CLI (pinned, installed into the ignored
// .cache/agents by test/real-agents/run.mjs) against local model API stubs. Not part of `npm test`.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/real-agents/**/*.test.ts'],
    pool: 'forks',
    // One agent CLI at a time: each starts heavy processes and watches wall-clock timing.
    maxWorkers: 1,
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 60_000,
  },
});
