// The server's budgets (src/server/usage-budgets.ts) over a ledger and a fleet of the test's own: a
// level reached is a note and an audit line once; "stopWakes" turns an auto row's wakes off at the limit
// and back on when a new day brings a daily budget under it; a workspace budget marks every row.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageBudgets } from '../../../src/server/usage-budgets.js';
import type { RowFleet } from '../../../src/supervisor/row-fleet.js';
import { mergePrices } from '../../../src/usage/price-table.js';
import { zeroTokens } from '../../../src/usage/token-counts.js';
import type { BudgetMemory, Budgets } from '../../../src/usage/usage-budget.js';
import { BudgetMemoryStore } from '../../../src/usage/budget-memory-store.js';
import { openDatabase } from '../../../src/store/open-database.js';
import type { UsageLedger, UsageTotalRecord } from '../../../src/usage/usage-ledger.js';

function setup(budgets: Budgets, rows = ['a', 'b'], memory?: BudgetMemory) {
  const records: UsageTotalRecord[] = [];
  const ledger: UsageLedger = {
    files: () => [],
    commit: () => {},
    latest: () => undefined,
    totals: (q = {}) => records.filter((r) => (q.row === undefined || r.row === q.row) && (q.since === undefined || r.day >= q.since)),
  };
  const policies = new Map(rows.map((r) => [r, 'auto' as 'auto' | 'notify' | 'off']));
  const fleet = {
    list: () => rows.map((name) => ({ name })),
    policyOf: (name: string) => policies.get(name),
    setPolicy: (name: string, p: 'auto' | 'notify' | 'off') => (policies.set(name, p), true),
  } as unknown as RowFleet;
  const notes: string[] = [];
  const audit = join(mkdtempSync(join(tmpdir(), 'swb-budgets-')), 'audit.log');
  let now = Date.parse('2026-12-05T12:00:00Z');
  const prices = mergePrices([], { m: { input: 1, output: 1 } });
  const start = () => new UsageBudgets({ budgets, ledger, prices, fleet, auditLogPath: audit, ...(memory ? { memory } : {}), note: (_k, text) => notes.push(text), now: () => now });
  const b = start();
  const spend = (row: string, tokens: number, day = '2026-12-05') =>
    records.push({ row, day, model: 'm', source: 'main', turns: 1, tokens: { ...zeroTokens(), input: tokens }, longTokens: zeroTokens() });
  const auditLines = () => readFileSync(audit, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, string>);
  return { b, spend, notes, policies, auditLines, nextDay: () => (now += 86_400_000), restart: start };
}

describe('UsageBudgets', () => {
  it('warns once, then acts once at the limit: a note, an audit line, wakes off', () => {
    const s = setup({ rows: { a: { tokens: 1000, action: 'both' } } });
    s.spend('a', 500);
    expect(s.b.check('a')).toEqual(['a']);
    expect(s.b.markOf('a')).toMatchObject({ level: 'ok', scope: 'row' });
    expect(s.notes).toEqual([]);
    s.spend('a', 300);
    s.b.check('a');
    expect(s.notes).toEqual(['@a is near its budget: 800 of 1k tokens']);
    s.spend('a', 10);
    s.b.check('a');
    expect(s.notes).toHaveLength(1);
    s.spend('a', 200);
    s.b.check('a');
    expect(s.notes[1]).toBe('@a reached its budget: 1k of 1k tokens; wakes stopped for @a');
    expect(s.policies.get('a')).toBe('notify');
    expect(s.policies.get('b')).toBe('auto');
    expect(s.b.markOf('a')).toEqual({ level: 'over', text: '1k of 1k tokens', scope: 'row', wakesStopped: true });
    expect(s.auditLines().map((l) => [l.purpose, l.row, l.level, l.action])).toEqual([
      ['budget', 'a', 'warn', 'none'],
      ['budget', 'a', 'over', 'wakes stopped for @a'],
    ]);
    // A row without a budget has no mark.
    expect(s.b.markOf('b')).toBeNull();
  });

  it('a daily budget under its limit on a new day turns the wakes it stopped back on', () => {
    const s = setup({ rows: { '*': { tokens: 100, per: 'day', action: 'stopWakes' } } });
    s.spend('a', 150);
    s.b.check('a');
    expect(s.policies.get('a')).toBe('notify');
    // stopWakes alone still says what it did.
    expect(s.notes).toEqual(['@a reached its budget: 150 of 100 tokens today; wakes stopped for @a']);
    s.nextDay();
    s.spend('a', 10, '2026-12-06');
    s.b.check('a');
    expect(s.policies.get('a')).toBe('auto');
    expect(s.b.markOf('a')).toMatchObject({ level: 'ok', wakesStopped: false });
    expect(s.notes[1]).toBe('@a is under its budget again: 10 of 100 tokens today; wakes back on for @a');
  });

  it('what a budget stopped is remembered across a restart (mail.db): the new day turns those wakes back on', () => {
    const db = openDatabase(join(mkdtempSync(join(tmpdir(), 'swb-budgets-db-')), 'mail.db'));
    try {
      const s = setup({ rows: { a: { tokens: 1000, per: 'day', action: 'stopWakes' } } }, ['a', 'b'], new BudgetMemoryStore(db));
      s.spend('a', 1200);
      s.b.check('a');
      expect(s.policies.get('a')).toBe('notify');
      const notes = s.notes.length;
      // The server stops; a new one (a new memory on the same database) takes over.
      const after = s.restart();
      expect(after.markOf('a')).toBeNull();
      after.check('a');
      expect(after.markOf('a')).toMatchObject({ level: 'over', wakesStopped: true });
      expect(s.notes).toHaveLength(notes); // the level was reached before the restart: not said again
      s.nextDay();
      const nextDay = s.restart();
      nextDay.check('a');
      expect(s.policies.get('a')).toBe('auto');
      expect(nextDay.markOf('a')).toMatchObject({ level: 'ok', wakesStopped: false });
      expect(s.notes.at(-1)).toBe('@a is under its budget again: 0 of 1k tokens today; wakes back on for @a');
      // Turned back on: the memory holds nothing for a later restart to act on.
      const memory = new BudgetMemoryStore(db);
      expect(memory.stoppedRows()).toEqual([]);
      expect([...memory.levels()]).toEqual([]);
    } finally {
      db.close();
    }
  });

  it('a wake policy the operator set is left alone', () => {
    const s = setup({ rows: { a: { tokens: 100, action: 'stopWakes' } } });
    s.policies.set('a', 'off');
    s.spend('a', 200);
    s.b.check('a');
    expect(s.policies.get('a')).toBe('off');
    expect(s.notes).toEqual(['@a reached its budget: 200 of 100 tokens; no automatic wakes to stop']);
  });

  it('the workspace budget counts every row and marks them all', () => {
    const s = setup({ workspace: { dollars: 0.001 } });
    s.spend('a', 600);
    expect(s.b.check('a')).toEqual(['a', 'b']);
    expect(s.b.markOf('b')).toMatchObject({ level: 'ok', scope: 'workspace' });
    s.spend('b', 600);
    s.b.check('b');
    expect(s.b.markOf('a')).toMatchObject({ level: 'over', scope: 'workspace', text: '$0.0012 of $0.0010' });
    expect(s.notes).toEqual(['the workspace reached its budget: $0.0012 of $0.0010']);
  });
});
