// What the hub learns from a connection's peer credentials (SO_PEERCRED), where the platform
// gives them. A token in a readable file is not enough to be the operator: an agent in a row runs
// as the same user and can read operator.token. So the operator's hello is refused to a process
// that runs inside one of this hub's rows: a descendant of the hub's own process (the dashboard
// or server that spawned the rows), or one whose environment names a row of this hub's socket.
// docs/SECURITY.md says what this stops (a confused or prompt-injected agent) and what it cannot
// (a hostile one that double-forks out of the tree and scrubs its environment).
import { readFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { readProcStat } from '../rows/process-tree.js';
import { peerCredentialsOf, type PeerCredentials } from '../util/peer-credentials.js';

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
  if (!peer || peer.pid <= 0 || process.platform !== 'linux') return null;
  let pid = peer.pid;
  for (let depth = 0; depth < MAX_DEPTH && pid > 1; depth++) {
    const row = rowOfEnvironment(pid, socketPath);
    if (row) return `process ${peer.pid} runs in row ${row}${pid === peer.pid ? '' : ` (its ancestor ${pid} is that row's)`}`;
    const stat = readProcStat(pid);
    if (!stat) return null;
    pid = stat.ppid;
  }
  return null;
}

const MAX_DEPTH = 64;

/** SWB_SESSION of a process whose environment points at this hub's socket (bounded read), else null. */
function rowOfEnvironment(pid: number, socketPath: string): string | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/environ`, 'latin1').slice(0, 1 << 20);
  } catch {
    return null;
  }
  let session: string | null = null;
  let socket: string | null = null;
  for (const entry of text.split('\0')) {
    if (entry.startsWith('SWB_SESSION=')) session = entry.slice('SWB_SESSION='.length);
    else if (entry.startsWith('SWB_SOCKET=')) socket = entry.slice('SWB_SOCKET='.length);
  }
  return session && socket === socketPath ? session : null;
}
