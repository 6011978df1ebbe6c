// What usage tracking needs from a store (src/usage/usage-store.ts is the one in mail.db; tests may
// use their own): the state reading stopped at in each of a row's files, and one commit that moves that
// state on together with the totals the reading produced. The parsers and followers know only this
// shape, so they are tested against a store of the tests' own.
import type { FollowState } from './transcript-follower.js';
import { type TokenCounts, zeroTokens } from './token-counts.js';
import type { RateLimits } from './usage-turn.js';

/** Tokens of one row, UTC day, model and source (an increment in a commit, a sum when read). */
export interface UsageTotalRecord {
  row: string;
  /** UTC day, YYYY-MM-DD. */
  day: string;
  /** Null: the transcript named no model. */
  model: string | null;
  /** "main" (the conversation) or the subagent file's name. */
  source: string;
  turns: number;
  /** Tokens billed at the model's base prices. */
  tokens: TokenCounts;
  /** Tokens of responses whose prompt passed the model's long-prompt threshold (billed at those prices). */
  longTokens: TokenCounts;
}

export interface UsageLatest {
  row: string;
  model: string | null;
  contextTokens: number | null;
  contextWindow: number | null;
  limits: RateLimits | null;
  at: number;
}

export interface UsageCommit {
  row: string;
  path: string;
  state: FollowState;
  totals: readonly UsageTotalRecord[];
  latest: Omit<UsageLatest, 'row'> | null;
}

export interface UsageLedger {
  /** Every file of `row` read so far, with where reading stopped. */
  files(row: string): Array<{ path: string; state: FollowState }>;
  /** A slice's totals, the file state after it and the row's newest context and limits, all or nothing. */
  commit(c: UsageCommit, now: number): void;
  /** Totals from UTC day `since` on, of one row or every row. */
  totals(q?: { row?: string; since?: string }): UsageTotalRecord[];
  latest(row: string): UsageLatest | undefined;
}

/** An empty increment for (row, day, model, source). */
export function emptyTotal(row: string, day: string, model: string | null, source: string): UsageTotalRecord {
  return { row, day, model, source, turns: 0, tokens: zeroTokens(), longTokens: zeroTokens() };
}
