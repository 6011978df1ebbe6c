// Listening on a Unix socket path so that the path answers from the moment it exists. `listen()` on a
// path binds first (the file appears) and listens after; a client that connects between the two is
// refused (ECONNREFUSED), and on a loaded machine the process can be descheduled right there, so a
// client that saw the file and connected would take a live hub or server for a dead one (seen in a
// full test run). Here the socket binds and listens under a short temporary name in the same private
// directory, gets its mode, and only then is renamed onto its path: the path names a listening socket,
// the stale one it atomically replaces, or nothing.
import { chmodSync, lstatSync, renameSync, unlinkSync } from 'node:fs';
import type { Server } from 'node:net';
import { dirname, join } from 'node:path';
import { isOwnSocket } from './private-dir.js';

let nextTemporary = 0;

/**
 * Listens on `path` (mode 0600). A stale socket of ours at `path` is replaced; anything else there is
 * left alone and the listen fails with EADDRINUSE, as a plain listen would.
 */
export async function listenOnSocketPath(server: Server, path: string, backlog?: number): Promise<void> {
  // At most 7 characters (a pid is at most 5 in base 36), no longer than the final names ('hub.sock',
  // 'server.sock'): a path that fits the kernel's limit has a temporary name that fits too. Unique in
  // this process, where the hub and the server both listen.
  const temporary = join(dirname(path), `.${process.pid.toString(36)}${(nextTemporary++ % 36).toString(36)}`);
  if (isOwnSocket(temporary)) unlinkSync(temporary);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ path: temporary, ...(backlog !== undefined ? { backlog } : {}) }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  try {
    chmodSync(temporary, 0o600);
    if (occupiedByOther(path)) throw Object.assign(new Error(`listen EADDRINUSE: address already in use ${path}`), { code: 'EADDRINUSE' });
    renameSync(temporary, path);
  } catch (err) {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    try {
      unlinkSync(temporary);
    } catch {
      // closing removed it already
    }
    throw err;
  }
}

/** Something at `path` that is not a socket of ours (which would be stale: the caller holds the lock). */
function occupiedByOther(path: string): boolean {
  try {
    lstatSync(path);
  } catch {
    return false;
  }
  return !isOwnSocket(path);
}
