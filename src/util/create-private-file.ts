// Creates an empty 0600 file if it does not exist yet, without ever opening an existing one.
// POSIX drops every fcntl lock a process holds on a file when it closes *any* descriptor of that
// file, so an open+close of an SQLite file this process already uses (the hub's election lock,
// mail.db) would silently release its locks.
import { closeSync, openSync } from 'node:fs';

export function createPrivateFileOnce(file: string): void {
  try {
    closeSync(openSync(file, 'wx', 0o600));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}
