// Budgets (issue #38): a limit on what a row, or the whole workspace, may spend — in tokens or in
// dollars at list price, per UTC day or in total — with a warning at a fraction of it and an action at
// the limit: "notify" (a dashboard note and an audit entry), "stopWakes" (the row's wake policy goes
// from auto to notify: swb no longer types mail into it; the operator still can), or "both". The rule
// here is pure (the config's shape of a budget is in src/config/usage-config.ts): a budget and what was spent give a level; `BudgetLevels` remembers each scope's level so
// a crossing is reported once, when it happens, not at every change.

import { type Budget, type Budgets, DEFAULT_WARN_AT } from '../config/usage-config.js';

export type { Budget, Budgets } from '../config/usage-config.js';

export type BudgetLevel = 'ok' | 'warn' | 'over';

export interface Spent {
  tokens: number;
  dollars: number;
}

export interface BudgetStatus {
  level: BudgetLevel;
  /** The larger of tokens/limit and dollars/limit. */
  fraction: number;
  /** What was measured against what: "412k of 500k tokens today", "$4.10 of $5.00". */
  text: string;
}

/** The budget of row `name`: its own, else the "*" one, else none. */
export function budgetOfRow(budgets: Budgets | undefined, name: string): Budget | undefined {
  const rows = budgets?.rows;
  if (!rows) return undefined;
  return Object.hasOwn(rows, name) ? rows[name] : Object.hasOwn(rows, '*') ? rows['*'] : undefined;
}

/** Where `spent` stands against `budget`. */
export function budgetStatus(budget: Budget, spent: Spent): BudgetStatus {
  const parts: Array<{ fraction: number; text: string }> = [];
  if (budget.tokens !== undefined) parts.push({ fraction: spent.tokens / budget.tokens, text: `${compactCount(spent.tokens)} of ${compactCount(budget.tokens)} tokens` });
  if (budget.dollars !== undefined) parts.push({ fraction: spent.dollars / budget.dollars, text: `${money(spent.dollars)} of ${money(budget.dollars)}` });
  const worst = parts.reduce((a, b) => (b.fraction > a.fraction ? b : a));
  const level: BudgetLevel = worst.fraction >= 1 ? 'over' : worst.fraction >= (budget.warnAt ?? DEFAULT_WARN_AT) ? 'warn' : 'ok';
  return { level, fraction: worst.fraction, text: `${worst.text}${budget.per === 'day' ? ' today' : ''}` };
}

export function stopsWakes(budget: Budget): boolean {
  return budget.action === 'stopWakes' || budget.action === 'both';
}

export function notifies(budget: Budget): boolean {
  return budget.action === undefined || budget.action === 'notify' || budget.action === 'both';
}

/** Dollars to the cent, or to two significant digits under a cent (a test budget of $0.001). */
function money(n: number): string {
  return n > 0 && n < 0.01 ? `$${n.toPrecision(2)}` : `$${n.toFixed(2)}`;
}

/** 1234 → "1.2k", 4_500_000 → "4.5M". */
export function compactCount(n: number): string {
  if (n < 1000) return String(n);
  for (const [size, unit] of [[1e9, 'G'], [1e6, 'M'], [1e3, 'k']] as const) {
    // 999,999 is "1M", not "1000k".
    if (n >= size * 0.9995) {
      const v = n / size;
      return `${v >= 100 ? Math.round(v) : v.toFixed(1).replace(/\.0$/, '')}${unit}`;
    }
  }
  return String(n);
}

/** Each scope's last level: `move` says whether a new level was reached (up or down) since the last call. */
/**
 * Where the budgets' state outlives the server (src/usage/budget-memory-store.ts, in mail.db): each
 * scope's last level and the rows whose wakes a budget stopped, so a restart neither says a level again
 * nor forgets which rows to turn back on when a new day brings the budget under its limit.
 */
export interface BudgetMemory {
  levels(): Map<string, BudgetLevel>;
  saveLevel(scope: string, level: BudgetLevel): void;
  stoppedRows(): string[];
  saveStopped(row: string, stopped: boolean): void;
  forget(scope: string, row: string): void;
}

export class BudgetLevels {
  private readonly levels: Map<string, BudgetLevel>;

  constructor(known: ReadonlyMap<string, BudgetLevel> = new Map()) {
    this.levels = new Map(known);
  }

  move(scope: string, level: BudgetLevel): { from: BudgetLevel; to: BudgetLevel } | null {
    const from = this.levels.get(scope) ?? 'ok';
    if (from === level) return null;
    this.levels.set(scope, level);
    return { from, to: level };
  }

  levelOf(scope: string): BudgetLevel {
    return this.levels.get(scope) ?? 'ok';
  }

  forget(scope: string): void {
    this.levels.delete(scope);
  }
}
