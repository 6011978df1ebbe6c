// Opening mail.db: a new file's schema steps commit in one transaction that does not wait for the
// disk (issue #33: nothing is accepted yet, and the first FULL commit syncs the WAL with it), and
// the connection is FULL again before anything else commits.
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openDatabase } from '../../../src/store/open-database.js';
import { MIGRATIONS } from '../../../src/store/migrations.js';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'swb-opendb-'));
});

afterEach(() => {
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

/** The pragmas `open` runs, in order, as written. */
function pragmasOf(open: () => Database.Database): { db: Database.Database; pragmas: string[] } {
  const pragmas: string[] = [];
  const original = Database.prototype.pragma;
  vi.spyOn(Database.prototype, 'pragma').mockImplementation(function (this: Database.Database, source: string, options?: Database.PragmaOptions) {
    pragmas.push(source);
    return original.call(this, source, options);
  });
  const db = open();
  vi.restoreAllMocks();
  return { db, pragmas };
}

describe('openDatabase', () => {
  it('migrates a new file under synchronous NORMAL, and leaves the connection FULL', () => {
    const { db, pragmas } = pragmasOf(() => openDatabase(join(dir, 'mail.db')));
    try {
      const normal = pragmas.indexOf('synchronous = NORMAL');
      const version = pragmas.indexOf(`user_version = ${MIGRATIONS.length}`);
      const full = pragmas.lastIndexOf('synchronous = FULL');
      expect(normal).toBeGreaterThan(pragmas.indexOf('journal_mode = WAL'));
      expect(version).toBeGreaterThan(normal);
      expect(full).toBeGreaterThan(version);
      expect(db.pragma('synchronous', { simple: true })).toBe(2);
      expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    } finally {
      db.close();
    }
  });

  it('commits nothing on a file already at the current schema', () => {
    openDatabase(join(dir, 'mail.db')).close();
    const { db, pragmas } = pragmasOf(() => openDatabase(join(dir, 'mail.db')));
    db.close();
    expect(pragmas).not.toContain('synchronous = NORMAL');
    expect(pragmas.some((p) => p.startsWith('user_version ='))).toBe(false);
  });
});
