// The rule both sides of the hub socket apply to the directories above it (docs/SECURITY.md):
// every one is a real directory owned by us or root (a root-owned symlink is allowed: macOS /tmp),
// and none is writable by group or others unless it has the sticky bit (like /tmp), so nobody else
// can have put or replaced anything in it. Failures are UNSAFE_RUNTIME_DIR.
import { lstatSync } from 'node:fs';
import { dirname } from 'node:path';
import { SwbError } from '../protocol/error-codes.js';

export function myUid(): number {
  return typeof process.getuid === 'function' ? process.getuid() : 0;
}

const CONSEQUENCE = 'Refusing to talk to a hub there: it may not be yours.';

export function unsafeDir(message: string, consequence = CONSEQUENCE): SwbError {
  return new SwbError('UNSAFE_RUNTIME_DIR', `${message} ${consequence}`);
}

/** `dir` and every directory above it, up to the root. */
export function checkDirectoryChain(dir: string, uid: number, consequence = CONSEQUENCE): void {
  for (let d = dir; ; d = dirname(d)) {
    checkAncestor(d, uid, consequence);
    if (dirname(d) === d) return;
  }
}

export function checkAncestor(dir: string, uid: number, consequence = CONSEQUENCE): void {
  const unsafe = (message: string) => unsafeDir(message, consequence);
  const st = lstatSync(dir);
  if (st.isSymbolicLink()) {
    // A system symlink (macOS /tmp → private/tmp) is root's; anyone else's could point anywhere.
    if (st.uid !== 0) throw unsafe(`${dir} is a symbolic link owned by uid ${st.uid}.`);
    return;
  }
  if (!st.isDirectory()) throw unsafe(`${dir} is not a directory.`);
  if (st.uid !== uid && st.uid !== 0) throw unsafe(`${dir} belongs to uid ${st.uid}, not to you (uid ${uid}).`);
  // Writable by others is safe only with the sticky bit (like /tmp): then nobody else may rename or
  // remove what is ours inside it.
  if ((st.mode & 0o022) !== 0 && (st.mode & 0o1000) === 0) {
    throw unsafe(`${dir} is writable by group or others (mode ${(st.mode & 0o777).toString(8)}) without the sticky bit.`);
  }
}

/** The same for the part of `dir`'s chain that exists (a runtime dir not made yet is not a problem). */
export function checkExistingChain(dir: string, uid: number = myUid()): void {
  let d = dir;
  for (;;) {
    try {
      lstatSync(d);
      break;
    } catch {
      if (dirname(d) === d) return;
      d = dirname(d);
    }
  }
  checkDirectoryChain(d, uid);
}
