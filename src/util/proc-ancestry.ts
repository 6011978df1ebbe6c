// A process and its ancestors as /proc tells them (Linux): the SWB_* variables each was started with
// (/proc/PID/environ keeps the environment of exec, whatever the process later hands its children)
// and its parent. Both sides use it to find the row a process runs in: the CLI to speak as that row
// when an agent scrubbed its variables, the hub to refuse the operator's token to such a process.
import { readFileSync } from 'node:fs';

/** Far enough for agent → shell → wrapper chains; a loop guard, not a policy. */
const MAX_ANCESTORS = 64;
/** /proc/PID/environ of a program started with a huge environment is still read whole, but bounded. */
const MAX_ENVIRON_BYTES = 1024 * 1024;

/** The SWB_* variables of a process's initial environment; undefined when unreadable (another user, gone). */
export function swbVariablesOf(pid: number, procRoot = '/proc'): Map<string, string> | undefined {
  let raw: Buffer;
  try {
    raw = readFileSync(`${procRoot}/${pid}/environ`);
  } catch {
    return undefined;
  }
  if (raw.length > MAX_ENVIRON_BYTES) raw = raw.subarray(0, MAX_ENVIRON_BYTES);
  const vars = new Map<string, string>();
  for (const entry of raw.toString('utf8').split('\0')) {
    if (!entry.startsWith('SWB_')) continue;
    const eq = entry.indexOf('=');
    if (eq > 0) vars.set(entry.slice(0, eq), entry.slice(eq + 1));
  }
  return vars;
}

/** The parent pid from /proc/PID/stat ("pid (comm) state ppid ..."; comm may hold spaces and parens). */
export function parentPidOf(pid: number, procRoot = '/proc'): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`${procRoot}/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const close = stat.lastIndexOf(')');
  if (close < 0) return undefined;
  const ppid = Number(stat.slice(close + 2).split(' ')[1]);
  return Number.isInteger(ppid) && ppid >= 0 ? ppid : undefined;
}

/**
 * Walks `pid` and then its ancestors, nearest first, and returns the first answer `pick` gives for a
 * process's SWB_* variables; undefined when none does (or off Linux).
 */
export function findInAncestry<T>(pid: number, pick: (vars: Map<string, string>, pid: number) => T | undefined, procRoot = '/proc'): T | undefined {
  if (process.platform !== 'linux') return undefined;
  for (let depth = 0, p = pid; depth < MAX_ANCESTORS && p > 1; depth++) {
    const vars = swbVariablesOf(p, procRoot);
    const found = vars ? pick(vars, p) : undefined;
    if (found !== undefined) return found;
    const parent = parentPidOf(p, procRoot);
    if (parent === undefined || parent === p) return undefined;
    p = parent;
  }
  return undefined;
}
