// `swb usage`'s report (grouped, priced, "no price" for unknown models, bounded) and the row header's
// compact form and the `$` overlay's lines.
import { describe, expect, it } from 'vitest';
import type { RowView } from '../../../src/app/app-state.js';
import { usageLines } from '../../../src/app/usage-lines.js';
import { mergePrices } from '../../../src/usage/price-table.js';
import { compactUsage, type RowUsageView } from '../../../src/usage/row-usage-view.js';
import { zeroTokens } from '../../../src/usage/token-counts.js';
import type { UsageTotalRecord } from '../../../src/usage/usage-ledger.js';
import { usageReport } from '../../../src/usage/usage-report.js';

const prices = mergePrices([], { priced: { input: 2, output: 10, cacheRead: 1, cacheWrite: 3, contextWindow: 1000 } });
const rec = (row: string, day: string, model: string | null, input: number, output = 0): UsageTotalRecord => ({
  row, day, model, source: 'main', turns: 1, tokens: { ...zeroTokens(), input, output }, longTokens: zeroTokens(),
});
const records = [rec('a', '2026-12-04', 'priced', 1_000_000), rec('a', '2026-12-05', 'mystery', 500, 5), rec('b', '2026-12-05', 'priced', 0, 100_000), rec('b', '2026-12-05', null, 7)];

describe('usageReport', () => {
  it('groups by row, prices what it knows and names what it does not', () => {
    const r = usageReport(records, prices, { by: 'row' });
    expect(r.groups.map((g) => [g.key, g.turns, g.tokens.input, g.cost, g.unpriced])).toEqual([
      ['a', 2, 1_000_500, 2, ['mystery']],
      ['b', 2, 7, 1, ['(unnamed)']],
    ]);
    expect(r.total).toMatchObject({ turns: 4, cost: 3, unpriced: ['mystery', '(unnamed)'] });
    expect(r.truncated).toBe(false);
  });

  it('by model, day and agent', () => {
    expect(usageReport(records, prices, { by: 'model' }).groups.map((g) => g.key)).toEqual(['(unnamed)', 'mystery', 'priced']);
    expect(usageReport(records, prices, { by: 'day' }).groups.map((g) => [g.key, g.turns])).toEqual([['2026-12-04', 1], ['2026-12-05', 3]]);
    expect(usageReport(records, prices, { by: 'agent', agentOf: (r) => (r === 'a' ? 'claude' : null) }).groups.map((g) => g.key)).toEqual(['(unknown)', 'claude']);
  });

  it('keeps the largest groups when there are too many; the total has them all', () => {
    const r = usageReport(records, prices, { by: 'row', maxGroups: 1 });
    expect(r.truncated).toBe(true);
    expect(r.groups.map((g) => g.key)).toEqual(['a']);
    expect(r.total.turns).toBe(4);
  });
});

const view = (over: Partial<RowUsageView> = {}): RowUsageView => ({
  row: 'a', turns: 3, tokens: { input: 1000, cacheRead: 20_000, cacheWrite: 500, output: 700, reasoning: 0 }, cost: 0.4213, unpriced: [],
  byModel: [{ model: 'priced', turns: 3, tokens: { input: 1000, cacheRead: 20_000, cacheWrite: 500, output: 700, reasoning: 0 }, cost: 0.4213 }],
  context: { tokens: 310, window: 1000, fraction: 0.31 },
  limits: { primary: { usedPercent: 42, windowMinutes: 300, resetsAt: Date.parse('2026-12-05T14:30:00Z') }, secondary: null, at: 0 },
  at: 0, budget: null, ...over,
});

describe('compactUsage', () => {
  it('drops the plan, the fill, then the cost as the room shrinks', () => {
    expect(compactUsage(view(), 80)).toBe('22.2k tok $0.42 ctx 31% plan 42%');
    expect(compactUsage(view(), 24)).toBe('22.2k tok $0.42 ctx 31%');
    expect(compactUsage(view(), 15)).toBe('22.2k tok $0.42');
    expect(compactUsage(view(), 9)).toBe('22.2k tok');
    expect(compactUsage(view(), 8)).toBe('');
    expect(compactUsage(null, 80)).toBe('');
  });

  it('says "no price" rather than a cost it does not know, and the budget first', () => {
    expect(compactUsage(view({ cost: 0, unpriced: ['mystery'], context: null, limits: null }), 80)).toBe('22.2k tok no price');
    expect(compactUsage(view({ unpriced: ['mystery'], context: null, limits: null }), 80)).toBe('22.2k tok $0.42+?');
    const over = view({ budget: { level: 'over', text: '$5.10 of $5.00', scope: 'row', wakesStopped: true } });
    expect(compactUsage(over, 30)).toBe('OVER BUDGET, wakes off');
  });
});

describe('usageLines', () => {
  it('the focused row first, every figure, "no price" per model, plan resets', () => {
    const rows = [
      { name: 'a', profile: 'claude', usage: view() },
      { name: 'b', profile: 'codex', usage: view({ row: 'b', cost: 0, unpriced: ['mystery'], byModel: [{ model: 'mystery', turns: 1, tokens: zeroTokens(), cost: null }], limits: null }) },
      { name: 'c', profile: null, usage: null },
    ] as unknown as RowView[];
    const lines = usageLines(rows, 'b', Date.parse('2026-12-05T13:10:00Z'));
    expect(lines[0]).toBe('@b · codex · 3 turns');
    expect(lines).toContain('  cost     no price for mystery');
    expect(lines).toContain('  model    mystery: 1 turn, 0 tokens, no price');
    expect(lines).toContain('  tokens   in 1,000 · cache read 20,000 · cache write 500 · out 700');
    expect(lines).toContain('  cost     $0.42 at list price');
    expect(lines).toContain('  context  310 tokens of 1,000 (31%)');
    expect(lines).toContain('  plan     5h window 42% used, resets in 1h20m (12-05 14:30 UTC)');
    expect(lines.some((l) => l.startsWith('@c'))).toBe(false);
  });
});
