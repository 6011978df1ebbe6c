// A row's usage as the dashboards and `swb ls --json` show it: the tracker's snapshot and where the
// row stands against its budget (the workspace's budget too, when that is the stricter). And the one
// compact form of it the row header draws, narrowed piece by piece to the room there is: tokens, cost,
// context fill, the plan's short window, the budget mark.
import type { RowUsage } from './row-usage-tracker.js';
import { billedTokens } from './usage-report.js';
import { compactCount, type BudgetLevel } from './usage-budget.js';

export interface BudgetMark {
  level: BudgetLevel;
  /** "412k of 500k tokens today", "$4.10 of $5.00"; which scope: "row" or "workspace". */
  text: string;
  scope: 'row' | 'workspace';
  /** The budget's action stopped this row's automatic wakes. */
  wakesStopped: boolean;
}

export interface RowUsageView extends RowUsage {
  budget: BudgetMark | null;
}

/** "$1.23", "<$0.01", "$0" — dollars as the header and overlay show them. */
export function dollars(n: number): string {
  if (n === 0) return '$0';
  if (n < 0.01) return '<$0.01';
  return n >= 100 ? `$${Math.round(n)}` : `$${n.toFixed(2)}`;
}

/** Pieces of the compact form, most important first; the header keeps as many as fit. */
export function usagePieces(u: RowUsageView): string[] {
  const pieces: string[] = [];
  // ASCII only: the header measures by string length.
  if (u.budget && u.budget.level !== 'ok') pieces.push(u.budget.level === 'over' ? (u.budget.wakesStopped ? 'OVER BUDGET, wakes off' : 'OVER BUDGET') : 'budget warn');
  pieces.push(`${compactCount(billedTokens(u.tokens))} tok`);
  if (u.cost > 0 || u.unpriced.length === 0) pieces.push(u.unpriced.length > 0 ? `${dollars(u.cost)}+?` : dollars(u.cost));
  else pieces.push('no price');
  if (u.context?.fraction != null) pieces.push(`ctx ${Math.round(u.context.fraction * 100)}%`);
  const plan = u.limits?.primary;
  if (plan) pieces.push(`plan ${Math.round(plan.usedPercent)}%`);
  return pieces;
}

/** The compact form in at most `room` columns ('' when nothing fits): pieces dropped from the end. */
export function compactUsage(u: RowUsageView | null | undefined, room: number): string {
  if (!u || (u.turns === 0 && !u.limits && !u.budget)) return '';
  const pieces = usagePieces(u);
  // The budget mark and the tokens go first; a narrow header loses the plan, then the fill, then the cost.
  while (pieces.length > 0) {
    const text = pieces.join(' ');
    if (text.length <= room) return text;
    pieces.pop();
  }
  return '';
}
