// One hub per workspace, elected by a kernel-held lock: an SQLite database opened with
// locking_mode=EXCLUSIVE holds a POSIX lock on hub.lock for as long as the process lives, and the
// kernel drops it when the process dies (even by SIGKILL). No pid files, no timeouts.
import { chmodSync } from 'node:fs';
import { createPrivateFileOnce } from '../util/create-private-file.js';
import { openSqliteFile } from '../store/sqlite-file.js';
import type { Disposable } from '../util/lifecycle.js';

export interface WorkspaceLock extends Disposable {
  readonly file: string;
}

/** Returns the lock if this process won the election, or null if a live hub already holds it. */
export function tryAcquireWorkspaceLock(file: string): WorkspaceLock | null {
  // Never open+close an existing lock file here: closing any descriptor of a file drops every
  // POSIX lock this process holds on it, which would silently release a running hub's lock.
  createPrivateFileOnce(file);
  chmodSync(file, 0o600);
  const db = openSqliteFile(file, { timeout: 0 });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
    db.exec('CREATE TABLE IF NOT EXISTS hub_lock (held INTEGER)');
    db.exec('COMMIT');
  } catch (err) {
    db.close();
    if ((err as { code?: string }).code === 'SQLITE_BUSY' || (err as { code?: string }).code === 'SQLITE_LOCKED') return null;
    throw err;
  }
  return {
    file,
    dispose() {
      if (db.open) db.close();
    },
  };
}
