// The workspace's lock (hub.lock): one holder at a time, let go on dispose, and nothing written to
// the file (issue #33: a new workspace paid four fsyncs for a page nobody reads). A lock file an
// older swb made (its committed CREATE TABLE under locking_mode=EXCLUSIVE) locks the same both ways.
import Database from 'better-sqlite3';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tryAcquireWorkspaceLock } from '../../../src/hub/workspace-lock.js';

let dir: string;
let file: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'swb-lock-'));
  file = join(dir, 'hub.lock');
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The lock as swb took it before: a table committed under locking_mode=EXCLUSIVE. */
function olderSwbLock(): Database.Database | null {
  const db = new Database(file, { timeout: 0 });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
    db.exec('CREATE TABLE IF NOT EXISTS hub_lock (held INTEGER)');
    db.exec('COMMIT');
    return db;
  } catch (err) {
    db.close();
    if ((err as { code?: string }).code === 'SQLITE_BUSY') return null;
    throw err;
  }
}

describe('tryAcquireWorkspaceLock', () => {
  it('has one holder until it lets go, and writes nothing to the file', () => {
    const first = tryAcquireWorkspaceLock(file);
    expect(first).not.toBeNull();
    expect(tryAcquireWorkspaceLock(file)).toBeNull();
    expect(statSync(file).size).toBe(0);
    expect(existsSync(`${file}-journal`)).toBe(false);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    first!.dispose();
    const second = tryAcquireWorkspaceLock(file);
    expect(second).not.toBeNull();
    second!.dispose();
    expect(statSync(file).size).toBe(0);
  });

  it('keeps an older swb out, and is kept out by one', () => {
    const ours = tryAcquireWorkspaceLock(file)!;
    expect(olderSwbLock()).toBeNull();
    ours.dispose();
    const theirs = olderSwbLock();
    expect(theirs).not.toBeNull();
    expect(tryAcquireWorkspaceLock(file)).toBeNull();
    theirs!.close();
    const again = tryAcquireWorkspaceLock(file);
    expect(again).not.toBeNull();
    again!.dispose();
  });
});
