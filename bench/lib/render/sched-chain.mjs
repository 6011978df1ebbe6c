// bench:render --sched: where a keystroke's echo spends its time under load, hop by hop, from the
// kernel's scheduler events (`perf sched record`), for every system in the same run.
//
// A keystroke's round trip crosses the multiplexer's server twice and the row's program once, and
// on Linux every pty write is delivered by a kernel worker (flush_to_ldisc on a kworker), which
// wakes the reader. So each keystroke leaves this chain of wakeups in the trace:
//   kworker wakes server (the key arrives) → server wakes kworker (its write into the row's pty)
//   → kworker wakes the program (cat) → ... → kworker wakes server (the echo arrives)
//   → server wakes kworker (its write onto the terminal) → kworker wakes the bench (it reads the echo)
// Anchored on each wakeup of the program by a kworker, the chain is walked back and forth to the
// nearest such events. Each hop's median then says what a system pays where: the scheduler's delay
// before the server runs, the server's time from getting the CPU to its write (epoll, the read, its
// code), how long it runs on after each write (a kernel worker delivers that write, and on a busy
// machine it may wait for the CPU the server holds), the kernel's delivery to the program, back,
// and on to the bench. It needs perf and the sched tracepoints (root, or perf_event_paranoid <= -1);
// without them it says so and the bench goes on.
import { spawn, execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { percentile } from './echo.mjs';

/** perf sched record -a into `file` until the returned stop() (which resolves once perf wrote it: null, or what failed), or { problem }. */
export function startSchedRecord(file) {
  try {
    execFileSync('perf', ['--version'], { stdio: 'ignore' });
  } catch {
    return { problem: 'perf is not installed' };
  }
  const perf = spawn('perf', ['sched', 'record', '-a', '-o', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  perf.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise((resolve) => perf.on('exit', (code, signal) => resolve({ code, signal })));
  let stopped = null;
  return {
    /** Ends the recording (again: the same answer). */
    stop() {
      stopped ??= (async () => {
        perf.kill('SIGINT');
        const { code, signal } = await exited;
        // perf ends on SIGINT by that signal once it has written the file; a failure ends it earlier.
        return code === 0 || signal === 'SIGINT' ? null : `perf sched record failed (${code ?? signal}): ${stderr.trim().split('\n').pop()}`;
      })();
      return stopped;
    },
  };
}

/** The pid of `parent`'s child running `comm` (the row's program), or null. */
export function childNamed(parent, comm) {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === parent && name === comm) return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  return null;
}

/** The tids of `pid`'s threads now (its main thread's is the pid itself). */
export function threadsOf(pid) {
  try {
    return new Set(readdirSync(`/proc/${pid}/task`).map(Number));
  } catch {
    return new Set([pid]);
  }
}

// `perf sched timehist -w` lines: a wakeup ("... waker[tid/pid] awakened: wakee[tid/pid]") or a
// switch-out ("... task[tid/pid] wait sch-delay run", times in ms).
const WAKE = /^\s*([\d.]+)\s+\[\d+\]\s+(.*?)\[(\d+)(?:\/\d+)?\]\s+awakened: (.*?)\[(\d+)(?:\/\d+)?\]/;
const SWITCH = /^\s*([\d.]+)\s+\[\d+\]\s+(.*?)\[(\d+)(?:\/\d+)?\]\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)/;

/**
 * Parses the trace into wakeups [{ t, waker, wakerComm, wakee, wakeeComm }] and, for the tasks in
 * `tids` (the servers), their slices on a CPU [{ end, run }] (µs).
 */
export function readSchedTrace(file, tids) {
  const text = execFileSync('perf', ['sched', 'timehist', '-w', '-i', file], { encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'ignore'] });
  const wakes = [];
  const slices = new Map();
  for (const line of text.split('\n')) {
    let m = WAKE.exec(line);
    if (m) {
      wakes.push({ t: Number(m[1]) * 1e6, wakerComm: m[2], waker: Number(m[3]), wakeeComm: m[4], wakee: Number(m[5]) });
      continue;
    }
    m = SWITCH.exec(line);
    if (m && tids.has(Number(m[3]))) {
      const tid = Number(m[3]);
      if (!slices.has(tid)) slices.set(tid, []);
      slices.get(tid).push({ end: Number(m[1]) * 1e6, run: Number(m[6]) * 1000 });
    }
  }
  return { wakes, slices };
}

const kworker = (comm) => comm.startsWith('kworker');

/**
 * Per-hop medians (µs) of every keystroke chain through `server` (its main thread's tid, which is
 * its pid, or a Set of its threads' tids: swb's keystrokes reach the pty from a thread of their own,
 * their echo from the main thread) and `program` (the attached row's program), up to the wakeup of
 * `reader` (the task that reads the operator's terminal: the bench) by the kworker delivering the
 * echo. null when no chain was found.
 */
export function echoChain({ wakes, slices }, server, program, reader) {
  const threads = server instanceof Set ? server : new Set([server]);
  /** The slice of thread `tid` that runs at or after `t` (the first to end after it). */
  const sliceAfter = (tid, t) => {
    const mine = slices.get(tid) ?? [];
    let lo = 0;
    let hi = mine.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (mine[mid].end <= t) lo = mid + 1;
      else hi = mid;
    }
    return mine[lo];
  };
  const serverWakes = (e) => threads.has(e.waker) && kworker(e.wakeeComm);
  const wakesServer = (e) => threads.has(e.wakee) && kworker(e.wakerComm);
  const hops = { keyDelay: [], keyToPty: [], keyRunsOn: [], ptyToProgram: [], programToServer: [], echoDelay: [], echoToTerminal: [], runsOn: [], toReader: [], total: [] };
  for (let i = 0; i < wakes.length; i++) {
    const e = wakes[i];
    if (e.wakee !== program || !kworker(e.wakerComm)) continue;
    let ptyWrite = i - 1;
    while (ptyWrite >= 0 && !serverWakes(wakes[ptyWrite])) ptyWrite--;
    if (ptyWrite < 0) continue;
    // The key came in to the thread that wrote it to the pty.
    const keyThread = wakes[ptyWrite].waker;
    let keyIn = ptyWrite - 1;
    while (keyIn >= 0 && !(wakesServer(wakes[keyIn]) && wakes[keyIn].wakee === keyThread)) keyIn--;
    let echoIn = i + 1;
    while (echoIn < wakes.length && !wakesServer(wakes[echoIn])) echoIn++;
    if (echoIn >= wakes.length) continue;
    // The echo goes out from the thread it came in to.
    const echoThread = wakes[echoIn].wakee;
    let echoOut = echoIn + 1;
    while (echoOut < wakes.length && !(serverWakes(wakes[echoOut]) && wakes[echoOut].waker === echoThread)) echoOut++;
    let delivered = echoOut + 1;
    while (delivered < wakes.length && !(wakes[delivered].wakee === reader && kworker(wakes[delivered].wakerComm))) delivered++;
    if (keyIn < 0 || delivered >= wakes.length) continue;
    const [tKey, tPty, tEcho, tOut, tRead] = [wakes[keyIn].t, wakes[ptyWrite].t, wakes[echoIn].t, wakes[echoOut].t, wakes[delivered].t];
    // Another keystroke's or another row's events in between: not one chain (keys come >= 1 ms apart).
    if (tRead - tKey > 20_000) continue;
    const s1 = sliceAfter(keyThread, tKey);
    const s2 = sliceAfter(echoThread, tEcho);
    // Every slice the writes ran in must be in the trace (the last may still run when it ends).
    if (!s1 || !s2 || !sliceAfter(keyThread, tPty) || !sliceAfter(echoThread, tOut)) continue;
    // A server already running when woken starts at once (no delay; its CPU time counts from the wakeup).
    const run1 = Math.max(tKey, s1.end - s1.run);
    const run2 = Math.max(tEcho, s2.end - s2.run);
    hops.keyDelay.push(run1 - tKey);
    hops.keyToPty.push(tPty - run1);
    hops.keyRunsOn.push(sliceAfter(keyThread, tPty).end - tPty);
    hops.ptyToProgram.push(e.t - tPty);
    hops.programToServer.push(tEcho - e.t);
    hops.echoDelay.push(run2 - tEcho);
    hops.echoToTerminal.push(tOut - run2);
    hops.runsOn.push(sliceAfter(echoThread, tOut).end - tOut);
    hops.toReader.push(tRead - tOut);
    hops.total.push(tRead - tKey);
  }
  if (hops.total.length === 0) return null;
  const median = (a) => percentile(a.sort((x, y) => x - y), 0.5);
  return { n: hops.total.length, ...Object.fromEntries(Object.entries(hops).map(([k, v]) => [k, median(v)])) };
}

/** One line per system: the hops' medians, in the order a keystroke meets them. */
export function formatChain(system, c) {
  if (!c) return `  sched  ${system.padEnd(5)} no keystroke chain found in the trace`;
  const f = (x) => `${Math.round(x)}`.padStart(4);
  return (
    `  sched  ${system.padEnd(5)} n=${c.n}  key: delay ${f(c.keyDelay)} + to pty write ${f(c.keyToPty)} (runs on ${f(c.keyRunsOn)})` +
    ` | to program ${f(c.ptyToProgram)} | program to echo in ${f(c.programToServer)}` +
    ` | echo: delay ${f(c.echoDelay)} + to terminal write ${f(c.echoToTerminal)} (runs on ${f(c.runsOn)}) | to the bench ${f(c.toReader)} | key in to echo read ${f(c.total)} us (medians)`
  );
}
