// Counts each model response once although the agent writes it on several lines. Claude Code writes
// one transcript line per content block of a response, each with the response's usage (the same
// `message.id`); Gemini CLI writes a message again each time it adds to it (same `id`). Per key this
// keeps the largest value seen of each field, and a line adds only what exceeds it, so repeated lines
// add nothing and a line with grown usage (a stream's final output count) adds the growth.
// Keys are kept for the newest MAX_KEYS responses: a response's lines are written together, so an
// old key never comes back, and the state saved with the file's offset stays small.
import { type TokenCounts, zeroTokens } from './token-counts.js';

export const MAX_KEYS = 64;

export class ResponseDedup {
  private readonly seen = new Map<string, TokenCounts>();

  /** The tokens `usage` adds for response `key` beyond what earlier lines of it counted. */
  add(key: string, usage: Readonly<TokenCounts>): TokenCounts {
    const before = this.seen.get(key);
    if (!before) {
      this.seen.set(key, { ...usage });
      if (this.seen.size > MAX_KEYS) this.seen.delete(this.seen.keys().next().value!);
      return { ...usage };
    }
    const added = zeroTokens();
    for (const f of FIELDS) {
      if (usage[f] > before[f]) {
        added[f] = usage[f] - before[f];
        before[f] = usage[f];
      }
    }
    return added;
  }

  save(): Array<[string, TokenCounts]> {
    return [...this.seen];
  }

  restore(state: unknown): void {
    this.seen.clear();
    if (!Array.isArray(state)) return;
    for (const entry of state.slice(-MAX_KEYS)) {
      if (Array.isArray(entry) && typeof entry[0] === 'string' && typeof entry[1] === 'object' && entry[1] !== null) {
        const t = zeroTokens();
        for (const f of FIELDS) t[f] = Number((entry[1] as Record<string, unknown>)[f]) || 0;
        this.seen.set(entry[0], t);
      }
    }
  }
}

const FIELDS = ['input', 'cacheRead', 'cacheWrite', 'output', 'reasoning'] as const;
