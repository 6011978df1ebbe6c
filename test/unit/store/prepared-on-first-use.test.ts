// A store's statements are prepared at their first use (issue #33: not all ~100 of them as the
// server starts), once, on the store's own connection.
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { preparedOnFirstUse, sql } from '../../../src/store/prepared-on-first-use.js';

let db: Database.Database;

beforeEach(() => {
  db = new Database(':memory:');
  db.exec('CREATE TABLE t (x INTEGER)');
});

afterEach(() => db.close());

describe('preparedOnFirstUse', () => {
  it('prepares nothing until a statement is used, then that one only, once', () => {
    const prepare = vi.spyOn(db, 'prepare');
    const q = preparedOnFirstUse(db, {
      insert: sql(`INSERT INTO t (x) VALUES (?)`),
      all: sql<{ x: number }>(`SELECT x FROM t ORDER BY x`),
      never: sql(`DELETE FROM t`),
    });
    expect(prepare).not.toHaveBeenCalled();
    q.insert.run(1);
    q.insert.run(2);
    expect(prepare.mock.calls).toEqual([[`INSERT INTO t (x) VALUES (?)`]]);
    expect(q.insert).toBe(q.insert);
    expect(q.all.all().map((r) => r.x)).toEqual([1, 2]);
    expect(prepare).toHaveBeenCalledTimes(2);
    expect(Object.keys(q)).toEqual(['insert', 'all', 'never']);
  });

  it('says what is wrong with a statement at its first use, and tries again at the next', () => {
    const q = preparedOnFirstUse(db, { bad: sql(`SELECT y FROM t`), good: sql<{ n: number }>(`SELECT count(*) AS n FROM t`) });
    expect(q.good.get()?.n).toBe(0);
    expect(() => q.bad).toThrow(/no such column: y/);
    db.exec('ALTER TABLE t ADD COLUMN y INTEGER');
    expect(q.bad.all()).toEqual([]);
  });
});
