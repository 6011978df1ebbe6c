// Claude Code's transcript (`${CLAUDE_CONFIG_DIR:-~/.claude}/projects/<slug of cwd>/<session>.jsonl`,
// its subagents' in `<session>/subagents/*.jsonl`): each assistant line carries `message.model` and
// `message.usage` (input_tokens uncached, cache_creation_input_tokens, cache_read_input_tokens,
// output_tokens). One response is written as several lines, one per content block, with the same
// `message.id` (and `requestId`): each response is counted once (response-dedup.ts). Lines of the
// CLI's own making (model "<synthetic>", an API error shown as a message) hold no model usage.
import { ResponseDedup } from './response-dedup.js';
import { count, isObject, timestampOf, type LineVerdict, type TranscriptParser } from './transcript-parser.js';
import { isZeroTokens, promptTokens, type TokenCounts } from './token-counts.js';
import type { UsageSink } from './usage-turn.js';

/** The line kinds Claude Code 2.1 writes; any other is counted as unknown. */
const KNOWN_TYPES = new Set([
  'assistant', 'user', 'system', 'summary', 'attachment', 'progress', 'file-history-snapshot', 'queue-operation', 'last-prompt', 'custom-title', 'tag',
  'mode', 'permission-mode', 'atis-latch', 'api-request', 'api-request-blob', 'api-request-shape', 'tools-used', 'cost-state',
]);

export class ClaudeTranscriptParser implements TranscriptParser {
  readonly markers = [Buffer.from('"usage"')];
  private readonly dedup = new ResponseDedup();

  parse(record: unknown, readAt: number, sink: UsageSink): LineVerdict {
    if (!isObject(record)) return 'unknown';
    if (record.type !== 'assistant') return typeof record.type === 'string' && KNOWN_TYPES.has(record.type) ? 'known' : 'unknown';
    const message = record.message;
    if (!isObject(message) || !isObject(message.usage)) return 'known';
    const model = typeof message.model === 'string' ? message.model : null;
    if (model === '<synthetic>' || record.isApiErrorMessage === true) return 'known';
    const u = message.usage;
    const usage: TokenCounts = {
      input: count(u.input_tokens),
      cacheWrite: count(u.cache_creation_input_tokens),
      cacheRead: count(u.cache_read_input_tokens),
      output: count(u.output_tokens),
      reasoning: 0,
    };
    const key = typeof message.id === 'string' ? message.id : typeof record.requestId === 'string' ? record.requestId : typeof record.uuid === 'string' ? record.uuid : null;
    const tokens = key === null ? usage : this.dedup.add(key, usage);
    if (isZeroTokens(tokens)) return 'known';
    sink.turn({ model, at: timestampOf(record, readAt), tokens, contextTokens: promptTokens(usage), contextWindow: null });
    return 'counted';
  }

  save(): unknown {
    return { responses: this.dedup.save() };
  }

  restore(state: unknown): void {
    this.dedup.restore(isObject(state) ? state.responses : undefined);
  }
}
