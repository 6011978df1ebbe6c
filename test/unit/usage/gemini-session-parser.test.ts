// Gemini CLI 0.61's session file, in the shape its chat recorder writes (its bundle: recordMessageTokens
// puts usageMetadata on the last `gemini` message as `tokens` and appends the message again; a
// `$rewindTo` record drops messages from the conversation). No file of the real CLI is a fixture yet:
// the shape below is read from the pinned release's code, not captured (see the report of #38).
import { describe, expect, it } from 'vitest';
import { GeminiSessionParser } from '../../../src/usage/gemini-session-parser.js';
import type { UsageTurn } from '../../../src/usage/usage-turn.js';

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
