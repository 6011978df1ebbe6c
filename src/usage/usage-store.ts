// Usage in mail.db (issue #38, migration 7): where reading stands in each row's transcript files and
// the totals that reading produced. `commit` writes a file's new offset, inode and parser state in the
// same transaction as the totals of the turns read up to that offset, so after a crash or a restart the
// follower resumes from a state whose turns are all counted and none of whose later turns are: each
// turn counted exactly once. Rows in, rows out, no rules: reading lives in src/usage/.
import { preparedOnFirstUse, sql } from '../store/prepared-on-first-use.js';
import type { FollowState } from './transcript-follower.js';
import type { UsageCommit, UsageLatest, UsageLedger, UsageTotalRecord } from './usage-ledger.js';
import type { RateLimits } from './usage-turn.js';
import { commitWithoutSync, type SqliteDatabase } from '../store/open-database.js';

interface TotalRow {
  row: string;
  day: string;
  model: string;
  source: string;
  turns: number;
  input: number;
  cache_read: number;
  cache_write: number;
  output: number;
  reasoning: number;
  long_input: number;
  long_cache_read: number;
  long_cache_write: number;
  long_output: number;
  long_reasoning: number;
}

export class UsageStore implements UsageLedger {
  private readonly q: ReturnType<UsageStore['prepare']>;
  private readonly commitTx: (c: UsageCommit, now: number) => void;

  constructor(readonly db: SqliteDatabase) {
    this.q = this.prepare();
    this.commitTx = db.transaction((c: UsageCommit, now: number) => {
      for (const t of c.totals) {
        this.q.addTotal.run({
          row: t.row, day: t.day, model: t.model ?? '', source: t.source, turns: t.turns,
          input: t.tokens.input, cacheRead: t.tokens.cacheRead, cacheWrite: t.tokens.cacheWrite, output: t.tokens.output, reasoning: t.tokens.reasoning,
          longInput: t.longTokens.input, longCacheRead: t.longTokens.cacheRead, longCacheWrite: t.longTokens.cacheWrite, longOutput: t.longTokens.output, longReasoning: t.longTokens.reasoning,
        });
      }
      this.q.saveFile.run(c.row, c.path, c.state.offset, c.state.inode, c.state.parser === undefined ? null : JSON.stringify(c.state.parser), now);
      if (c.latest) {
        const l = c.latest;
        this.q.saveLatest.run({ row: c.row, model: l.model, contextTokens: l.contextTokens, contextWindow: l.contextWindow, limits: l.limits ? JSON.stringify(l.limits) : null, at: l.at });
      }
    });
  }

  private prepare() {
    const s = sql;
    return preparedOnFirstUse(this.db, {
      file: s<{ offset: number; inode: number; parser: string | null }>(`SELECT offset, inode, parser FROM usage_files WHERE row = ? AND path = ?`),
      files: s<{ path: string; offset: number; inode: number; parser: string | null }>(`SELECT path, offset, inode, parser FROM usage_files WHERE row = ? ORDER BY path`),
      saveFile: s(`INSERT INTO usage_files (row, path, offset, inode, parser, updated_at) VALUES (?, ?, ?, ?, ?, ?)
                   ON CONFLICT(row, path) DO UPDATE SET offset = excluded.offset, inode = excluded.inode, parser = excluded.parser, updated_at = excluded.updated_at`),
      addTotal: s(`INSERT INTO usage_totals (row, day, model, source, turns, input, cache_read, cache_write, output, reasoning,
                     long_input, long_cache_read, long_cache_write, long_output, long_reasoning)
                   VALUES (@row, @day, @model, @source, @turns, @input, @cacheRead, @cacheWrite, @output, @reasoning,
                     @longInput, @longCacheRead, @longCacheWrite, @longOutput, @longReasoning)
                   ON CONFLICT(row, day, model, source) DO UPDATE SET turns = turns + excluded.turns,
                     input = input + excluded.input, cache_read = cache_read + excluded.cache_read, cache_write = cache_write + excluded.cache_write,
                     output = output + excluded.output, reasoning = reasoning + excluded.reasoning,
                     long_input = long_input + excluded.long_input, long_cache_read = long_cache_read + excluded.long_cache_read,
                     long_cache_write = long_cache_write + excluded.long_cache_write, long_output = long_output + excluded.long_output,
                     long_reasoning = long_reasoning + excluded.long_reasoning`),
      totalsOfRow: s<TotalRow>(`SELECT * FROM usage_totals WHERE row = ? AND day >= ? ORDER BY day, model, source`),
      totalsSince: s<TotalRow>(`SELECT * FROM usage_totals WHERE day >= ? ORDER BY row, day, model, source`),
      saveLatest: s(`INSERT INTO usage_latest (row, model, context_tokens, context_window, limits, at)
                     VALUES (@row, @model, @contextTokens, @contextWindow, @limits, @at)
                     ON CONFLICT(row) DO UPDATE SET model = excluded.model, context_tokens = excluded.context_tokens,
                       context_window = excluded.context_window, limits = coalesce(excluded.limits, limits), at = excluded.at`),
      latest: s<{ row: string; model: string | null; context_tokens: number | null; context_window: number | null; limits: string | null; at: number }>(
        `SELECT * FROM usage_latest WHERE row = ?`,
      ),
    });
  }

  /** Where reading stood in `path` for `row` at the last commit. */
  fileState(row: string, path: string): FollowState | undefined {
    const r = this.q.file.get(row, path);
    return r && { offset: r.offset, inode: r.inode, parser: r.parser === null ? undefined : JSON.parse(r.parser) };
  }

  /** Every file of `row` read so far (a restored row's subagent files included). */
  files(row: string): Array<{ path: string; state: FollowState }> {
    return this.q.files.all(row).map((r) => ({ path: r.path, state: { offset: r.offset, inode: r.inode, parser: r.parser === null ? undefined : JSON.parse(r.parser) } }));
  }

  /**
   * A slice's totals, the file state after it and the row's newest context and limits, in one
   * transaction, committed without its own sync (commitWithoutSync): a power loss may take the last
   * commits, but offset and totals go together, so the lines are read and counted again, once.
   */
  commit(c: UsageCommit, now: number): void {
    commitWithoutSync(this.db, () => this.commitTx(c, now));
  }

  /** Totals from UTC day `since` on (default: all), of one row or every row. */
  totals(q: { row?: string; since?: string } = {}): UsageTotalRecord[] {
    const since = q.since ?? '';
    const rows = q.row === undefined ? this.q.totalsSince.all(since) : this.q.totalsOfRow.all(q.row, since);
    return rows.map((r) => ({
      row: r.row,
      day: r.day,
      model: r.model === '' ? null : r.model,
      source: r.source,
      turns: r.turns,
      tokens: { input: r.input, cacheRead: r.cache_read, cacheWrite: r.cache_write, output: r.output, reasoning: r.reasoning },
      longTokens: { input: r.long_input, cacheRead: r.long_cache_read, cacheWrite: r.long_cache_write, output: r.long_output, reasoning: r.long_reasoning },
    }));
  }

  latest(row: string): UsageLatest | undefined {
    const r = this.q.latest.get(row);
    return r && { row: r.row, model: r.model, contextTokens: r.context_tokens, contextWindow: r.context_window, limits: r.limits === null ? null : (JSON.parse(r.limits) as RateLimits), at: r.at };
  }
}
