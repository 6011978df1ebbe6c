// The price table: the provider files load and check, dated snapshot ids are priced as their model,
// similar names are not (no guess), the config overrides or adds models, and the cost matches what
// Claude Code itself computed for the same tokens (its cost-state line in the real fixture).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { costOf, isLongPrompt, loadPriceFiles, mergePrices, PriceOverridesSchema, pricesAtFirstUse } from '../../../src/usage/price-table.js';
import { check } from '../../../src/util/schema.js';

const files = loadPriceFiles();
const table = mergePrices(files);
const tokens = (input: number, cacheRead: number, cacheWrite: number, output: number) => ({ input, cacheRead, cacheWrite, output, reasoning: 0 });

describe('price table', () => {
  it('one file per provider, each with its date and source', () => {
    expect(files.map((f) => f.provider)).toEqual(['anthropic', 'google', 'openai']);
    for (const f of files) {
      expect(f.asOf).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(f.source).toMatch(/^https:\/\//);
      expect(Object.keys(f.models).length).toBeGreaterThan(3);
    }
  });

  it('a model by its id, an alias, or a dated snapshot of it; an unknown or merely similar name has no price', () => {
    expect(table.lookup('claude-sonnet-4-5')?.price).toMatchObject({ input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 });
    expect(table.lookup('claude-sonnet-4-5-20250929')?.id).toBe('claude-sonnet-4-5');
    expect(table.lookup('claude-opus-4-20250514')?.id).toBe('claude-opus-4-0');
    expect(table.lookup('gpt-4o-2024-08-06')?.id).toBe('gpt-4o');
    expect(table.lookup('claude-opus-5-5[1m]')?.id).toBe('claude-opus-5-5');
    expect(table.lookup('gpt-stub')).toBeNull();
    expect(table.lookup('gpt-5-turbo-preview')).toBeNull();
    expect(table.lookup('claude-sonnet-4-5-experimental')).toBeNull();
    expect(table.lookup(null)).toBeNull();
  });

  it('cost is the list price: the same figure Claude Code computed for the tokens of the real session', () => {
    const dir = new URL('../../fixtures/usage/claude/project/', import.meta.url).pathname;
    const main = readdirSync(dir).find((f) => f.endsWith('.jsonl'))!;
    const states = readFileSync(join(dir, main), 'utf8').split('\n').filter((l) => l.includes('"type":"cost-state"'));
    const own = JSON.parse(states.at(-1)!) as { totalCostUSD: number; modelUsage: Record<string, { inputTokens: number; outputTokens: number; cacheReadInputTokens: number; cacheCreationInputTokens: number }> };
    let ours = 0;
    for (const [model, m] of Object.entries(own.modelUsage)) ours += costOf(table.lookup(model)!.price, tokens(m.inputTokens, m.cacheReadInputTokens, m.cacheCreationInputTokens, m.outputTokens));
    expect(ours).toBeCloseTo(own.totalCostUSD, 9);
  });

  it('long prompts at their own prices, above the model threshold only', () => {
    const gemini = table.lookup('gemini-2.5-pro')!.price;
    expect(isLongPrompt(gemini, 200_000)).toBe(false);
    expect(isLongPrompt(gemini, 200_001)).toBe(true);
    expect(isLongPrompt(table.lookup('gpt-5')!.price, 10_000_000)).toBe(false);
    expect(costOf(gemini, tokens(0, 0, 0, 0), tokens(1_000_000, 0, 0, 1_000_000))).toBeCloseTo(2.5 + 15, 9);
  });

  it('the config overrides a known model and adds a new one; a new one needs input and output', () => {
    const overrides = check(PriceOverridesSchema(), { 'claude-sonnet-4-5': { input: 2 }, 'my-local-model': { input: 0.5, output: 1, contextWindow: 32_000 } });
    expect(overrides.ok).toBe(true);
    const merged = mergePrices(files, overrides.ok ? overrides.value : {});
    expect(merged.lookup('claude-sonnet-4-5-20250929')).toMatchObject({ source: 'config', price: { input: 2, output: 15, cacheRead: 0.3 } });
    expect(merged.lookup('my-local-model')).toMatchObject({ provider: 'config', price: { input: 0.5, output: 1, cacheRead: 0.5, cacheWrite: 0.5, contextWindow: 32_000 } });
    expect(() => mergePrices(files, { 'another-model': { input: 1 } })).toThrow(/needs at least "input" and "output"/);
    expect(check(PriceOverridesSchema(), { m: { input: -1, output: 1 } }).ok).toBe(false);
    expect(check(PriceOverridesSchema(), { m: { input: 1, output: 1, typo: 1 } }).ok).toBe(false);
  });

  it('prices made at their first use are made once, at the first lookup, and look up as the table does', () => {
    let made = 0;
    const prices = pricesAtFirstUse(() => {
      made++;
      return mergePrices(files);
    });
    expect(made).toBe(0);
    expect(prices.lookup('claude-sonnet-4-5-20250929')).toEqual(table.lookup('claude-sonnet-4-5-20250929'));
    expect(prices.lookup('no-such-model')).toBeNull();
    expect(made).toBe(1);
  });
});
