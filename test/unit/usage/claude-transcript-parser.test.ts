// Claude Code's transcript, as the pinned CLI wrote it against the stand-in (test/fixtures/usage/claude,
// captured by test/real-agents/usage-transcripts.test.ts): a turn, a Read tool (one response written as
// two lines), a subagent, a resume appending to the same file, and a /compact.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ClaudeTranscriptParser } from '../../../src/usage/claude-transcript-parser.js';
import type { UsageTurn } from '../../../src/usage/usage-turn.js';
import { sumTranscript } from '../../helpers/usage-sum.js';

const DIR = new URL('../../fixtures/usage/claude/', import.meta.url).pathname;
const main = readdirSync(join(DIR, 'project')).find((f) => f.endsWith('.jsonl'))!;
const session = main.replace(/\.jsonl$/, '');
const MAIN = join(DIR, 'project', main);
const SUBAGENTS = join(DIR, 'project', session, 'subagents');
const subagentFiles = readdirSync(SUBAGENTS).map((f) => join(SUBAGENTS, f));

interface Handed {
  tools: string[];
  lastUser: string;
  userTexts: string[];
  usage: { input_tokens: number; cache_creation_input_tokens: number; cache_read_input_tokens: number; output_tokens: number };
}
const handed = JSON.parse(readFileSync(join(DIR, 'handed-out.json'), 'utf8')) as Handed[];
const isCompaction = (r: Handed) => r.userTexts.some((t) => t.includes('CRITICAL: Respond with TEXT ONLY'));
const tokensOf = (r: Handed) => ({ input: r.usage.input_tokens, cacheWrite: r.usage.cache_creation_input_tokens, cacheRead: r.usage.cache_read_input_tokens, output: r.usage.output_tokens, reasoning: 0 });

function turnsOf(lines: string[]): UsageTurn[] {
  const parser = new ClaudeTranscriptParser();
  const turns: UsageTurn[] = [];
  for (const l of lines) parser.parse(JSON.parse(l), 0, { turn: (t) => turns.push(t), limits: () => {} });
  return turns;
}

describe('ClaudeTranscriptParser over a real Claude Code transcript', () => {
  it('counts each response the transcript records once: the conversation and its subagent, exactly as handed out', () => {
    const sum = sumTranscript('claude', [MAIN, ...subagentFiles]);
    const conversation = handed.filter((r) => r.tools.length > 0 && !isCompaction(r));
    expect(sum.turns.map((t) => t.tokens)).toEqual(expect.arrayContaining(conversation.map(tokensOf)));
    expect(sum.turns).toHaveLength(conversation.length);
    expect(sum.turns.every((t) => t.model === 'claude-opus-5-5')).toBe(true);
  });

  it('a response written as several lines (text, then tool_use) is one turn', () => {
    const lines = readFileSync(MAIN, 'utf8').split('\n').filter((l) => l.includes('"type":"assistant"'));
    const ids = lines.map((l) => (JSON.parse(l) as { message: { id: string } }).message.id);
    expect(new Set(ids).size).toBeLessThan(ids.length); // the fixture does have a response on two lines
    expect(turnsOf(lines)).toHaveLength(new Set(ids).size);
  });

  it('the subagent writes its own file: its responses are counted from it, not from the conversation', () => {
    const helper = handed.find((r) => r.lastUser.startsWith('helper task'))!;
    expect(sumTranscript('claude', subagentFiles).turns.map((t) => t.tokens)).toEqual([tokensOf(helper)]);
    expect(sumTranscript('claude', [MAIN]).turns.map((t) => t.tokens)).not.toContainEqual(tokensOf(helper));
  });

  it('a resume appends to the same file and a compaction leaves the responses before it counted; the context is the last prompt', () => {
    const turns = sumTranscript('claude', [MAIN]).turns;
    const after = handed.find((r) => r.lastUser === 'after the resume')!;
    const afterCompaction = handed.find((r) => r.lastUser === 'after compaction')!;
    expect(turns.map((t) => t.tokens)).toContainEqual(tokensOf(after));
    expect(turns.at(-1)!.tokens).toEqual(tokensOf(afterCompaction));
    const u = afterCompaction.usage;
    expect(turns.at(-1)!.contextTokens).toBe(u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens);
    // The compaction summaries Claude Code asked for are not in its transcript (reported: see the real-agent test).
    expect(handed.filter(isCompaction).length).toBeGreaterThan(0);
  });

  it('a line of grown usage for a response adds only the growth; the same line again adds nothing', () => {
    const line = (output: number) => ({ type: 'assistant', requestId: 'req_1', message: { id: 'msg_1', model: 'claude-sonnet-4-5', usage: { input_tokens: 10, cache_creation_input_tokens: 5, cache_read_input_tokens: 100, output_tokens: output } } });
    const parser = new ClaudeTranscriptParser();
    const turns: UsageTurn[] = [];
    const sink = { turn: (t: UsageTurn) => turns.push(t), limits: () => {} };
    parser.parse(line(1), 0, sink);
    parser.parse(line(40), 0, sink);
    parser.parse(line(40), 0, sink);
    expect(turns.map((t) => t.tokens)).toEqual([
      { input: 10, cacheWrite: 5, cacheRead: 100, output: 1, reasoning: 0 },
      { input: 0, cacheWrite: 0, cacheRead: 0, output: 39, reasoning: 0 },
    ]);
    // The open response survives a restart: its saved state knows what was counted.
    const restored = new ClaudeTranscriptParser();
    restored.restore(JSON.parse(JSON.stringify(parser.save())));
    expect(restored.parse(line(40), 0, sink)).toBe('known');
    expect(turns).toHaveLength(2);
  });

  it('synthetic and API-error messages are not model usage; unknown line kinds are told apart', () => {
    const parser = new ClaudeTranscriptParser();
    const sink = { turn: () => { throw new Error('no turn expected'); }, limits: () => {} };
    expect(parser.parse({ type: 'assistant', message: { id: 'x', model: '<synthetic>', usage: { input_tokens: 0, output_tokens: 0 } } }, 0, sink)).toBe('known');
    expect(parser.parse({ type: 'assistant', isApiErrorMessage: true, message: { id: 'y', model: 'claude-opus-5-5', usage: { input_tokens: 3, output_tokens: 1 } } }, 0, sink)).toBe('known');
    expect(parser.parse({ type: 'cost-state', modelUsage: {} }, 0, sink)).toBe('known');
    expect(parser.parse({ type: 'something-new', usage: {} }, 0, sink)).toBe('unknown');
  });
});
