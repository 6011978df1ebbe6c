// Signals for everything a row started. forkpty(3) makes the row's program a session leader, so
// its pid is both its process group and its session id. Agents start helpers, and a job-control
// shell may move them into other process groups of the same session, so besides the group we
// also signal every process whose session id is the row's (read from /proc on Linux).
//
// Pid reuse: Linux keeps a pid number allocated while any task still uses it as a pid, process
// group or session id. So while any process of the row lives, the leader's number cannot name a
// stranger; once a live process holds that number with a different start time, the row's group
// and session are empty and nothing is signalled.
import { closeSync, openSync, readFileSync, readSync, readdirSync } from 'node:fs';

export interface ProcStat {
  pid: number;
  ppid: number;
  state: string;
  /** Process group id. */
  pgrp: number;
  session: number;
  /** The controlling terminal's device number (0: none). */
  ttyNr: number;
  /** The process group in the foreground of that terminal (tpgid; -1 or 0: none). */
  tpgid: number;
  /** Kernel start time: with the pid, names one process across pid reuse. */
  startTime: string;
}

/** One process's /proc/PID/stat (Linux), or undefined if it is gone or unreadable. */
export function readProcStat(pid: number): ProcStat | undefined {
  const text = readProcFile(`/proc/${pid}/stat`);
  if (text === undefined) return undefined;
  // "pid (comm) state ppid pgrp session tty_nr tpgid flags ... starttime ..." — comm may hold
  // spaces and parens, so split after the last ')'. starttime is field 22 (index 19 here).
  const close = text.lastIndexOf(')');
  if (close < 0) return undefined;
  const fields = text.slice(close + 2).split(' ');
  return { pid, state: fields[0] ?? '?', ppid: Number(fields[1]), pgrp: Number(fields[2]), session: Number(fields[3]), ttyNr: Number(fields[4]) || 0, tpgid: Number(fields[5]), startTime: fields[19] ?? '' };
}

const readStat = readProcStat;

/**
 * One /proc file's text (latin1), or undefined if it is gone or unreadable. /proc reports a size of
 * 0, which sends readFileSync down its unknown-size path (a 64 KB buffer and a copy per read): read
 * into one buffer here instead, a third of the cost (each row's start reads its leader's stat, and
 * state detection reads stats while rows run). A file that fills the buffer is read whole after all.
 */
function readProcFile(path: string): string | undefined {
  try {
    const fd = openSync(path, 'r');
    let length = 0;
    try {
      for (;;) {
        const n = readSync(fd, procBuffer, length, procBuffer.length - length, null);
        if (n === 0) break;
        length += n;
        if (length === procBuffer.length) return readFileSync(path, 'latin1');
      }
    } finally {
      closeSync(fd);
    }
    return procBuffer.toString('latin1', 0, length);
  } catch {
    return undefined;
  }
}
/** A stat line is a few hundred bytes (its comm at most 64). */
const procBuffer = Buffer.allocUnsafe(4096);

/** Identifies a row's leader across pid reuse. */
export interface ProcessTree {
  leader: number;
  /** Kernel start time of the leader (Linux), undefined elsewhere. */
  startTime: string | undefined;
}

export function identifyProcessTree(leader: number): ProcessTree {
  return { leader, startTime: process.platform === 'linux' ? readStat(leader)?.startTime : undefined };
}

/** Live (non-zombie) processes whose session id is `sid`; empty where /proc is unavailable. */
export function sessionMembers(sid: number): number[] {
  return liveProcessesWhere((stat) => stat.session === sid);
}

/** Every live (non-zombie) process whose /proc stat passes `keep`, by one scan of /proc; empty where there is none. */
export function liveProcessesWhere(keep: (stat: ProcStat) => boolean): number[] {
  return liveProcessStats()
    .filter(keep)
    .map((stat) => stat.pid);
}

/** The /proc stat of every live process (neither a zombie nor dead), by one scan of /proc; empty off Linux. */
export function liveProcessStats(): ProcStat[] {
  if (process.platform !== 'linux') return [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const stats: ProcStat[] = [];
  for (const entry of entries) {
    const code = entry.charCodeAt(0);
    if (code < 48 || code > 57) continue;
    const stat = readStat(Number(entry));
    if (stat !== undefined && stat.state !== 'Z' && stat.state !== 'X') stats.push(stat);
  }
  return stats;
}

/** True while `pid` exists and is not a zombie waiting to be reaped. */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  if (process.platform !== 'linux') return true;
  const stat = readStat(pid);
  return stat !== undefined && stat.state !== 'Z';
}

/** True when the leader's pid now names a different process (the row's processes are all gone). */
function leaderReused(tree: ProcessTree): boolean {
  if (tree.startTime === undefined) return false;
  const stat = readStat(tree.leader);
  return stat !== undefined && stat.startTime !== tree.startTime;
}

function trySignal(target: number, signal: NodeJS.Signals | number): boolean {
  try {
    process.kill(target, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Sends `signal` to the row's process group and to every live member of its session.
 * Returns true if anything was still there to receive it.
 */
export function signalProcessTree(tree: ProcessTree, signal: NodeJS.Signals | number): boolean {
  const { leader } = tree;
  if (!Number.isInteger(leader) || leader <= 1 || leaderReused(tree)) return false;
  let reached = trySignal(-leader, signal);
  for (const pid of sessionMembers(leader)) {
    if (pid !== process.pid) reached = trySignal(pid, signal) || reached;
  }
  return trySignal(leader, signal) || reached;
}

/** Whether any process of the row (its leader, group or session) is still alive. */
export function processTreeAlive(tree: ProcessTree): boolean {
  const { leader } = tree;
  if (!Number.isInteger(leader) || leader <= 1 || leaderReused(tree)) return false;
  if (isProcessAlive(leader)) return true;
  // On Linux a group never spans sessions, so the session scan covers the group (and skips zombies).
  if (process.platform === 'linux') return sessionMembers(leader).length > 0;
  return trySignal(-leader, 0);
}
