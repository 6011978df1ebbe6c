// Fault injection at the store (issue #9): a real better-sqlite3 Database behind a Proxy whose
// prepared statements consult a fault plan before each execution (run, get, all, iterate) and
// throw SQLite's own error type (Database.SqliteError with an extended code) instead of running.
// A statement that fails never ran, so the file holds exactly what SQLite would after that error:
// inside a transaction the throw unwinds it and better-sqlite3 rolls it back; outside one, the
// single statement simply did not happen. A failed COMMIT (an fsync that fails, a full disk at
// the WAL write) is injected at the end of the outermost transaction function, after its
// statements ran, so SQLite has real work to roll back.
//
// Plans (one at a time; a new one replaces the last): failNth (the nth execution from now, once),
// failNext (the next n: a transient fault), failWrites / failAll (until clear()), failCommits
// (the end of each outermost transaction), failWhere (executions picked by SQL, method, and
// whether a transaction is open). Writes are told from reads by SQLite (statement.readonly), so
// INSERT ... RETURNING run with get() and UPDATE ... RETURNING run with all() count as writes.
//
//   const faults = new FaultInjector();
//   Hub.start({ ..., openStore: (file, o) => new MailStore(faults.wrap(openDatabase(file)), o) });
//   faults.failAll('SQLITE_FULL'); ... faults.clear();
import Database from 'better-sqlite3';
import type { Statement } from 'better-sqlite3';

export type SqliteDatabase = Database.Database;

/** The codes the suite injects (any extended SQLite code name works). */
export type FaultCode = 'SQLITE_FULL' | 'SQLITE_BUSY' | 'SQLITE_IOERR_WRITE' | 'SQLITE_CORRUPT' | (string & {});

/** Which executions a plan may hit: every one, or only statements that change the database. */
export type FaultScope = 'any' | 'write';

export type ExecutionMethod = 'run' | 'get' | 'all' | 'iterate';

/** One fault that was thrown: what, where, and as which execution (counted from the wrap). */
export interface InjectedFault {
  code: string;
  at: 'statement' | 'commit';
  method: ExecutionMethod | 'commit';
  sql: string;
}

/** SQLite's own sentences for these codes (sqlite3_errstr), so answers read as they would for real. */
const MESSAGES: Record<string, string> = {
  SQLITE_FULL: 'database or disk is full',
  SQLITE_BUSY: 'database is locked',
  SQLITE_LOCKED: 'database table is locked',
  SQLITE_IOERR_WRITE: 'disk I/O error',
  SQLITE_IOERR_FSYNC: 'disk I/O error',
  SQLITE_CORRUPT: 'database disk image is malformed',
  SQLITE_NOTADB: 'file is not a database',
};

type Plan =
  | { kind: 'nth'; remaining: number; code: string; scope: FaultScope }
  | { kind: 'next'; remaining: number; code: string; scope: FaultScope }
  | { kind: 'until-cleared'; code: string; scope: FaultScope }
  | { kind: 'where'; remaining: number; code: string; match: StatementMatch }
  | { kind: 'commits'; code: string; remaining: number };

/** Picks executions by their SQL (whitespace collapsed), method, and whether a transaction is open. */
export type StatementMatch = (sql: string, method: ExecutionMethod, inTransaction: boolean) => boolean;

const EXECUTIONS: ReadonlySet<PropertyKey> = new Set<ExecutionMethod>(['run', 'get', 'all', 'iterate']);

export class FaultInjector {
  private plan: Plan | null = null;
  /** Every fault thrown so far, oldest first. */
  readonly injected: InjectedFault[] = [];
  /** Statement executions seen through the proxy (failed ones included). */
  executions = 0;
  /** Outermost transactions that reached their end (failed commits included). */
  commits = 0;
  private depth = 0;

  /** The `n`th matching execution from now fails, once (1 = the very next). */
  failNth(n: number, code: FaultCode, scope: FaultScope = 'any'): void {
    if (!Number.isInteger(n) || n < 1) throw new Error(`failNth: n must be a positive integer, not ${n}`);
    this.plan = { kind: 'nth', remaining: n, code, scope };
  }

  /** The next `count` matching executions fail, then the store works again (a transient fault). */
  failNext(count: number, code: FaultCode, scope: FaultScope = 'any'): void {
    this.plan = { kind: 'next', remaining: count, code, scope };
  }

  /**
   * The next `count` executions that `match` fail (a RegExp is tested against the SQL); others
   * run. For one particular statement, e.g. a read outside any transaction, after a commit.
   */
  failWhere(match: RegExp | StatementMatch, code: FaultCode, count = 1): void {
    const test = match instanceof RegExp ? (sql: string) => match.test(sql) : match;
    this.plan = { kind: 'where', remaining: count, code, match: test };
  }

  /** Every statement that changes the database fails until `clear()` (reads still work). */
  failWrites(code: FaultCode): void {
    this.plan = { kind: 'until-cleared', code, scope: 'write' };
  }

  /** Every execution fails until `clear()`. */
  failAll(code: FaultCode): void {
    this.plan = { kind: 'until-cleared', code, scope: 'any' };
  }

  /**
   * The outermost transaction fails at its end, after all its statements ran (a failed COMMIT or
   * fsync): `count` times, or until `clear()` when omitted. Single statements outside a
   * transaction are not affected (their commit failing is a failed statement: use failWrites).
   */
  failCommits(code: FaultCode, count = Number.POSITIVE_INFINITY): void {
    this.plan = { kind: 'commits', code, remaining: count };
  }

  clear(): void {
    this.plan = null;
  }

  /** True while a plan may still throw. */
  get armed(): boolean {
    return this.plan !== null;
  }

  /** Wraps a real database: the returned object is used exactly like it. */
  wrap(db: SqliteDatabase): SqliteDatabase {
    const statements = new WeakMap<object, object>();
    const wrapStatement = (stmt: Statement): Statement => {
      const known = statements.get(stmt);
      if (known) return known as Statement;
      const proxy = new Proxy(stmt, {
        get: (target, prop) => {
          // Accessors (readonly, source, busy, ...) are native and need the real statement as `this`.
          const value: unknown = Reflect.get(target, prop, target);
          if (typeof value !== 'function') return value;
          const fn = value as (...args: unknown[]) => unknown;
          if (EXECUTIONS.has(prop)) {
            return (...args: unknown[]) => {
              this.beforeExecution(prop as ExecutionMethod, target, db.inTransaction);
              return fn.apply(target, args);
            };
          }
          // bind/pluck/raw/expand/safeIntegers return the statement itself: keep callers on the proxy.
          return (...args: unknown[]) => {
            const result = fn.apply(target, args);
            return result === target ? proxy : result;
          };
        },
      });
      statements.set(stmt, proxy);
      return proxy;
    };

    const wrapTransaction = (real: SqliteDatabase['transaction']) =>
      (fn: (...args: unknown[]) => unknown) =>
        real.call(db, (...args: unknown[]) => {
          this.depth += 1;
          try {
            const result = fn(...args);
            if (this.depth === 1) this.atCommit();
            return result;
          } finally {
            this.depth -= 1;
          }
        });

    return new Proxy(db, {
      get: (target, prop) => {
        // Getters such as `open` and `inTransaction` are native: read them off the real database.
        const value: unknown = Reflect.get(target, prop, target);
        if (prop === 'prepare') {
          return (source: string) => wrapStatement(target.prepare(source));
        }
        if (prop === 'transaction') return wrapTransaction(target.transaction);
        // Everything else runs on the real database (better-sqlite3 looks up its native handle on `this`).
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
  }

  private beforeExecution(method: ExecutionMethod, stmt: Statement, inTransaction: boolean): void {
    this.executions += 1;
    const plan = this.plan;
    if (!plan || plan.kind === 'commits') return;
    const sql = oneLine(stmt.source);
    if (plan.kind === 'where') {
      if (!plan.match(sql, method, inTransaction)) return;
      plan.remaining -= 1;
      if (plan.remaining <= 0) this.plan = null;
      this.throwFault(plan.code, 'statement', method, sql);
    }
    if (plan.scope === 'write' && stmt.readonly) return;
    if (plan.kind === 'nth') {
      plan.remaining -= 1;
      if (plan.remaining > 0) return;
      this.plan = null;
    } else if (plan.kind === 'next') {
      plan.remaining -= 1;
      if (plan.remaining <= 0) this.plan = null;
    }
    this.throwFault(plan.code, 'statement', method, sql);
  }

  private atCommit(): void {
    this.commits += 1;
    const plan = this.plan;
    if (!plan || plan.kind !== 'commits') return;
    plan.remaining -= 1;
    if (plan.remaining <= 0) this.plan = null;
    this.throwFault(plan.code, 'commit', 'commit', 'COMMIT');
  }

  private throwFault(code: string, at: InjectedFault['at'], method: InjectedFault['method'], sql: string): never {
    this.injected.push({ code, at, method, sql });
    throw new Database.SqliteError(MESSAGES[code] ?? `injected ${code}`, code);
  }
}

function oneLine(sql: string): string {
  return sql.replace(/\s+/g, ' ').trim();
}
