// Codex's rollout file (`${CODEX_HOME:-~/.codex}/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`, the
// file swb already finds for resume): `event_msg` lines with `payload.type == "token_count"` carry
// `info.total_token_usage` (cumulative over the thread), `info.last_token_usage` (the last response),
// `info.model_context_window`, and `rate_limits.primary/secondary` (used_percent, window_minutes,
// resets_at in seconds) that Codex read from its API's x-codex-* headers; `turn_context` lines name the
// model. OpenAI counts cached (and cache-write) input inside input_tokens and reasoning inside
// output_tokens; here they are split out (token-counts.ts).
// Counted from the cumulative total: a token_count repeated (Codex writes one per response, and
// again with limits only) adds nothing. A resume appends to the same file and carries the total on;
// if a process started its count again from zero, the last response's usage is what is new.
// Codex 0.171 also writes `token_usage_record` lines (one per response, with its id): the same
// numbers, so they are known and not counted a second time.
import { count, isObject, timestampOf, type LineVerdict, type TranscriptParser } from './transcript-parser.js';
import { isZeroTokens, zeroTokens, type TokenCounts } from './token-counts.js';
import type { RateLimitWindow, UsageSink } from './usage-turn.js';

const KNOWN_TYPES = new Set(['session_meta', 'turn_context', 'event_msg', 'response_item', 'compacted', 'token_usage_record', 'world_state', 'thread_settings_applied']);

/** Codex's own counters for one usage block, as written. */
interface CodexUsage {
  input: number;
  cached: number;
  cacheWrite: number;
  output: number;
  reasoning: number;
}

export class CodexRolloutParser implements TranscriptParser {
  readonly markers = [Buffer.from('"token_count"'), Buffer.from('"turn_context"')];
  private model: string | null = null;
  private total: CodexUsage = { input: 0, cached: 0, cacheWrite: 0, output: 0, reasoning: 0 };

  parse(record: unknown, readAt: number, sink: UsageSink): LineVerdict {
    if (!isObject(record) || typeof record.type !== 'string') return 'unknown';
    const payload = record.payload;
    if (record.type === 'turn_context') {
      if (isObject(payload) && typeof payload.model === 'string') this.model = payload.model;
      return 'known';
    }
    if (record.type !== 'event_msg' || !isObject(payload) || payload.type !== 'token_count') return KNOWN_TYPES.has(record.type) ? 'known' : 'unknown';
    const at = timestampOf(record, readAt);
    let verdict: LineVerdict = 'known';
    const info = payload.info;
    if (isObject(info) && isObject(info.total_token_usage)) {
      const total = codexUsage(info.total_token_usage);
      const last = isObject(info.last_token_usage) ? codexUsage(info.last_token_usage) : null;
      const added = this.addedBy(total, last);
      this.total = total;
      if (!isZeroTokens(added)) {
        const window = count(info.model_context_window);
        sink.turn({ model: this.model, at, tokens: added, contextTokens: last ? last.input : null, contextWindow: window > 0 ? window : null });
        verdict = 'counted';
      }
    }
    const limits = payload.rate_limits;
    if (isObject(limits)) {
      const primary = windowOf(limits.primary);
      const secondary = windowOf(limits.secondary);
      if (primary || secondary) {
        sink.limits({ primary, secondary, at });
        verdict = 'counted';
      }
    }
    return verdict;
  }

  /** What this token_count adds beyond the total already counted. */
  private addedBy(total: CodexUsage, last: CodexUsage | null): TokenCounts {
    const prev = this.total;
    // The same total again (Codex writes a token_count more than once per response): nothing new.
    if (sameUsage(total, prev)) return zeroTokens();
    const prevZero = prev.input === 0 && prev.output === 0;
    // A count begun again from zero (its total is just its last response) while ours is not zero.
    const restarted = last !== null && !prevZero && sameUsage(total, last);
    const grew = total.input >= prev.input && total.cached >= prev.cached && total.cacheWrite >= prev.cacheWrite && total.output >= prev.output && total.reasoning >= prev.reasoning;
    const added = restarted || !grew ? (last ?? zeroUsage()) : difference(total, prev);
    return tokensOf(added);
  }

  save(): unknown {
    return { model: this.model, total: this.total };
  }

  restore(state: unknown): void {
    if (!isObject(state)) return;
    this.model = typeof state.model === 'string' ? state.model : null;
    if (isObject(state.total)) {
      const t = state.total;
      this.total = { input: count(t.input), cached: count(t.cached), cacheWrite: count(t.cacheWrite), output: count(t.output), reasoning: count(t.reasoning) };
    }
  }
}

function codexUsage(u: Record<string, unknown>): CodexUsage {
  return {
    input: count(u.input_tokens),
    cached: count(u.cached_input_tokens),
    cacheWrite: count(u.cache_write_input_tokens),
    output: count(u.output_tokens),
    reasoning: count(u.reasoning_output_tokens),
  };
}

function zeroUsage(): CodexUsage {
  return { input: 0, cached: 0, cacheWrite: 0, output: 0, reasoning: 0 };
}

function sameUsage(a: CodexUsage, b: CodexUsage): boolean {
  return a.input === b.input && a.cached === b.cached && a.cacheWrite === b.cacheWrite && a.output === b.output && a.reasoning === b.reasoning;
}

function difference(a: CodexUsage, b: CodexUsage): CodexUsage {
  return { input: a.input - b.input, cached: a.cached - b.cached, cacheWrite: a.cacheWrite - b.cacheWrite, output: a.output - b.output, reasoning: a.reasoning - b.reasoning };
}

function tokensOf(u: CodexUsage): TokenCounts {
  const t = zeroTokens();
  t.cacheRead = u.cached;
  t.cacheWrite = u.cacheWrite;
  t.input = Math.max(0, u.input - u.cached - u.cacheWrite);
  t.output = u.output;
  t.reasoning = u.reasoning;
  return t;
}

function windowOf(w: unknown): RateLimitWindow | null {
  if (!isObject(w) || typeof w.used_percent !== 'number') return null;
  const windowMinutes = typeof w.window_minutes === 'number' ? w.window_minutes : null;
  // resets_at: seconds since the epoch (Codex 0.171); older releases wrote resets_in_seconds.
  const resetsAt = typeof w.resets_at === 'number' ? w.resets_at * 1000 : null;
  return { usedPercent: w.used_percent, windowMinutes, resetsAt };
}
