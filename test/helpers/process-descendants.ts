// Finds every process a test's child started, however deep, so a harness can end them all by pid
// (never by name). Reads /proc (Linux): parent links for the tree, session ids for processes that
// were started in a session of their own (a pty row) and then orphaned.
import { liveProcessStats, readProcStat } from '../../src/rows/process-tree.js';

/**
 * Live descendants of `root` (not `root` itself), plus every live member of a session led by
 * `root` or one of them: a row's program and whatever it started, even after its parent died.
 */
export function processFamily(root: number): number[] {
  const stats = liveProcessStats();
  const children = new Map<number, number[]>();
  for (const s of stats) {
    const list = children.get(s.ppid);
    if (list) list.push(s.pid);
    else children.set(s.ppid, [s.pid]);
  }
  const found = new Set<number>();
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.pop()!;
    for (const child of children.get(pid) ?? []) {
      if (!found.has(child)) {
        found.add(child);
        queue.push(child);
      }
    }
  }
  const leaders = new Set([root, ...found]);
  for (const s of stats) if (leaders.has(s.session) && s.pid !== root) found.add(s.pid);
  found.delete(process.pid);
  return [...found];
}

/** The kernel start time of a live `pid`, to tell it from a later process given the same number. */
export function startTimeOf(pid: number): string | undefined {
  const s = readProcStat(pid);
  return s && s.state !== 'Z' && s.state !== 'X' ? s.startTime : undefined;
}

/** True while `pid` runs (a zombie counts as gone). */
export function isLive(pid: number): boolean {
  const s = readProcStat(pid);
  return s !== undefined && s.state !== 'Z' && s.state !== 'X';
}
