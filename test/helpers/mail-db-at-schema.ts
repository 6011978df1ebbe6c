// A mail.db at an older schema version, made as the swb of that version left it: one transaction a
// migration step, foreign keys on (as it migrated then; today's open runs every due step in one
// transaction with foreign keys off). For the upgrade tests of each schema (test/unit/store/schema-*.test.ts).
import Database from 'better-sqlite3';
import { MIGRATIONS } from '../../src/store/migrations.js';

export function mailDbAtSchema(file: string, version: number): Database.Database {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  for (let v = 0; v < version; v++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[v]!);
      db.pragma(`user_version = ${v + 1}`);
    })();
  }
  return db;
}
