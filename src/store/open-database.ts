// Opens mail.db with the durability settings DESIGN §5 asks for and brings its schema up to date.
import Database from 'better-sqlite3';
import { chmodSync } from 'node:fs';
import { createPrivateFileOnce } from '../util/create-private-file.js';
import { MIGRATIONS } from './migrations.js';
import { SwbError } from '../protocol/error-codes.js';

export type SqliteDatabase = Database.Database;

export function openDatabase(file: string): SqliteDatabase {
  // Create the file 0600 before SQLite does, so mail is never world-readable even for an instant
  // (only if missing: closing a descriptor of an open database would drop this process's locks on it).
  createPrivateFileOnce(file);
  chmodSync(file, 0o600);
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    // FULL: a commit is on disk (WAL fsynced) before it returns; "accepted" means durable.
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    migrate(db);
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

function migrate(db: SqliteDatabase): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > MIGRATIONS.length) {
    throw new SwbError(
      'RECOVERY_REQUIRED',
      `mail.db has schema version ${current}, newer than this swb understands (${MIGRATIONS.length}); upgrade swb.`,
    );
  }
  for (let version = current; version < MIGRATIONS.length; version++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[version]!);
      db.pragma(`user_version = ${version + 1}`);
    })();
  }
}
