// The budgets' memory in mail.db (migration 8): each scope's last level and the rows whose automatic
// wakes a budget stopped. Without it a restart forgot both: a level reached before was said again, and a
// row stopped yesterday stayed stopped after the day's reset (nothing remembered that a budget did it).
// Rows in, rows out; the rules are src/server/usage-budgets.ts.
import { preparedOnFirstUse, sql } from '../store/prepared-on-first-use.js';
import type { SqliteDatabase } from '../store/open-database.js';
import type { BudgetLevel, BudgetMemory } from './usage-budget.js';

export class BudgetMemoryStore implements BudgetMemory {
  private readonly q;

  constructor(db: SqliteDatabase, private readonly now: () => number = Date.now) {
    const s = sql;
    this.q = preparedOnFirstUse(db, {
      levels: s<{ scope: string; level: BudgetLevel }>(`SELECT scope, level FROM usage_budget_levels`),
      saveLevel: s(`INSERT INTO usage_budget_levels (scope, level, updated_at) VALUES (?, ?, ?)
                    ON CONFLICT(scope) DO UPDATE SET level = excluded.level, updated_at = excluded.updated_at`),
      dropLevel: s(`DELETE FROM usage_budget_levels WHERE scope = ?`),
      stopped: s<{ row: string }>(`SELECT row FROM usage_budget_stops ORDER BY row`),
      stop: s(`INSERT OR REPLACE INTO usage_budget_stops (row, stopped_at) VALUES (?, ?)`),
      unstop: s(`DELETE FROM usage_budget_stops WHERE row = ?`),
    });
  }

  levels(): Map<string, BudgetLevel> {
    return new Map(this.q.levels.all().map((r) => [r.scope, r.level]));
  }

  saveLevel(scope: string, level: BudgetLevel): void {
    if (level === 'ok') this.q.dropLevel.run(scope);
    else this.q.saveLevel.run(scope, level, this.now());
  }

  stoppedRows(): string[] {
    return this.q.stopped.all().map((r) => r.row);
  }

  saveStopped(row: string, stopped: boolean): void {
    if (stopped) this.q.stop.run(row, this.now());
    else this.q.unstop.run(row);
  }

  forget(scope: string, row: string): void {
    this.q.dropLevel.run(scope);
    this.q.unstop.run(row);
  }
}
