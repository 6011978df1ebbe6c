// Process bookkeeping for tests that run `swb` as real processes. Only ever signals a pid this
// test started (a recorded child, or a hub that a CLI we ran started and logged), never by name.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { waitUntil } from './wait-until.js';

/**
 * True while `pid` runs. A zombie (dead, not yet reaped by its new parent) counts as gone, but only
 * once all its threads are: a thread-group leader shows `Z` while its other threads still exit and
 * still hold its file descriptors (a listening socket keeps answering until then).
 */
export function isProcessAlive(pid: number): boolean {
  if (process.platform !== 'linux') {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The state letter follows the parenthesised command name.
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    if (state !== 'Z' && state !== 'X') return true;
    return readdirSync(`/proc/${pid}/task`).length > 1;
  } catch {
    return false;
  }
}

/** The command line of a live process (Linux), or null. */
function commandLine(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return null;
  }
}

/** The SWB_HOME a live process was started with (Linux), or null. */
function swbHomeOf(pid: number): string | null {
  try {
    const entry = readFileSync(`/proc/${pid}/environ`, 'utf8')
      .split('\0')
      .find((e) => e.startsWith('SWB_HOME='));
    return entry ? entry.slice('SWB_HOME='.length) : null;
  } catch {
    return null;
  }
}

/**
 * The files an swb process runs: the ES module entry (a hub, a CLI command, `swb server` by hand), the
 * server a client launches (its CommonJS entry) and the dashboard's CommonJS entry. The server's was
 * missing here, so every server a test left running with rows (a detached client) outlived the suite.
 */
const SWB_ENTRIES = /swb\.js|server-main\.cjs|dashboard-main\.cjs/;

/**
 * SIGKILLs `pid` and waits until it is gone. Refuses pids that are not `swb` processes, and with
 * `swbHome`, pids that are not this test's: the suite starts thousands of processes, pids wrap
 * (pid_max is 32768 here), and a hub pid logged long ago may by now belong to another test's hub.
 */
export async function killSwbProcess(pid: number, swbHome?: string, timeoutMs = 5000, familyOf?: (pid: number) => number[]): Promise<void> {
  if (!isProcessAlive(pid)) return;
  const cmd = commandLine(pid);
  if (cmd !== null && !SWB_ENTRIES.test(cmd)) return; // the pid was reused by someone else: not ours
  if (swbHome !== undefined && process.platform === 'linux' && swbHomeOf(pid) !== swbHome) return; // another test's
  // A server's rows first: once it is gone they would be orphans nobody kills.
  for (const child of familyOf?.(pid) ?? []) {
    try {
      process.kill(child, 'SIGKILL');
    } catch {
      // gone already
    }
  }
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    return;
  }
  await waitUntil(() => !isProcessAlive(pid), { timeoutMs, what: `process ${pid} to die` });
}

/** Pids logged in `file` (hub.log, server.log) under each workspace of SWB_HOME/run, by `pattern`. */
function loggedPids(swbHome: string, file: string, pattern: RegExp): number[] {
  const pids: number[] = [];
  let workspaces: string[];
  try {
    workspaces = readdirSync(join(swbHome, 'run'));
  } catch {
    return pids;
  }
  for (const ws of workspaces) {
    let log: string;
    try {
      log = readFileSync(join(swbHome, 'run', ws, file), 'utf8');
    } catch {
      continue;
    }
    for (const m of log.matchAll(pattern)) pids.push(Number(m[1]));
  }
  return pids;
}

/** Pids of every hub that logged "listening" in a detached hub.log under SWB_HOME/run. */
export function loggedHubPids(swbHome: string): number[] {
  return loggedPids(swbHome, 'hub.log', /listening on .* \(pid (\d+)\)/g);
}

/** Pids of every workspace server that logged its start in server.log under SWB_HOME/run. */
export function loggedServerPids(swbHome: string): number[] {
  return loggedPids(swbHome, 'server.log', / server (\d+) \(swb /g);
}

/** How many of process `pid`'s descriptors are open on `path` (a terminal, say); 'self' is this process. */
export function descriptorsTo(pid: number | 'self', path: string): number {
  return readdirSync(`/proc/${pid}/fd`).filter((fd) => {
    try {
      return readlinkSync(`/proc/${pid}/fd/${fd}`) === path;
    } catch {
      return false; // closed meanwhile
    }
  }).length;
}
