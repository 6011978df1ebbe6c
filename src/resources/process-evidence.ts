// Evidence that a launched command is gone (issue #35): the pid together with its kernel start time
// (a pid alone may name a stranger after reuse), and its process group (a command's helpers outlive
// it in the group). No heartbeat, no pid file: only what /proc says now. Linux only; elsewhere there
// is no evidence either way and the ticket waits for an explicit release.
import { liveProcessesWhere, readProcStat, type ProcStat } from '../rows/process-tree.js';

export interface LaunchIdentity {
  pid: number;
  startTime: string;
  pgid: number;
}

export interface ProcReader {
  stat(pid: number): ProcStat | undefined;
  /** Live (non-zombie) processes whose process group is `pgid`. */
  groupMembers(pgid: number): number[];
}

export type Evidence = { alive: true; why: string } | { alive: false; why: string };

export const linuxProc: ProcReader = {
  stat: readProcStat,
  groupMembers(pgid) {
    // The kernel answers "no such group" at once; only a group that exists (zombies included) is
    // worth a scan of /proc, which costs milliseconds per call on a busy machine.
    if (!groupExists(pgid)) return [];
    return liveProcessesWhere((s) => s.pgrp === pgid);
  },
};

function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether any process of a launch lives: the process itself (same start time), or its group. */
export function launchEvidence(l: LaunchIdentity, proc: ProcReader = linuxProc): Evidence {
  const s = proc.stat(l.pid);
  if (s && s.startTime === l.startTime && s.state !== 'Z') return { alive: true, why: `process ${l.pid} runs` };
  // Linux keeps a number allocated while a group uses it as its id: if the group's number now names
  // another process, the group was empty when it was reused, and what is in it now is a stranger's.
  if (s && s.startTime !== l.startTime && s.pid === l.pgid) {
    return { alive: false, why: `pid ${l.pid} now names another process (started ${s.startTime}, not ${l.startTime}), so its group is gone` };
  }
  const members = proc.groupMembers(l.pgid);
  if (members.length > 0) return { alive: true, why: `${members.length} process${members.length === 1 ? '' : 'es'} of group ${l.pgid} run` };
  return { alive: false, why: `pid ${l.pid} (start ${l.startTime}) and process group ${l.pgid} have no live process` };
}
