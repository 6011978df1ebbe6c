// Which job has a row's terminal: a row's program is a session leader (forkpty), so the terminal's
// foreground process group is the leader's own while the shell waits at its prompt, and another
// group's while a job runs in the foreground (vim, less, a long command). The kernel says which in
// /proc/PID/stat (tpgid, the terminal's foreground group) — what tcgetpgrp on the pty would say.
import { readFileSync } from 'node:fs';
import { readProcStat } from './process-tree.js';

export interface ForegroundJob {
  /** The foreground process group (its leader's pid). */
  pgid: number;
  /** That leader's command name (/proc/PID/comm), or '' when unreadable. */
  name: string;
}

/**
 * The job that holds the terminal of the session led by `leaderPid`, if it is not the leader's own
 * group; null when the leader's group has it; undefined when this platform or moment cannot tell.
 */
export function foregroundJobOf(leaderPid: number): ForegroundJob | null | undefined {
  if (process.platform !== 'linux' || !(leaderPid > 0)) return undefined;
  const stat = readProcStat(leaderPid);
  if (stat === undefined) return undefined;
  const { pgrp, tpgid } = stat;
  if (!(tpgid > 0) || !(pgrp > 0)) return undefined;
  if (tpgid === pgrp) return null;
  let name = '';
  try {
    // Shown in explain: any program may name itself anything, so only printable characters stay.
    name = readFileSync(`/proc/${tpgid}/comm`, 'latin1').trim().replace(/[^\x20-\x7e]/g, '?');
  } catch {
    // the job just ended
  }
  return { pgid: tpgid, name };
}
