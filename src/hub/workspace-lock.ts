// One hub per workspace, elected by a kernel-held lock: an SQLite connection to hub.lock that holds
// an EXCLUSIVE transaction open holds a POSIX lock on it for as long as the process lives, and the
// kernel drops it when the process dies (even by SIGKILL). No pid files, no timeouts.
//
// Nothing is ever written there (issue #33): the transaction stays open, so it never commits, and
// its journal lives in memory. The lock used to be a committed CREATE TABLE under
// locking_mode=EXCLUSIVE, which on a new workspace wrote the file's first page through a rollback
// journal: four fsyncs (the journal, its directory, the journal again, the file) on the server's way
// to listening, for a file whose content nobody reads. Either way of taking it keeps the other out
// (a file with that table, from an older swb, locks the same), and neither needs the other's content.
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
    db.pragma('journal_mode = MEMORY');
    // Held until the connection closes (dispose, or the process's end): the lock itself.
    db.exec('BEGIN EXCLUSIVE');
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
