// Opens mail.db with the durability settings DESIGN §5 asks for and brings its schema up to date.
import type Database from 'better-sqlite3';
import { chmodSync } from 'node:fs';
import { createPrivateFileOnce } from '../util/create-private-file.js';
import { MIGRATIONS } from './migrations.js';
import { openSqliteFile } from './sqlite-file.js';
import { SwbError } from '../protocol/error-codes.js';
import { isBusyError, isCorruptError, setAsideDamaged, storeErrorValue } from './store-error.js';
import { systemClock } from '../util/clock.js';

/**
 * SQLite waits this long for another process's lock, on the event loop. Kept short: a longer
 * wait would freeze every client of the hub. The hub schedules its own retries instead (see
 * `store-retry.ts`), so a lock held for seconds costs other clients nothing.
 */
export const BUSY_TIMEOUT_MS = 20;

export type SqliteDatabase = Database.Database;

/**
 * Opens the store, or throws a typed SwbError: DB_LOCKED while another process holds it,
 * DISK_FULL, or RECOVERY_REQUIRED for a damaged file (after setting a copy aside).
 */
export function openDatabase(file: string): SqliteDatabase {
  return asOpenError(file, () => openDatabaseUnchecked(file));
}

/** Runs a step of opening the store (SQLite's open, or the first reads), turning its failure into a typed SwbError. */
export function asOpenError<T>(file: string, step: () => T): T {
  try {
    return step();
  } catch (err) {
    if (err instanceof SwbError) throw err;
    const setAside = isCorruptError(err) ? setAsideDamaged(file) : null;
    const v = storeErrorValue(err, file, 'mail.db could not be opened', setAside);
    throw new SwbError(v.code, v.message, v.details);
  }
}

function openDatabaseUnchecked(file: string): SqliteDatabase {
  // Create the file 0600 before SQLite does, so mail is never world-readable even for an instant
  // (only if missing: closing a descriptor of an open database would drop this process's locks on it).
  createPrivateFileOnce(file);
  chmodSync(file, 0o600);
  const db = openSqliteFile(file);
  try {
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    whenFree(() => {
      db.pragma('journal_mode = WAL');
      // FULL: a commit is on disk (WAL fsynced) before it returns; "accepted" means durable.
      db.pragma('synchronous = FULL');
      migrate(db);
      db.pragma('foreign_keys = ON');
    });
    for (const suffix of ['-wal', '-shm']) {
      try {
        chmodSync(file + suffix, 0o600);
      } catch {
        // not created yet; SQLite creates them with the main file's mode
      }
    }
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

/**
 * Runs `fn` (a transaction) with synchronous = NORMAL for its commit: in WAL mode still consistent
 * and kept in order behind every earlier commit, but not on disk until the next sync (a FULL commit
 * or WalSync). The connection is FULL again before this returns, whatever `fn` did.
 */
export function commitWithoutSync<T>(db: SqliteDatabase, fn: () => T): T {
  db.pragma('synchronous = NORMAL');
  try {
    return fn();
  } finally {
    db.pragma('synchronous = FULL');
  }
}

/** At open nobody is waiting on the hub yet, so a lock held by someone else is waited out (up to 5 s). */
function whenFree(step: () => void): void {
  const deadline = systemClock.now() + 5000;
  for (;;) {
    try {
      step();
      return;
    } catch (err) {
      if (!isBusyError(err) || systemClock.now() > deadline) throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
    }
  }
}

function migrate(db: SqliteDatabase): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > MIGRATIONS.length) {
    throw new SwbError(
      'RECOVERY_REQUIRED',
      `mail.db has schema version ${current}, newer than this swb understands (${MIGRATIONS.length}); upgrade swb.`,
    );
  }
  if (current === MIGRATIONS.length) return;
  // Foreign keys off while the steps run (SQLite's procedure for rebuilding a table, and a no-op
  // inside a transaction, so set here): with them on, dropping a table to rebuild it (schema 10:
  // messages) would first delete, by cascade, every row that references it. The steps keep every
  // reference whole; foreign_key_check proves it before the commit. The caller turns them on.
  db.pragma('foreign_keys = OFF');
  // Every step due in one transaction: one commit rather than one a step, which on a new mail.db
  // was 5-7 ms of the server's cold start (issue #33). A crash mid-way leaves the file at its old
  // version, as a crash in one step always did; no step toggles a pragma that a transaction would
  // refuse. The commit does not wait for the disk either (commitWithoutSync): the WAL's first
  // write and the commit were three fsyncs (the WAL, its directory, the WAL again), 3-20 ms of a
  // new workspace's start on a busy disk. Nothing was accepted yet: a power cut that loses the
  // commit leaves the file at its old version (WAL with synchronous NORMAL stays consistent) and
  // the next open runs the steps again; the store's first FULL commit (a row's handle, the first
  // mail) syncs the WAL, and this commit with it, before anything is acknowledged.
  commitWithoutSync(db, db.transaction(() => {
    for (let version = current; version < MIGRATIONS.length; version++) db.exec(MIGRATIONS[version]!);
    const broken = db.pragma('foreign_key_check') as Array<{ table: string; parent: string }>;
    if (broken.length > 0) {
      const where = [...new Set(broken.map((b) => `${b.table} → ${b.parent}`))].join(', ');
      throw new SwbError(
        'RECOVERY_REQUIRED',
        `mail.db's upgrade from schema ${current} to ${MIGRATIONS.length} would leave ${broken.length} rows referring to rows that are not there (${where}); nothing was changed.`,
      );
    }
    db.pragma(`user_version = ${MIGRATIONS.length}`);
  }));
}
