// Codex's rollout file as the pinned CLI wrote it against the stand-in (test/fixtures/usage/codex,
// captured by test/real-agents/usage-transcripts.test.ts): two turns (one with a tool), then
// `codex resume` appending a third to the same file with the cumulative counter carried on.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CodexRolloutParser } from '../../../src/usage/codex-rollout-parser.js';
import type { RateLimits, UsageTurn } from '../../../src/usage/usage-turn.js';
import { sumTranscript } from '../../helpers/usage-sum.js';

const DIR = new URL('../../fixtures/usage/codex/', import.meta.url).pathname;
const ROLLOUT = join(DIR, readdirSync(DIR).find((f) => f.startsWith('rollout-'))!);

interface Handed {
  tools: string[];
  lastUser: string;
  usage: { input_tokens: number; input_tokens_details: { cached_tokens: number }; output_tokens: number; output_tokens_details: { reasoning_tokens: number } };
  rateLimits: Record<'primary' | 'secondary', { used_percent: number; window_minutes: number; reset_at: number }>;
}
const handed = JSON.parse(readFileSync(join(DIR, 'handed-out.json'), 'utf8')) as Handed[];
const conversation = handed.filter((r) => r.tools.length > 0);
const tokensOf = (r: Handed) => ({
  input: r.usage.input_tokens - r.usage.input_tokens_details.cached_tokens,
  cacheRead: r.usage.input_tokens_details.cached_tokens,
  cacheWrite: 0,
  output: r.usage.output_tokens,
  reasoning: r.usage.output_tokens_details.reasoning_tokens,
});

interface Counts {
  input: number;
  cached: number;
  output: number;
  reasoning: number;
}

function tokenCount(total: Counts, last: Counts | null, limits?: unknown) {
  const u = (x: Counts) => ({ input_tokens: x.input, cached_input_tokens: x.cached, output_tokens: x.output, reasoning_output_tokens: x.reasoning, total_tokens: x.input + x.output });
  return { timestamp: '2026-12-05T10:00:00.000Z', type: 'event_msg', payload: { type: 'token_count', info: { total_token_usage: u(total), last_token_usage: last && u(last), model_context_window: 258400 }, rate_limits: limits ?? null } };
}

function run(parser: CodexRolloutParser, records: unknown[]): { turns: UsageTurn[]; limits: RateLimits[] } {
  const turns: UsageTurn[] = [];
  const limits: RateLimits[] = [];
  for (const r of records) parser.parse(r, 0, { turn: (t) => turns.push(t), limits: (l) => limits.push(l) });
  return { turns, limits };
}

describe('CodexRolloutParser over a real Codex rollout', () => {
  it('each response once, exactly as handed out, across the resume that appended to the same file', () => {
    const sum = sumTranscript('codex', [ROLLOUT]);
    expect(sum.turns.map((t) => t.tokens)).toEqual(conversation.map(tokensOf));
    expect(sum.turns.every((t) => t.model === 'gpt-stub' && t.contextWindow === 258400)).toBe(true);
    // The resumed process carried the cumulative total on (the file says so; the sum above relies on it).
    const totals = readFileSync(ROLLOUT, 'utf8').split('\n').filter((l) => l.includes('"token_count"')).map((l) => (JSON.parse(l) as { payload: { info: { total_token_usage: { input_tokens: number } } } }).payload.info.total_token_usage.input_tokens);
    expect(totals).toEqual(conversation.map((r) => r.usage.input_tokens).map((_, i, a) => a.slice(0, i + 1).reduce((x, y) => x + y, 0)));
  });

  it('the plan windows Codex recorded from the x-codex-* headers: used %, window and reset time', () => {
    const sum = sumTranscript('codex', [ROLLOUT]);
    const last = conversation.at(-1)!.rateLimits;
    expect(sum.limits).toEqual({
      primary: { usedPercent: last.primary.used_percent, windowMinutes: 300, resetsAt: expect.any(Number) },
      secondary: { usedPercent: last.secondary.used_percent, windowMinutes: 10080, resetsAt: expect.any(Number) },
      at: expect.any(Number),
    });
    expect(Math.abs(sum.limits!.primary!.resetsAt! - last.primary.reset_at * 1000)).toBeLessThanOrEqual(5000);
  });

  it('the context fill is the last response input, cached included', () => {
    const sum = sumTranscript('codex', [ROLLOUT]);
    expect(sum.turns.at(-1)!.contextTokens).toBe(conversation.at(-1)!.usage.input_tokens);
  });

  it('a token_count written again adds nothing; one with limits only gives the limits', () => {
    const a = { input: 100, cached: 60, output: 10, reasoning: 2 };
    const { turns, limits } = run(new CodexRolloutParser(), [
      tokenCount(a, a),
      tokenCount(a, a),
      { type: 'event_msg', payload: { type: 'token_count', info: null, rate_limits: { primary: { used_percent: 12.5, window_minutes: 300, resets_at: 1796477988 }, secondary: null } } },
    ]);
    expect(turns).toHaveLength(1);
    expect(limits).toEqual([{ primary: { usedPercent: 12.5, windowMinutes: 300, resetsAt: 1796477988000 }, secondary: null, at: 0 }]);
  });

  it('a counter begun again from zero (a process that did not carry the total on) counts its last response', () => {
    const a = { input: 100, cached: 60, output: 10, reasoning: 2 };
    const b = { input: 200, cached: 150, output: 20, reasoning: 4 };
    const fresh = { input: 120, cached: 90, output: 12, reasoning: 1 };
    const parser = new CodexRolloutParser();
    run(parser, [tokenCount(a, a), tokenCount(b, { input: 100, cached: 90, output: 10, reasoning: 2 })]);
    const restored = new CodexRolloutParser();
    restored.restore(JSON.parse(JSON.stringify(parser.save())));
    const { turns } = run(restored, [tokenCount(fresh, fresh)]);
    expect(turns.map((t) => t.tokens)).toEqual([{ input: 30, cacheRead: 90, cacheWrite: 0, output: 12, reasoning: 1 }]);
  });

  it('the model comes from turn_context; unknown record kinds are told apart', () => {
    const parser = new CodexRolloutParser();
    const sink = { turn: () => {}, limits: () => {} };
    expect(parser.parse({ type: 'turn_context', payload: { model: 'gpt-5-codex' } }, 0, sink)).toBe('known');
    const { turns } = run(parser, [tokenCount({ input: 5, cached: 0, output: 1, reasoning: 0 }, null)]);
    expect(turns[0]!.model).toBe('gpt-5-codex');
    expect(parser.parse({ type: 'brand_new_kind', payload: {} }, 0, sink)).toBe('unknown');
  });
});
