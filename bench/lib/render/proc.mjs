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

/**
 * Waits until the processes are at rest: at least `minSeconds`, and then `quietSeconds`
 * one-second slices in a row with under `maxMsPerSecond` of CPU between them and no byte written
 * to `client` (a PtyClient). A node process does one-off work some seconds after a burst of
 * output stops (V8's memory reducer: here about 8 s in the thin client and 20-45 s in the server
 * that parsed the burst), and swb's headers turn "now" into "<1m" 10 s after a row's last output;
 * an idle window that starts before then measures the end of the burst, not being idle. The
 * reducer waits for the process to be idle, so a quiet stretch does not rule it out: the server's
 * reducer GCs (two, 100-200 ms of CPU with their marking threads; seen with
 * SWB_SERVER_NODE_ARGS=--trace-gc) came 30-41 s after it started, in every second idle window
 * that began at 30 s. Hence 45 s: before the "1m" label turn (60 s after the rows printed). Returns
 * how long it took and the CPU spent meanwhile (printed beside the idle figure, so the one-off
 * cost is seen too); gives up after `maxSeconds` (settled: false) and lets the caller measure.
 */
/** A meter reading's CPU seconds: the ns-resolution figure when it is there, else the ticks. */
export function bestCpuS(m) {
  return Number.isFinite(m.preciseS) && m.preciseS >= 0 ? m.preciseS : m.cpuS;
}

export async function settleIdle(pids, client, { minSeconds = 45, quietSeconds = 3, maxMsPerSecond = 2, maxSeconds = 60 } = {}) {
  const meter = cpuMeter(pids);
  let quiet = 0;
  let seconds = 0;
  while ((quiet < quietSeconds || seconds < minSeconds) && seconds < maxSeconds) {
    const slice = cpuMeter(pids);
    const bytes = client.bytes;
    await new Promise((r) => setTimeout(r, 1000));
    seconds++;
    quiet = bestCpuS(slice()) * 1000 < maxMsPerSecond && client.bytes === bytes ? quiet + 1 : 0;
  }
  return { settled: quiet >= quietSeconds, seconds, cpuS: bestCpuS(meter()) };
}

export function loadAverage() {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  } catch {
    return '?';
  }
}
