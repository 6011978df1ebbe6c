// The first minutes of an idle dashboard, minute by minute (bench:render's idle-start workload).
// The `idle` workload waits for the processes to be at rest before it measures, so it never sees
// what follows a start: the V8 memory reducer's collections 10-60 s in, the header ages turning
// "now" -> "<1m" -> "1m" -> "2m". An operator's machine pays those; this meter counts them: CPU
// (schedstat, ns resolution, every live thread), wakeups (schedstat's count of times a thread
// was put on a CPU), and bytes written to the client, for each minute from the first full frame.
import { readFileSync, readdirSync } from 'node:fs';

/** Run time (ns) and times scheduled of every live thread of `pid`; NaN once it is gone. */
export function threadSched(pid) {
  let ns = 0;
  let runs = 0;
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        const [run, , slices] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ');
        ns += Number(run);
        runs += Number(slices);
      } catch {
        // the thread just exited
      }
    }
  } catch {
    return { ns: Number.NaN, runs: Number.NaN };
  }
  return { ns, runs };
}

/**
 * Starts counting for `pids` and `client` (a PtyClient) now; `mark()` closes a minute (or the
 * window's last part) and returns it; `total()` sums the marks so far.
 */
export function idleWindowMeter(pids, client) {
  const t0 = performance.now();
  const read = () => ({ at: performance.now(), sched: pids.map(threadSched), bytes: client.bytes });
  let last = read();
  const parts = [];
  return {
    startedAt: t0,
    mark() {
      const now = read();
      const part = {
        seconds: (now.at - last.at) / 1000,
        cpuS: now.sched.reduce((a, x, i) => a + (x.ns - last.sched[i].ns), 0) / 1e9,
        perPidCpuS: now.sched.map((x, i) => (x.ns - last.sched[i].ns) / 1e9),
        wakeups: now.sched.reduce((a, x, i) => a + (x.runs - last.sched[i].runs), 0),
        bytes: now.bytes - last.bytes,
      };
      parts.push(part);
      last = now;
      return part;
    },
    total() {
      const sum = (k) => parts.reduce((a, p) => a + p[k], 0);
      const seconds = sum('seconds');
      return {
        seconds,
        cpuS: sum('cpuS'),
        pct: (100 * sum('cpuS')) / seconds,
        wakeupsPerS: sum('wakeups') / seconds,
        bytes: sum('bytes'),
        bytesPerMin: (60 * sum('bytes')) / seconds,
        parts,
      };
    },
  };
}
