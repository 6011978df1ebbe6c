// What a failed SQLite call means for the person who has to fix it. Every store error on every
// hub path ends here and becomes a typed answer to the one client it concerns; none may end the
// hub. The codes say what happened (DISK_FULL, DB_LOCKED, RECOVERY_REQUIRED) and the sentence says
// where and what to do.
import { copyFileSync, existsSync, readFileSync, statSync } from 'node:fs';
import { swbError, type SwbErrorValue } from '../protocol/error-codes.js';

/** better-sqlite3's SqliteError carries SQLite's extended code name in `code` (SQLITE_BUSY, SQLITE_IOERR_WRITE, ...). */
function sqliteCode(err: unknown): string | null {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : null;
}

/** Errors that come from SQLite (or the store gate waiting on it): typed for the client, not logged as bugs. */
export function isStoreFailure(err: unknown): boolean {
  const code = sqliteCode(err);
  return code !== null && (code.startsWith('SQLITE_') || code === 'ENOSPC');
}

export function isBusyError(err: unknown): boolean {
  const code = sqliteCode(err);
  return code !== null && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

export function isCorruptError(err: unknown): boolean {
  const code = sqliteCode(err);
  return code !== null && (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB');
}

function isFullError(err: unknown): boolean {
  const code = sqliteCode(err);
  return code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'SQLITE_IOERR_WRITE_FULL';
}

/**
 * The typed error for a store failure. `context` is what was being done ("The message could not
 * be stored"); the result never claims anything was accepted.
 */
export function storeErrorValue(err: unknown, dbFile: string, context: string, setAside?: string | null): SwbErrorValue {
  const code = sqliteCode(err) ?? 'unknown';
  if (isFullError(err)) {
    return swbError('DISK_FULL', `${context}: the disk holding ${dbFile} is full (${code}). Nothing was changed; free some space, then retry.`, {
      path: dbFile,
    });
  }
  if (isBusyError(err)) {
    return swbError('DB_LOCKED', `${context}: ${dbFile} is locked by another process${lockHolderNote(dbFile)}. Close it (a sqlite3 shell or a backup tool), then retry.`, {
      path: dbFile,
    });
  }
  if (isCorruptError(err)) {
    const copy = setAside ? ` A copy was set aside at ${setAside}.` : '';
    return swbError(
      'RECOVERY_REQUIRED',
      `${context}: ${dbFile} is damaged (${code}).${copy} Stop swb, recover what can be read (sqlite3 COPY .recover | sqlite3 NEW.db) or move the file away to start an empty inbox.`,
      { path: dbFile, ...(setAside ? { copy: setAside } : {}) },
    );
  }
  const message = err instanceof Error ? err.message : String(err);
  return swbError('INTERNAL', `${context}: ${dbFile} failed (${code}: ${message.slice(0, 200)}). Nothing was changed; check the disk and the hub log.`, {
    path: dbFile,
  });
}

/**
 * Who holds a POSIX lock on the database file, from /proc/locks (Linux): SQLite locks byte ranges
 * of the db (rollback mode) or of its -shm file (WAL), so either inode may show the holder.
 */
export function lockHolderNote(dbFile: string): string {
  try {
    const inodes = new Set<number>();
    for (const f of [dbFile, `${dbFile}-shm`]) if (existsSync(f)) inodes.add(statSync(f).ino);
    const pids = new Set<number>();
    for (const line of readFileSync('/proc/locks', 'utf8').split('\n')) {
      // "1: POSIX  ADVISORY  WRITE 1234 fd:01:5678 1073741824 1073741824"
      const m = /^\d+:\s+\S+\s+\S+\s+\S+\s+(\d+)\s+[0-9a-f]+:[0-9a-f]+:(\d+)\s/.exec(line);
      if (m && inodes.has(Number(m[2])) && Number(m[1]) !== process.pid) pids.add(Number(m[1]));
    }
    if (pids.size === 0) return '';
    const who = [...pids].slice(0, 3).map((pid) => {
      try {
        // Any process may name itself anything: keep the name to plain printable characters.
        return `pid ${pid} (${readFileSync(`/proc/${pid}/comm`, 'utf8').trim().replace(/[^\x20-\x7e]/g, '?')})`;
      } catch {
        return `pid ${pid}`;
      }
    });
    return ` (held by ${who.join(', ')})`;
  } catch {
    return '';
  }
}

/** Copies a damaged database (and its WAL) beside itself once, for the operator to recover from. */
export function setAsideDamaged(dbFile: string, now: number = Date.now()): string | null {
  const stamp = new Date(now).toISOString().replace(/[:.]/g, '-');
  const copy = `${dbFile}.damaged-${stamp}`;
  try {
    copyFileSync(dbFile, copy);
    for (const suffix of ['-wal', '-shm']) if (existsSync(dbFile + suffix)) copyFileSync(dbFile + suffix, copy + suffix);
    return copy;
  } catch {
    return null;
  }
}
