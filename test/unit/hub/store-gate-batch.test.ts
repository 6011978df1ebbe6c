// StoreGate.batch: a burst of store calls shares one commit. Real SQLite files (WAL, FULL, as
// mail.db), a second connection to see what is on disk, and SQLite's own failures.
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StoreGate, StoreLockedError } from '../../../src/hub/store-gate.js';
import { systemClock } from '../../../src/util/clock.js';

let dir: string;
let db: Database.Database;
let other: Database.Database;
let lost: unknown[];
let gate: StoreGate;

function open(file: string): Database.Database {
  const d = new Database(file);
  d.pragma('busy_timeout = 5');
  d.pragma('journal_mode = WAL');
  d.pragma('synchronous = FULL');
  d.pragma('foreign_keys = ON');
  return d;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'swb-gate-batch-'));
  db = open(join(dir, 'mail.db'));
  db.exec('CREATE TABLE parent (id INTEGER PRIMARY KEY); CREATE TABLE t (x INTEGER PRIMARY KEY, p INTEGER REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED)');
  other = open(join(dir, 'mail.db'));
  lost = [];
  gate = new StoreGate(200, systemClock, db, (err) => lost.push(err));
});

afterEach(() => {
  other.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const insert = (x: number, p: number | null = null) => () => db.prepare('INSERT INTO t (x, p) VALUES (?, ?)').run(x, p).changes;
const onDisk = () => (other.prepare('SELECT x FROM t ORDER BY x').all() as Array<{ x: number }>).map((r) => r.x);
const settled = <T>(p: Promise<T>) => p.then((value) => ({ ok: true as const, value }), (error: unknown) => ({ ok: false as const, error }));

describe('StoreGate.batch', () => {
  it('commits the calls made inside it once, when it returns, and settles them after', async () => {
    const seenInside: number[][] = [];
    const results = gate.batch(() => {
      const a = gate.run(insert(1));
      const b = gate.run(insert(2));
      seenInside.push(onDisk()); // another connection sees nothing yet: no commit per call
      return [a, b];
    });
    expect(seenInside).toEqual([[]]);
    expect(onDisk()).toEqual([1, 2]);
    expect(await Promise.all(results)).toEqual([1, 1]);
    expect(db.inTransaction).toBe(false);
  });

  it('fails only the call that failed: each runs in a savepoint of its own', async () => {
    const [a, b, c] = gate.batch(() => [gate.run(insert(1)), gate.run(() => {
      insert(2)();
      return insert(1)(); // a duplicate key: this call's first insert is undone with it
    }), gate.run(insert(3))]);
    expect(onDisk()).toEqual([1, 3]);
    expect((await settled(a!)).ok).toBe(true);
    expect((await settled(b!)).ok).toBe(false);
    expect((await settled(c!)).ok).toBe(true);
    expect(lost).toEqual([]);
  });

  it('fails every call of a batch whose commit fails, stores none of them and says so', async () => {
    // A deferred foreign key is checked at COMMIT: the statements succeed, the commit does not.
    const [a, b] = gate.batch(() => [gate.run(insert(1)), gate.run(insert(2, 99))]);
    const [ra, rb] = await Promise.all([settled(a!), settled(b!)]);
    expect(ra.ok).toBe(false);
    expect(rb.ok).toBe(false);
    expect(String((ra as { error: unknown }).error)).toMatch(/FOREIGN KEY/);
    expect(onDisk()).toEqual([]);
    expect(lost).toHaveLength(1);
    expect(db.inTransaction).toBe(false);
    // The gate works on as before.
    expect(await gate.run(insert(5))).toBe(1);
    expect(onDisk()).toEqual([5]);
  });

  it('commits what ran before the work threw, then throws', async () => {
    let first: Promise<number> | undefined;
    expect(() =>
      gate.batch(() => {
        first = gate.run(insert(1));
        throw new Error('the launch loop broke');
      }),
    ).toThrow('the launch loop broke');
    expect(await first).toBe(1);
    expect(onDisk()).toEqual([1]);
  });

  it('runs the work plainly when another process holds the write lock: its calls wait in the gate', async () => {
    other.exec('BEGIN IMMEDIATE');
    const p = gate.batch(() => gate.run(insert(1)));
    expect(db.inTransaction).toBe(false);
    expect(gate.closed).toBe(true);
    other.exec('COMMIT');
    expect(await p).toBe(1);
    expect(onDisk()).toEqual([1]);
  });

  it('answers DB_LOCKED as before for a call that waited out its deadline after a plain batch', async () => {
    other.exec('BEGIN IMMEDIATE');
    const p = settled(gate.batch(() => gate.run(insert(1))));
    const r = await p;
    other.exec('ROLLBACK');
    expect(r.ok).toBe(false);
    expect((r as { error: unknown }).error).toBeInstanceOf(StoreLockedError);
  });

  it('nests: a batch inside a batch is part of the outer one', async () => {
    const inner: number[][] = [];
    const p = gate.batch(() => {
      const q = gate.batch(() => gate.run(insert(1)));
      inner.push(onDisk());
      return q;
    });
    expect(inner).toEqual([[]]);
    expect(await p).toBe(1);
    expect(onDisk()).toEqual([1]);
  });

  it('without a database, only runs the work', async () => {
    const plain = new StoreGate(200);
    expect(await plain.batch(() => plain.run(() => 7))).toBe(7);
  });
});
