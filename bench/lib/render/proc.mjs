// Reads a process's CPU time and memory from /proc (Linux). Only the named process itself is
// counted (all its threads, living or exited), never its children: a multiplexer's CPU is what
// it spends itself, not what the programs in its rows or panes spend.
import { readFileSync, readdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

let ticksPerSecond;

/** sysconf(_SC_CLK_TCK), usually 100. */
export function clockTicks() {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** utime + stime of the process (its threads included, exited ones too), in seconds; NaN if gone. */
export function cpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may contain spaces and parentheses: fields start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] is field 3 (state); utime is field 14, stime field 15.
    return (Number(fields[11]) + Number(fields[12])) / clockTicks();
  } catch {
    return Number.NaN;
  }
}

/**
 * Nanosecond-resolution CPU time of the process's live threads (sum of
 * /proc/PID/task/TID/schedstat run times), in seconds; NaN where schedstat is unavailable.
 * Exited threads are missing, so use it for short quiet spans (idle), cpuSeconds otherwise.
 */
export function preciseCpuSeconds(pid) {
  try {
    let ns = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        // the thread just exited
      }
    }
    return ns / 1e9;
  } catch {
    return Number.NaN;
  }
}

/** VmHWM (peak RSS) and VmRSS in bytes; NaN if the process is gone. */
export function memory(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (name) => {
      const m = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status);
      return m ? Number(m[1]) * 1024 : Number.NaN;
    };
    return { hwm: kb('VmHWM'), rss: kb('VmRSS') };
  } catch {
    return { hwm: Number.NaN, rss: Number.NaN };
  }
}

/** Starts counting CPU for some processes; the returned function gives the seconds each used since. */
export function cpuMeter(pids) {
  const t0 = performance.now();
  const start = pids.map((pid) => ({ pid, cpu: cpuSeconds(pid), precise: preciseCpuSeconds(pid) }));
  return () => {
    const wallS = (performance.now() - t0) / 1000;
    const per = start.map(({ pid, cpu, precise }) => ({
      pid,
      cpuS: cpuSeconds(pid) - cpu,
      preciseS: preciseCpuSeconds(pid) - precise,
    }));
    const sum = (k) => per.reduce((a, p) => a + p[k], 0);
    return { wallS, per, cpuS: sum('cpuS'), preciseS: sum('preciseS') };
  };
}

export function loadAverage() {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  } catch {
    return '?';
  }
}
