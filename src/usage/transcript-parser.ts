// The contract between the follower (which reads bytes) and an agent's transcript format (which
// knows what a line means). A parser is stateful (a response spread over lines, a cumulative counter)
// and its state is plain JSON, saved with the file's offset so a restart resumes exactly where the
// last committed read stopped.
import type { UsageSink } from './usage-turn.js';

/** What a parsed line was: it gave usage or limits, it was a known kind with none, or a kind this parser does not know. */
export type LineVerdict = 'counted' | 'known' | 'unknown';

export interface TranscriptParser {
  /**
   * Byte strings one of which every line with usage holds. Lines holding none are skipped unparsed
   * (most of a transcript: tool output, file contents), which is what lets a large file be summed fast.
   */
  readonly markers: readonly Buffer[];
  /**
   * Byte strings that mark a short line of news that is not usage (Claude Code's interrupt line). A
   * line found only by one of these is parsed only when it is at most EVENT_LINE_BYTES long: the real
   * line is a few hundred bytes, so a huge line that merely holds the string costs no parse.
   */
  readonly eventMarkers?: readonly Buffer[];
  /** One line, JSON-parsed. `readAt` stands in for a line without a timestamp. */
  parse(record: unknown, readAt: number, sink: UsageSink): LineVerdict;
  /** The state a restart needs (JSON), and its restore. */
  save(): unknown;
  restore(state: unknown): void;
}

/** The longest line an event marker alone gets parsed for (transcript-follower.ts). */
export const EVENT_LINE_BYTES = 16 * 1024;

/** A record's own timestamp (ISO text) in ms, or `fallback`. */
export function timestampOf(record: { timestamp?: unknown }, fallback: number): number {
  if (typeof record.timestamp === 'string') {
    const t = Date.parse(record.timestamp);
    if (Number.isFinite(t)) return t;
  }
  return fallback;
}

/** A non-negative integer from a field, or 0. */
export function count(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0;
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
