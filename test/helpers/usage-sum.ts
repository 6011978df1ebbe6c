// Test helper: the usage in some transcript files, read the way the server reads them (a follower per
// file, slices until each is read out), summed over every turn.
import { TranscriptFollower } from '../../src/usage/transcript-follower.js';
import { addTokens, type TokenCounts, zeroTokens } from '../../src/usage/token-counts.js';
import { parserFor, type UsageFormat } from '../../src/usage/usage-formats.js';
import type { RateLimits, UsageTurn } from '../../src/usage/usage-turn.js';

export interface TranscriptSum extends TokenCounts {
  turns: UsageTurn[];
  limits: RateLimits | null;
}

export function sumTranscript(format: UsageFormat, files: readonly string[]): TranscriptSum {
  const total = zeroTokens();
  const turns: UsageTurn[] = [];
  let limits: RateLimits | null = null;
  for (const path of files) {
    const follower = new TranscriptFollower({
      path,
      parser: parserFor(format),
      commit: (b) => {
        for (const t of b.turns) {
          turns.push(t);
          addTokens(total, t.tokens);
        }
        if (b.limits) limits = b.limits;
      },
    });
    while (follower.look());
    follower.dispose();
  }
  return { ...total, turns, limits };
}
