// `resource.launched` (issue #35): the hub reads what it records in the launch ledger from /proc
// itself — the kernel start time and process group of the pid, its command line — and checks that
// the process is the caller's: the same uid as the socket peer (SO_PEERCRED), and the peer itself or
// one of its descendants. A payload names only the pid; it cannot make the hub watch a stranger.
import { readFileSync, statSync } from 'node:fs';
import { swbError, type SwbErrorValue } from '../protocol/error-codes.js';
import { readProcStat } from '../rows/process-tree.js';
import type { PeerCredentials } from '../util/peer-credentials.js';

/** Far enough for swb run → command (→ a shell's children); a loop guard, not a policy. */
const MAX_DEPTH = 64;
const MAX_COMMAND_CHARS = 512;

export interface InspectedLaunch {
  pid: number;
  startTime: string;
  pgid: number;
  command: string;
}

export function inspectLaunch(pid: number, caller: PeerCredentials | null): { ok: InspectedLaunch } | { error: SwbErrorValue } {
  if (process.platform !== 'linux') return { error: swbError('BAD_REQUEST', 'The launch ledger needs /proc (Linux); release the ticket explicitly when done.') };
  if (!caller || caller.pid <= 0) {
    return { error: swbError('UNAUTHENTICATED', 'The hub cannot tell which process is asking (no peer credentials), so it records no launch for it.') };
  }
  const stat = readProcStat(pid);
  if (!stat || stat.state === 'Z') return { error: swbError('NOT_FOUND', `Process ${pid} is not running (it may have finished already).`) };
  let uid: number;
  try {
    uid = statSync(`/proc/${pid}`).uid;
  } catch {
    return { error: swbError('NOT_FOUND', `Process ${pid} is not running (it may have finished already).`) };
  }
  if (uid !== caller.uid) return { error: swbError('UNAUTHENTICATED', `Process ${pid} belongs to uid ${uid}, not the caller's (${caller.uid}).`) };
  let p = pid;
  for (let depth = 0; p !== caller.pid; depth++) {
    const parent = depth < MAX_DEPTH && p > 1 ? readProcStat(p)?.ppid : undefined;
    if (parent === undefined || parent <= 1 || parent === p) {
      return { error: swbError('UNAUTHENTICATED', `Process ${pid} is neither the caller (pid ${caller.pid}) nor one of its descendants.`) };
    }
    p = parent;
  }
  return { ok: { pid, startTime: stat.startTime, pgid: stat.pgrp, command: commandLineOf(pid) } };
}

function commandLineOf(pid: number): string {
  try {
    const raw = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0+$/, '');
    const line = raw.split('\0').join(' ');
    return line.length > MAX_COMMAND_CHARS ? `${line.slice(0, MAX_COMMAND_CHARS - 1)}…` : line;
  } catch {
    return '?';
  }
}
