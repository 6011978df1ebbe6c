// When this process was started, as a wall-clock time (ms epoch), for `swb hook` (issue #37): the hub
// orders an agent's hooks by when the agent started them, and drops one that started before the
// newest it has heard (a late Stop of the previous turn must not end the next one). Node's own
// process.uptime() counts from Node's start-up, which on a loaded machine comes a second or more after
// the agent spawned the hook (a shell, the launcher script, then Node loading itself): a hook spawned
// earlier could then seem to start later than one spawned after it. On Linux the kernel's start time
// of this pid (/proc/self/stat, kept across the launcher's execs) is the spawn itself, to 10 ms.
import { readFileSync } from 'node:fs';

/** Clock ticks a second in /proc's times (USER_HZ: 100 on every Linux that Node runs on). */
const TICKS_PER_SECOND = 100;
/** A spawn this long before Node's start is not believed (a hook whose launch took a minute is hung anyway). */
const MAX_SPAWN_TO_NODE_MS = 60_000;

/**
 * The start (ms epoch) of the process whose `/proc/PID/stat` text is `stat` (field 22: ticks since
 * boot), given `/proc/uptime`'s text (seconds since boot, the same clock) read at `now`; undefined when
 * either does not parse.
 */
export function startFromProcStat(stat: string, uptime: string, now: number): number | undefined {
  // "pid (comm) state ppid ... starttime ...": comm may hold spaces and parens, so split after the
  // last ')'; starttime is field 22, index 19 of what follows.
  const close = stat.lastIndexOf(')');
  if (close < 0) return undefined;
  const ticks = Number(stat.slice(close + 2).split(' ')[19]);
  const uptimeSeconds = Number.parseFloat(uptime);
  if (!Number.isFinite(ticks) || !Number.isFinite(uptimeSeconds)) return undefined;
  return now - (uptimeSeconds - ticks / TICKS_PER_SECOND) * 1000;
}

/**
 * This process's start (ms epoch): the kernel's where /proc tells it, else Node's own. Never after
 * Node's own start (the ticks are coarser than that), and Node's own where the kernel's is implausibly
 * long before it.
 */
export function processStartedAt(): number {
  const now = Date.now();
  const nodeStart = now - process.uptime() * 1000;
  let spawned: number | undefined;
  try {
    spawned = startFromProcStat(readFileSync('/proc/self/stat', 'latin1'), readFileSync('/proc/uptime', 'latin1'), now);
  } catch {
    // not Linux, or no /proc
  }
  return spawned !== undefined && spawned > nodeStart - MAX_SPAWN_TO_NODE_MS ? Math.min(spawned, nodeStart) : nodeStart;
}
