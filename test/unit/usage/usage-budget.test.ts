// The budget rule: levels against tokens and dollars, the warning fraction, which budget a row has,
// and that a level is reported once, when it is reached.
import { describe, expect, it } from 'vitest';
import { check } from '../../../src/util/schema.js';
import { BudgetsSchema } from '../../../src/config/usage-config.js';
import { BudgetLevels, budgetOfRow, budgetStatus, compactCount, notifies, stopsWakes } from '../../../src/usage/usage-budget.js';

describe('budgetStatus', () => {
  it('is ok under the warning fraction, warn from it, over at the limit', () => {
    const b = { tokens: 1000 };
    expect(budgetStatus(b, { tokens: 799, dollars: 0 }).level).toBe('ok');
    expect(budgetStatus(b, { tokens: 800, dollars: 0 }).level).toBe('warn');
    expect(budgetStatus(b, { tokens: 999, dollars: 0 }).level).toBe('warn');
    expect(budgetStatus(b, { tokens: 1000, dollars: 0 })).toEqual({ level: 'over', fraction: 1, text: '1k of 1k tokens' });
  });

  it('takes its own warning fraction, and the worse of tokens and dollars', () => {
    const b = { tokens: 1000, dollars: 10, warnAt: 0.5, per: 'day' as const };
    expect(budgetStatus(b, { tokens: 100, dollars: 4 }).level).toBe('ok');
    expect(budgetStatus(b, { tokens: 100, dollars: 6 })).toMatchObject({ level: 'warn', text: '$6.00 of $10.00 today' });
    expect(budgetStatus(b, { tokens: 2000, dollars: 6 })).toMatchObject({ level: 'over', fraction: 2, text: '2k of 1k tokens today' });
  });

  it('actions: notify by default, stopWakes, both', () => {
    expect([notifies({ tokens: 1 }), stopsWakes({ tokens: 1 })]).toEqual([true, false]);
    expect([notifies({ tokens: 1, action: 'stopWakes' }), stopsWakes({ tokens: 1, action: 'stopWakes' })]).toEqual([false, true]);
    expect([notifies({ tokens: 1, action: 'both' }), stopsWakes({ tokens: 1, action: 'both' })]).toEqual([true, true]);
  });
});

describe('budgetOfRow', () => {
  it('is the row\'s own budget, else the "*" one, else none', () => {
    const budgets = { rows: { '*': { tokens: 1 }, reviewer: { dollars: 2 } } };
    expect(budgetOfRow(budgets, 'reviewer')).toEqual({ dollars: 2 });
    expect(budgetOfRow(budgets, 'other')).toEqual({ tokens: 1 });
    expect(budgetOfRow({ rows: { reviewer: { dollars: 2 } } }, 'other')).toBeUndefined();
    expect(budgetOfRow(undefined, 'x')).toBeUndefined();
    // An inherited name is no row's budget.
    expect(budgetOfRow({ rows: { reviewer: { dollars: 2 } } }, 'constructor')).toBeUndefined();
  });
});

describe('the config shape', () => {
  it('needs tokens or dollars, a row name or "*", a fraction under 1', () => {
    expect(check(BudgetsSchema(), { rows: { '*': { dollars: 5, per: 'day' } }, workspace: { tokens: 10, action: 'both' } }).ok).toBe(true);
    expect(check(BudgetsSchema(), { rows: { a: { per: 'day' } } }).ok).toBe(false);
    expect(check(BudgetsSchema(), { rows: { 'not a name': { tokens: 1 } } }).ok).toBe(false);
    expect(check(BudgetsSchema(), { workspace: { tokens: 1, warnAt: 1 } }).ok).toBe(false);
    expect(check(BudgetsSchema(), { workspace: { tokens: 1, action: 'kill' } }).ok).toBe(false);
  });
});

describe('BudgetLevels', () => {
  it('reports a level once, when it is reached, up or down', () => {
    const levels = new BudgetLevels();
    expect(levels.move('a', 'ok')).toBeNull();
    expect(levels.move('a', 'warn')).toEqual({ from: 'ok', to: 'warn' });
    expect(levels.move('a', 'warn')).toBeNull();
    expect(levels.move('a', 'over')).toEqual({ from: 'warn', to: 'over' });
    expect(levels.move('b', 'over')).toEqual({ from: 'ok', to: 'over' });
    expect(levels.move('a', 'ok')).toEqual({ from: 'over', to: 'ok' });
    levels.forget('b');
    expect(levels.levelOf('b')).toBe('ok');
  });
});

describe('compactCount', () => {
  it('says counts short', () => {
    expect([999, 1000, 1234, 12_345, 999_999, 4_500_000, 2e9].map(compactCount)).toEqual(['999', '1k', '1.2k', '12.3k', '1M', '4.5M', '2G']);
  });
});
