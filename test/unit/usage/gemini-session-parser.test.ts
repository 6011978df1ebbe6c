// Gemini CLI 0.61's session file. First the real one: the pinned CLI, headless against the stand-in
// (test/fixtures/usage/gemini, re-captured by its capture.sh), answered a turn, then a resumed session
// appended a turn with a shell tool call to the same file (the tool message written twice under one id,
// the second time with its toolCalls; a `$set` rewriting the messages on resume). The stand-in's request
// log says what it handed out: the conversation's responses are counted exactly; its side requests (the
// CLI's model router, on a small model) are not in the file and so not in the count.
// Then hand-written records for what the capture does not show (a `$rewindTo`, tool-use prompt tokens).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GeminiSessionParser } from '../../../src/usage/gemini-session-parser.js';
import type { UsageTurn } from '../../../src/usage/usage-turn.js';
import { sumTranscript } from '../../helpers/usage-sum.js';

const DIR = new URL('../../fixtures/usage/gemini/', import.meta.url).pathname;
const SESSION = join(DIR, readdirSync(DIR).find((f) => f.startsWith('session-') && f.endsWith('.jsonl'))!);
interface Handed {
  path: string;
  side: boolean;
  usage: { promptTokenCount: number; candidatesTokenCount: number; cachedContentTokenCount?: number; thoughtsTokenCount: number };
}
const handed = readFileSync(join(DIR, 'handed-out.ndjson'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Handed);
const conversation = handed.filter((r) => !r.side);

describe('GeminiSessionParser over a real Gemini CLI session file', () => {
  it('each response once, exactly as handed out, across the resume that appended to the same file', () => {
    const sum = sumTranscript('gemini', [SESSION]);
    expect(conversation).toHaveLength(3);
    expect(sum.turns.map((t) => t.tokens)).toEqual(
      conversation.map(({ usage: u }) => ({
        input: u.promptTokenCount - (u.cachedContentTokenCount ?? 0),
        cacheRead: u.cachedContentTokenCount ?? 0,
        cacheWrite: 0,
        output: u.candidatesTokenCount + u.thoughtsTokenCount,
        reasoning: u.thoughtsTokenCount,
      })),
    );
    // The model the CLI asked for (the request's path), the context fill the last prompt.
    expect(sum.turns.map((t) => t.model)).toEqual(conversation.map((r) => /models\/([^:]+):/.exec(r.path)![1]));
    expect(sum.turns.at(-1)!.contextTokens).toBe(conversation.at(-1)!.usage.promptTokenCount);
    expect(sum.limits).toBeNull();
  });
});

const records = [
  { sessionId: 's', projectHash: 'p', startTime: '2026-12-05T10:00:00.000Z', lastUpdated: '2026-12-05T10:00:00.000Z', kind: 'main' },
  { id: 'u1', timestamp: '2026-12-05T10:00:01.000Z', type: 'user', content: [{ text: 'hi' }] },
  { id: 'g1', timestamp: '2026-12-05T10:00:02.000Z', type: 'gemini', content: 'Hello', model: 'gemini-2.5-pro' },
  { id: 'g1', timestamp: '2026-12-05T10:00:02.000Z', type: 'gemini', content: 'Hello', model: 'gemini-2.5-pro', tokens: { input: 1200, output: 30, cached: 1000, thoughts: 12, tool: 5, total: 1247 } },
  { id: 'g1', timestamp: '2026-12-05T10:00:02.000Z', type: 'gemini', content: 'Hello', model: 'gemini-2.5-pro', tokens: { input: 1200, output: 30, cached: 1000, thoughts: 12, tool: 5, total: 1247 }, toolCalls: [] },
  { $rewindTo: 'u1' },
  { id: 'g2', timestamp: '2026-12-05T10:00:03.000Z', type: 'gemini', content: 'Again', model: 'gemini-2.5-pro', tokens: { input: 1300, output: 10, cached: 0, thoughts: 0, tool: 0, total: 1310 } },
];

describe('GeminiSessionParser', () => {
  it('each message id counted once, cached input and thoughts split out, a rewind keeps what was spent', () => {
    const parser = new GeminiSessionParser();
    const turns: UsageTurn[] = [];
    const verdicts = records.map((r) => parser.parse(r, 0, { turn: (t) => turns.push(t), limits: () => {} }));
    expect(verdicts).toEqual(['known', 'known', 'known', 'counted', 'known', 'known', 'counted']);
    expect(turns.map((t) => t.tokens)).toEqual([
      { input: 205, cacheRead: 1000, cacheWrite: 0, output: 42, reasoning: 12 },
      { input: 1300, cacheRead: 0, cacheWrite: 0, output: 10, reasoning: 0 },
    ]);
    expect(turns[0]).toMatchObject({ model: 'gemini-2.5-pro', contextTokens: 1205, at: Date.parse('2026-12-05T10:00:02.000Z') });
  });
});
