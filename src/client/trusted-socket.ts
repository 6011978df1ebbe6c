// A client checks what the hub checks before it sends anything (DESIGN §3): on a shared /tmp
// another user can pre-create `/tmp/switchboard-<uid>/…` with a listening hub.sock and an
// operator.token, and a client that trusted the path would hand that user its mail and take
// forged mail back. So, before a byte goes out:
//  - every directory above the socket is a real directory (no symlink we do not trust), owned by
//    us or by root, and not writable by group or others unless it has the sticky bit (like /tmp);
//  - the socket is a socket and ours;
//  - after connecting, the process on the other end runs as our uid (SO_PEERCRED), where the
//    platform tells. A root-owned hub is refused too: nobody else's hub gets our mail.
// Any failure is UNSAFE_RUNTIME_DIR, saying what is wrong and where.
import { lstatSync, type Stats } from 'node:fs';
import type { Socket } from 'node:net';
import { dirname } from 'node:path';
import { SwbError } from '../protocol/error-codes.js';
import { peerCredentialsOf } from '../util/peer-credentials.js';

function myUid(): number {
  return typeof process.getuid === 'function' ? process.getuid() : 0;
}

function unsafe(message: string): SwbError {
  return new SwbError('UNSAFE_RUNTIME_DIR', `${message} Refusing to talk to a hub there: it may not be yours.`);
}

/** Throws UNSAFE_RUNTIME_DIR unless the socket's path is one only we (or root) could have made. */
export function checkSocketPath(socketPath: string): void {
  const uid = myUid();
  let st: Stats;
  try {
    st = lstatSync(socketPath);
  } catch {
    return; // nothing there: connecting fails with ENOENT and nothing is sent
  }
  if (!st.isSocket()) throw unsafe(`${socketPath} is not a socket.`);
  if (st.uid !== uid) throw unsafe(`${socketPath} belongs to uid ${st.uid}, not to you (uid ${uid}).`);
  checkDirectoryChain(dirname(socketPath), uid);
}

/** `dir` and every directory above it, up to the root. */
function checkDirectoryChain(dir: string, uid: number): void {
  for (let d = dir; ; d = dirname(d)) {
    checkAncestor(d, uid);
    if (dirname(d) === d) return;
  }
}

function checkAncestor(dir: string, uid: number): void {
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

/** Throws UNSAFE_RUNTIME_DIR unless `file` (the operator token) is a private regular file of ours in a safe dir. */
export function checkPrivateFile(file: string): void {
  const uid = myUid();
  let st: Stats;
  try {
    st = lstatSync(file);
  } catch {
    return; // missing: reading it fails with its own clear error
  }
  if (!st.isFile()) throw unsafe(`${file} is not a regular file.`);
  if (st.uid !== uid) throw unsafe(`${file} belongs to uid ${st.uid}, not to you (uid ${uid}).`);
  if ((st.mode & 0o077) !== 0) throw unsafe(`${file} is readable or writable by others (mode ${(st.mode & 0o777).toString(8)}).`);
  checkDirectoryChain(dirname(file), uid);
}

/** Throws UNSAFE_RUNTIME_DIR when the connected peer is known to run as another uid. */
export function checkPeer(socket: Socket, socketPath: string): void {
  let creds;
  try {
    creds = peerCredentialsOf(socket);
  } catch {
    return; // the socket already closed: nothing can be sent on it either
  }
  if (!creds) return; // no SO_PEERCRED here: the path checks above stand alone
  const uid = myUid();
  if (creds.uid !== uid) throw unsafe(`The hub at ${socketPath} runs as uid ${creds.uid} (pid ${creds.pid}), not as you (uid ${uid}).`);
}
