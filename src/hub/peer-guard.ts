// What the hub learns from a connection's peer credentials (SO_PEERCRED), where the platform
// gives them. A token in a readable file is not enough to be the operator: an agent in a row runs
// as the same user and can read operator.token. So the operator's hello is refused to a process
// that runs inside one of this hub's rows: a descendant of the hub's own process (the dashboard
// or server that spawned the rows), or one whose environment names a row of this hub's socket.
// docs/SECURITY.md says what this stops (a confused or prompt-injected agent) and what it cannot
// (a hostile one that double-forks out of the tree and scrubs its environment).
import type { Socket } from 'node:net';
import { peerCredentialsOf, type PeerCredentials } from '../util/peer-credentials.js';
import { findInAncestry } from '../util/proc-ancestry.js';

/** The peer's credentials, or null when the platform does not tell (or the socket is gone). */
export function peerOf(socket: Socket): PeerCredentials | null {
  try {
    return peerCredentialsOf(socket);
  } catch {
    return null;
  }
}

/** Why `peer` may not be the operator of the hub at `socketPath`, or null when nothing says it runs in a row. */
export function operatorRefusal(peer: PeerCredentials | null, socketPath: string): string | null {
  if (!peer || peer.pid <= 0) return null;
  const found = findInAncestry(peer.pid, (vars, pid) => {
    const row = vars.get('SWB_SESSION');
    return row && vars.get('SWB_SOCKET') === socketPath ? { row, pid } : undefined;
  });
  if (!found) return null;
  return `process ${peer.pid} runs in row ${found.row}${found.pid === peer.pid ? '' : ` (its ancestor ${found.pid} is that row's)`}`;
}
