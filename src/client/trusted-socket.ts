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
import { peerCredentialsOf } from '../util/peer-credentials.js';
import { checkDirectoryChain, checkExistingChain, myUid, unsafeDir as unsafe } from '../util/private-path.js';

/**
 * Throws UNSAFE_RUNTIME_DIR unless the socket's path is one only we (or root) could have made. With
 * no socket yet, the directories that exist are checked all the same: a hub must not be started
 * (nor waited for) in another user's directory.
 */
export function checkSocketPath(socketPath: string): void {
  const uid = myUid();
  let st: Stats;
  try {
    st = lstatSync(socketPath);
  } catch {
    checkExistingChain(dirname(socketPath), uid);
    return; // nothing there: connecting fails with ENOENT and nothing is sent
  }
  if (!st.isSocket()) throw unsafe(`${socketPath} is not a socket.`);
  if (st.uid !== uid) throw unsafe(`${socketPath} belongs to uid ${st.uid}, not to you (uid ${uid}).`);
  checkDirectoryChain(dirname(socketPath), uid);
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
