// Claude Code's transcript (`${CLAUDE_CONFIG_DIR:-~/.claude}/projects/<slug of cwd>/<session>.jsonl`,
// its subagents' in `<session>/subagents/*.jsonl`): each assistant line carries `message.model` and
// `message.usage` (input_tokens uncached, cache_creation_input_tokens, cache_read_input_tokens,
// output_tokens). One response is written as several lines, one per content block, with the same
// `message.id` (and `requestId`): each response is counted once (response-dedup.ts). Lines of the
// CLI's own making (model "<synthetic>", an API error shown as a message) hold no model usage.
// A turn the operator stops with Esc once its answer has begun, or while a tool runs, is written as a
// user line whose content is one text block, exactly `[Request interrupted by user]` (or `... for tool
// use]`), about 0.1 s after the key: Claude Code 2.1 has no hook for it, so the row's state reads it
// here (bench/states/claude-transcript-probe.mjs). The line is data: only that exact structure counts,
// never a prompt or a tool's output that quotes the words (a quote inside a JSON string has its quotes
// escaped, so the event markers below never match one).
import { ResponseDedup } from './response-dedup.js';
import { count, isObject, timestampOf, type LineVerdict, type TranscriptParser } from './transcript-parser.js';
import { isZeroTokens, promptTokens, type TokenCounts } from './token-counts.js';
import type { TurnInterrupt, UsageSink } from './usage-turn.js';

/** The line kinds Claude Code 2.1 writes; any other is counted as unknown. */
const KNOWN_TYPES = new Set([
  'assistant', 'user', 'system', 'summary', 'attachment', 'progress', 'file-history-snapshot', 'queue-operation', 'last-prompt', 'custom-title', 'tag',
  'mode', 'permission-mode', 'atis-latch', 'api-request', 'api-request-blob', 'api-request-shape', 'tools-used', 'cost-state',
]);

/** The text of Claude Code's interrupt line, exactly, and what the turn was doing. */
const INTERRUPT_TEXTS: ReadonlyMap<string, TurnInterrupt['during']> = new Map([
  ['[Request interrupted by user]', 'answer'],
  ['[Request interrupted by user for tool use]', 'tool'],
]);

export class ClaudeTranscriptParser implements TranscriptParser {
  readonly markers = [Buffer.from('"usage"')];
  readonly eventMarkers = [...INTERRUPT_TEXTS.keys()].map((text) => Buffer.from(`"text":${JSON.stringify(text)}`));
  private readonly dedup = new ResponseDedup();

  parse(record: unknown, readAt: number, sink: UsageSink): LineVerdict {
    if (!isObject(record)) return 'unknown';
    if (record.type === 'user') {
      const during = interruptOf(record);
      if (during !== null) sink.interrupted?.({ at: timestampOf(record, readAt), during });
      return 'known';
    }
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

/**
 * What an interrupt line says the turn was doing, or null when the line is not one: the conversation's
 * own (not a subagent's) user message whose content is a single text block holding exactly the marker.
 */
function interruptOf(record: Record<string, unknown>): TurnInterrupt['during'] | null {
  if (record.isSidechain === true) return null;
  const message = record.message;
  if (!isObject(message) || message.role !== 'user' || !Array.isArray(message.content) || message.content.length !== 1) return null;
  const block: unknown = message.content[0];
  if (!isObject(block) || block.type !== 'text' || typeof block.text !== 'string') return null;
  return INTERRUPT_TEXTS.get(block.text) ?? null;
}
