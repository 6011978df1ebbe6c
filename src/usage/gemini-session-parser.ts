// Gemini CLI's session file (0.61: `~/.gemini/tmp/<project>/chats/session-<time>-<id:8>.jsonl`, one
// record a line, appended): its chat recorder puts the API's usageMetadata on each `gemini` message as
// `tokens` {input (promptTokenCount, cached included), output (candidates), cached, thoughts, tool
// (toolUsePromptTokenCount), total} beside `model`, and writes the message again (same `id`) each time
// it adds to it, so each id is counted once (response-dedup.ts). A `$rewindTo` record drops messages
// from the conversation, not from what was spent: counted tokens stay counted.
// Releases before the JSONL recorder wrote one JSON document rewritten whole; that form cannot be
// followed by offset and is not read. Checked against a file the pinned CLI wrote (test/fixtures/usage/gemini).
import { ResponseDedup } from './response-dedup.js';
import { count, isObject, timestampOf, type LineVerdict, type TranscriptParser } from './transcript-parser.js';
import { isZeroTokens, type TokenCounts } from './token-counts.js';
import type { UsageSink } from './usage-turn.js';

const KNOWN_TYPES = new Set(['user', 'gemini', 'info', 'error', 'warning']);

export class GeminiSessionParser implements TranscriptParser {
  readonly markers = [Buffer.from('"tokens"')];
  private readonly dedup = new ResponseDedup();

  parse(record: unknown, readAt: number, sink: UsageSink): LineVerdict {
    if (!isObject(record)) return 'unknown';
    if (record.type !== 'gemini') {
      const known = (typeof record.type === 'string' && KNOWN_TYPES.has(record.type)) || '$rewindTo' in record || '$set' in record || 'sessionId' in record;
      return known ? 'known' : 'unknown';
    }
    const t = record.tokens;
    if (!isObject(t) || typeof record.id !== 'string') return 'known';
    const cached = count(t.cached);
    const prompt = count(t.input) + count(t.tool);
    const usage: TokenCounts = { input: Math.max(0, prompt - cached), cacheRead: cached, cacheWrite: 0, output: count(t.output) + count(t.thoughts), reasoning: count(t.thoughts) };
    const tokens = this.dedup.add(record.id, usage);
    if (isZeroTokens(tokens)) return 'known';
    sink.turn({ model: typeof record.model === 'string' ? record.model : null, at: timestampOf(record, readAt), tokens, contextTokens: prompt, contextWindow: null });
    return 'counted';
  }

  save(): unknown {
    return { responses: this.dedup.save() };
  }

  restore(state: unknown): void {
    this.dedup.restore(isObject(state) ? state.responses : undefined);
  }
}
