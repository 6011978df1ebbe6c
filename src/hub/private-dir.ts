// Creates and checks the private directories the hub trusts: owned by us, mode 0700, not a
// symlink anywhere we created. Anything else is refused with UNSAFE_RUNTIME_DIR, not repaired
// behind the operator's back (except tightening a mode on a dir we own).
import { chmodSync, lstatSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { SwbError } from '../protocol/error-codes.js';

function myUid(): number {
  return typeof process.getuid === 'function' ? process.getuid() : 0;
}

/** Ensures `dir` exists as a private directory; creates missing parents down to `trustedRoot`. */
export function ensurePrivateDir(dir: string, trustedRoot: string): void {
  mkdirSync(trustedRoot, { recursive: true });
  const chain: string[] = [];
  for (let d = dir; d !== trustedRoot && d !== dirname(d); d = dirname(d)) chain.unshift(d);
  for (const d of chain) {
    try {
      mkdirSync(d, { mode: 0o700 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    checkPrivateDir(d);
  }
}

export function checkPrivateDir(dir: string): void {
  const st = lstatSync(dir);
  if (st.isSymbolicLink()) throw new SwbError('UNSAFE_RUNTIME_DIR', `${dir} is a symbolic link; refusing to use it.`);
  if (!st.isDirectory()) throw new SwbError('UNSAFE_RUNTIME_DIR', `${dir} is not a directory.`);
  if (st.uid !== myUid()) throw new SwbError('UNSAFE_RUNTIME_DIR', `${dir} belongs to uid ${st.uid}, not to you (uid ${myUid()}).`);
  if ((st.mode & 0o077) !== 0) chmodSync(dir, 0o700);
}

/** True when `path` is a socket we own (what we may consider unlinking once proven stale). */
export function isOwnSocket(path: string): boolean {
  try {
    const st = lstatSync(path);
    return st.isSocket() && st.uid === myUid();
  } catch {
    return false;
  }
}
