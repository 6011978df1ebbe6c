// The config's budgets applied to the rows the server runs (the rule is src/usage/usage-budget.ts):
// after each committed change of a row's usage, what the row — and the whole workspace — spent is read
// from the ledger (today's or all of it) and priced; a level reached for the first time is said once, as
// a dashboard note and a line in the audit log, and at the limit a "stopWakes" budget turns the row's
// automatic wakes off (its wake policy auto → notify, visible in its header); they come back on when a
// new day brings a daily budget under its limit again, unless the operator changed the policy since.
// Levels and stopped rows are kept in the budgets' memory (mail.db) so this holds across a restart.
import { appendFileSync } from 'node:fs';
import type { RowFleet } from '../supervisor/row-fleet.js';
import type { Prices } from '../usage/price-table.js';
import type { BudgetMark } from '../usage/row-usage-view.js';
import { type Budget, type BudgetLevel, BudgetLevels, type BudgetMemory, type Budgets, budgetOfRow, type BudgetStatus, budgetStatus, notifies, stopsWakes } from '../usage/usage-budget.js';
import type { UsageLedger } from '../usage/usage-ledger.js';
import { billedTokens, usageReport } from '../usage/usage-report.js';

const WORKSPACE = '\0workspace';
/** A scope's key in the memory: "workspace", or "row:" and the row's name. */
const WORKSPACE_KEY = 'workspace';
const ROW_KEY = 'row:';
const memoryKey = (scope: string) => (scope === WORKSPACE ? WORKSPACE_KEY : ROW_KEY + scope);
const RANK = { ok: 0, warn: 1, over: 2 } as const;

export interface UsageBudgetsOptions {
  budgets: Budgets;
  ledger: UsageLedger;
  prices: Prices;
  fleet: RowFleet;
  auditLogPath: string;
  /** Where levels and stopped rows outlive the server (none: they live as long as it). */
  memory?: BudgetMemory;
  /** A sentence for the dashboards' notes. */
  note(kind: 'info' | 'error', text: string, row: string | null): void;
  now?: () => number;
}

export class UsageBudgets {
  private readonly levels: BudgetLevels;
  private readonly status = new Map<string, BudgetStatus>();
  /** Rows whose wakes a budget stopped (so only those are turned back on). */
  private readonly stopped: Set<string>;
  private readonly now: () => number;

  constructor(private readonly o: UsageBudgetsOptions) {
    this.now = o.now ?? Date.now;
    const known = new Map<string, BudgetLevel>();
    for (const [key, level] of o.memory?.levels() ?? []) known.set(key === WORKSPACE_KEY ? WORKSPACE : key.slice(ROW_KEY.length), level);
    this.levels = new BudgetLevels(known);
    this.stopped = new Set(o.memory?.stoppedRows() ?? []);
  }

  get active(): boolean {
    return this.o.budgets.workspace !== undefined || this.o.budgets.rows !== undefined;
  }

  /** Looks at `row`'s budget and the workspace's after its usage changed; the rows whose mark changed. */
  check(row: string): string[] {
    const changed = new Set<string>();
    const own = budgetOfRow(this.o.budgets, row);
    if (own && this.measure(row, own, row)) changed.add(row);
    const ws = this.o.budgets.workspace;
    if (ws && this.measure(WORKSPACE, ws, null)) for (const r of this.o.fleet.list()) changed.add(r.name);
    return [...changed];
  }

  /** The row's mark: the stricter of its own budget's and the workspace's level. */
  markOf(row: string): BudgetMark | null {
    const own = this.status.get(row);
    const ws = this.status.get(WORKSPACE);
    const pick = own && (!ws || RANK[own.level] >= RANK[ws.level]) ? { s: own, scope: 'row' as const } : ws ? { s: ws, scope: 'workspace' as const } : null;
    if (!pick) return null;
    return { level: pick.s.level, text: pick.s.text, scope: pick.scope, wakesStopped: this.stopped.has(row) };
  }

  forget(row: string): void {
    this.status.delete(row);
    this.levels.forget(row);
    this.stopped.delete(row);
    this.o.memory?.forget(memoryKey(row), row);
  }

  /** Measures one scope; true when its status changed (level or figures). */
  private measure(scope: string, budget: Budget, row: string | null): boolean {
    const since = budget.per === 'day' ? new Date(this.now()).toISOString().slice(0, 10) : undefined;
    const records = this.o.ledger.totals({ ...(row !== null ? { row } : {}), ...(since ? { since } : {}) });
    const total = usageReport(records, this.o.prices, { by: 'row' }).total;
    const s = budgetStatus(budget, { tokens: billedTokens(total.tokens), dollars: total.cost });
    const before = this.status.get(scope);
    this.status.set(scope, s);
    const moved = this.levels.move(scope, s.level);
    if (moved) {
      this.o.memory?.saveLevel(memoryKey(scope), moved.to);
      this.act(budget, row, moved.from, moved.to, s);
    }
    return moved !== null || before?.text !== s.text;
  }

  private act(budget: Budget, row: string | null, from: BudgetStatus['level'], to: BudgetStatus['level'], s: BudgetStatus): void {
    const who = row === null ? 'the workspace' : `@${row}`;
    const rows = row === null ? this.o.fleet.list().map((r) => r.name) : [row];
    let action = 'none';
    if (to === 'over' && stopsWakes(budget)) {
      const turnedOff = rows.filter((r) => this.o.fleet.policyOf(r) === 'auto' && this.o.fleet.setPolicy(r, 'notify'));
      for (const r of turnedOff) {
        this.stopped.add(r);
        this.o.memory?.saveStopped(r, true);
      }
      action = turnedOff.length > 0 ? `wakes stopped for ${turnedOff.map((r) => `@${r}`).join(', ')}` : 'no automatic wakes to stop';
    } else if (RANK[to] < RANK.over && from === 'over') {
      const back = rows.filter((r) => this.stopped.has(r));
      for (const r of back) {
        this.stopped.delete(r);
        this.o.memory?.saveStopped(r, false);
        if (this.o.fleet.policyOf(r) === 'notify') this.o.fleet.setPolicy(r, 'auto');
      }
      if (back.length > 0) action = `wakes back on for ${back.map((r) => `@${r}`).join(', ')}`;
    }
    this.audit({ row: row ?? '*', scope: row === null ? 'workspace' : 'row', level: to, from, spent: s.text, action });
    if (to !== 'ok' && (notifies(budget) || action !== 'none')) {
      const what = to === 'over' ? 'reached its budget' : 'is near its budget';
      this.o.note('error', `${who} ${what}: ${s.text}${action !== 'none' ? `; ${action}` : ''}`, row);
    } else if (action !== 'none') {
      this.o.note('info', `${who} is under its budget again: ${s.text}; ${action}`, row);
    }
  }

  /** A budget line in the audit log beside the typed bytes (same file, its own `purpose`). */
  private audit(entry: Record<string, string>): void {
    try {
      appendFileSync(this.o.auditLogPath, `${JSON.stringify({ at: new Date(this.now()).toISOString(), purpose: 'budget', ...entry })}\n`, { mode: 0o600 });
    } catch {
      // The audit log's folder is the server's own run dir; a failure here must not stop usage tracking.
    }
  }
}
