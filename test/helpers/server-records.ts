// Looking at a workspace server from the outside, for restore tests: a process's argv, the session
// id the server recorded for a row (read from its store), and what the server logged.
import Database from 'better-sqlite3';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TempHome } from './temp-home.js';

/** A live process's argv (Linux), or null. */
export function argvOf(pid: number): string[] | null {
  try {
    const raw = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return raw.split('\0').slice(0, raw.endsWith('\0') ? -1 : undefined);
  } catch {
    return null;
  }
}

/** The session id the server recorded for a row, read from its store from the outside. */
export function recordedSession(home: TempHome, name: string): string | null | undefined {
  if (!existsSync(home.paths.dbFile)) return undefined;
  const db = new Database(home.paths.dbFile, { readonly: true, fileMustExist: true });
  try {
    const row = db.prepare('SELECT session_id FROM row_records WHERE name = ?').get(name) as { session_id: string | null } | undefined;
    return row?.session_id;
  } finally {
    db.close();
  }
}

/** What the server wrote about itself, for failure messages. */
export function serverLogs(home: TempHome): string {
  const read = (f: string) => (existsSync(join(home.paths.runDir, f)) ? readFileSync(join(home.paths.runDir, f), 'utf8').slice(-4000) : '(none)');
  return `server.log:\n${read('server.log')}\nserver.out:\n${read('server.out')}`;
}
