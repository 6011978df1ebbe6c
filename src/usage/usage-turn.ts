// What a transcript parser finds: a model response's usage (a turn, counted once), and the plan's
// rate-limit windows when the agent records them (Codex does, from its API's x-codex-* headers).
// These are the only facts the rest of src/usage/ works from. One more fact rides along because the
// same reading finds it: a turn the operator stopped (Claude Code's `[Request interrupted by user]`
// line), which no hook of Claude's reports; the row's state reads it (issue #37).
import type { TokenCounts } from './token-counts.js';

export interface UsageTurn {
  /** The model as the transcript names it (null when the line names none and none came before). */
  model: string | null;
  /** When the response was recorded (ms since the epoch; the file's own timestamp, else the read time). */
  at: number;
  /**
   * Tokens newly counted by this record. For a response spread over several lines this is what the
   * later line adds to what an earlier line already counted, so the sum over turns is exact.
   */
  tokens: TokenCounts;
  /** Input of the whole response (cached included): the context fill after it. Null when unknown. */
  contextTokens: number | null;
  /** The model's context window when the file itself says it (Codex's model_context_window). */
  contextWindow: number | null;
}

export interface RateLimitWindow {
  usedPercent: number;
  windowMinutes: number | null;
  /** When the window resets (ms since the epoch), when known. */
  resetsAt: number | null;
}

export interface RateLimits {
  /** The short window (a plan's five hours). */
  primary: RateLimitWindow | null;
  /** The long window (a plan's week). */
  secondary: RateLimitWindow | null;
  /** When the agent recorded them (ms since the epoch). */
  at: number;
}

/** A turn the operator stopped (Esc), as the agent recorded it: during its answer, or during a tool. */
export interface TurnInterrupt {
  /** When the agent recorded it (ms since the epoch; the line's own timestamp, else the read time). */
  at: number;
  during: 'answer' | 'tool';
}

/** Where a parser puts what a line gave. */
export interface UsageSink {
  turn(turn: UsageTurn): void;
  limits(limits: RateLimits): void;
  /** Optional: only a reader that follows a row's own conversation as it is written listens. */
  interrupted?(interrupt: TurnInterrupt): void;
}
