// What runs in the rows/panes: shell command lines identical for swb and tmux, a start barrier
// (one FIFO per row) so program start-up stays out of the flood timing, and the coloured text.
import { closeSync, constants, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { sleep } from './pty-client.mjs';

/** Single-quotes a word for sh. */
export function shq(s) {
  return `'${String(s).replace(/'/g, `'\\''`)}'`;
}

/**
 * Lines like build tools and agents print: 16/256/truecolour SGR, bold, varied lengths, each
 * ending in a plain ` L<n>` so the last line can be recognised on screen. Returns the file's
 * size and the last line's plain tail.
 */
export function writeColouredText(path, bytes) {
  const parts = [];
  let size = 0;
  let i = 0;
  for (; size < bytes; i++) {
    const line =
      `\x1b[3${i % 8}m[${String(i).padStart(7, '0')}]\x1b[0m \x1b[1;38;5;${(i * 7) % 256}mcompiling\x1b[0m ` +
      `src/module-${i % 97}/file-${i % 13}.ts \x1b[38;2;${i % 256};${(i * 3) % 256};120m${'ok '.repeat(i % 12)}\x1b[0m L${i}\n`;
    parts.push(line);
    size += Buffer.byteLength(line);
  }
  writeFileSync(path, parts.join(''));
  return { bytes: size, lastTail: `L${i - 1}` };
}

/**
 * Marker text is assembled by printf at run time, so the literal marker never appears in a
 * command line that a multiplexer might display.
 */
export function printMarker(prefix, id) {
  return `printf '%s-%s\\n' ${prefix} ${id}`;
}

/**
 * A row that prints WAIT-<id> (so the harness can see the multiplexer has drawn it), waits at
 * the barrier, does `work`, writes the time it ended (ns since the epoch) to `endFile`, prints
 * DONE-<id> and stays.
 */
export function floodCommand(fifo, work, id, endFile) {
  return `${printMarker('WAIT', id)}; read _ < ${shq(fifo)}; ${work}; date +%s%N > ${shq(endFile)}; ${printMarker('DONE', id)}; exec sleep 1000000`;
}

/** When the last of `endFiles` (floodCommand) says its work ended, in Date.now() milliseconds; NaN if one is missing. */
export function lastEnd(endFiles) {
  let last = Number.NaN;
  for (const f of endFiles) {
    let ms;
    try {
      ms = Number(readFileSync(f, 'utf8').trim()) / 1e6;
    } catch {
      return Number.NaN;
    }
    if (!Number.isFinite(ms)) return Number.NaN;
    last = Number.isNaN(last) ? ms : Math.max(last, ms);
  }
  return last;
}

/** A row that prints `preamble` (if any), READY-<id>, then waits on input: cat with the pty raw. */
export function idleCommand(preambleFile, id) {
  const pre = preambleFile ? `cat ${shq(preambleFile)}; ` : '';
  return `${pre}${printMarker('READY', id)}; stty raw -echo; exec cat`;
}

/** A row that prints HELLO-<id> and sleeps. */
export function helloCommand(id) {
  return `${printMarker('HELLO', id)}; exec sleep 1000000`;
}

/** One FIFO per row; release() lets every waiting row go at (nearly) the same instant. */
export class Barrier {
  constructor(dir, count, tag) {
    this.paths = Array.from({ length: count }, (_, i) => join(dir, `barrier-${tag}-${i + 1}`));
    for (const p of this.paths) execFileSync('mkfifo', [p]);
    this.fds = new Map();
  }

  /** Resolves once every row is blocked opening its FIFO (opening the write end then succeeds). */
  async ready(timeoutMs) {
    const until = performance.now() + timeoutMs;
    while (this.fds.size < this.paths.length) {
      for (const p of this.paths) {
        if (this.fds.has(p)) continue;
        try {
          this.fds.set(p, openSync(p, constants.O_WRONLY | constants.O_NONBLOCK));
        } catch (err) {
          if (err.code !== 'ENXIO') throw err;
        }
      }
      if (this.fds.size === this.paths.length) break;
      if (performance.now() > until) throw new Error(`only ${this.fds.size}/${this.paths.length} rows reached the start barrier`);
      await sleep(20);
    }
  }

  release() {
    for (const fd of this.fds.values()) writeSync(fd, '\n');
    this.close();
  }

  close() {
    for (const fd of this.fds.values()) {
      try {
        closeSync(fd);
      } catch {
        // closed
      }
    }
    this.fds.clear();
    // Every row opened its FIFO before the release (ready()), so the names can go: the next run of
    // the same workload makes them again.
    for (const p of this.paths) rmSync(p, { force: true });
  }
}

/**
 * A steady streamer for the echo-under-load workload, written to `dir`: `node <script> ID RATE
 * STATUS [paused]` prints RATE lines a second ("line <n> <id> <ns clock>", like `echo "line $i $(date
 * +%s%N)"`), paced by the clock (every 10 ms it prints the lines due so far, so a multiplexer
 * that blocks the pty for a while gets them in one burst), and writes "<lines> <ms since epoch>
 * <pid>" to STATUS every 250 ms so the harness can check the rate it really got. SIGUSR1 stops
 * it and SIGUSR2 starts it again (`paused`: it starts stopped) with its clock reset, so a stopped
 * streamer costs the machine nothing and never bursts the lines it skipped; the harness takes
 * turns between multiplexers that way. One node process per row instead of a shell loop: forking
 * `date` 400 times a second per row would load the machine more than the multiplexers under test.
 * The shape: by default the due lines go out every 10 ms (4 lines at 400/s); if STATUS.period
 * holds a number of milliseconds when SIGUSR2 starts it, they go out that often instead (100: 40
 * lines every 100 ms, the bursts an agent's Ink UI writes), at the same rate.
 */
export function writeStreamScript(dir) {
  const path = join(dir, 'stream-lines.mjs');
  writeFileSync(
    path,
    [
      "import { readFileSync, renameSync, writeFileSync } from 'node:fs';",
      'const [id, rateText, statusFile, startPaused] = process.argv.slice(2);',
      'const rate = Number(rateText);',
      'let n = 0;',
      'let base = 0;',
      'let t0 = 0;',
      'let timers = null;',
      'const status = () => { writeFileSync(`${statusFile}.new`, `${n} ${Date.now()} ${process.pid}\\n`); renameSync(`${statusFile}.new`, statusFile); };',
      'const tick = () => {',
      '  const due = base + Math.floor(((performance.now() - t0) * rate) / 1000);',
      "  let out = '';",
      '  for (; n < due; n++) out += `line ${n} ${id} ${process.hrtime.bigint()}\\n`;',
      '  if (out) process.stdout.write(out);',
      '};',
      'const go = () => {',
      '  if (timers) return;',
      '  base = n;',
      '  t0 = performance.now();',
      "  let period = 10;",
      "  try { period = Number(readFileSync(`${statusFile}.period`, 'utf8').trim()) || 10; } catch {}",
      // Written aside and renamed: a reader never sees the file empty halfway through a write.
      '  timers = [setInterval(tick, period), setInterval(status, 250)];',
      '};',
      'const stop = () => {',
      '  if (!timers) return;',
      '  for (const t of timers) clearInterval(t);',
      '  timers = null;',
      '  status();',
      '};',
      "process.on('SIGUSR1', stop);",
      "process.on('SIGUSR2', go);",
      'status();',
      // Signal listeners alone do not keep node running: a stopped streamer waits on this.
      'setInterval(() => undefined, 1 << 30);',
      "if (startPaused !== 'paused') go();",
      '',
    ].join('\n'),
  );
  return path;
}

/** A row that prints WAIT-<id>, waits at the barrier, then streams `rate` lines a second until killed. */
export function streamCommand(fifo, script, id, rate, statusFile, { paused = false } = {}) {
  return `${printMarker('WAIT', id)}; read _ < ${shq(fifo)}; exec ${shq(process.execPath)} ${shq(script)} ${id} ${rate} ${shq(statusFile)}${paused ? ' paused' : ''}`;
}

/** The streamer's last status: { lines, atMs, pid }, or null before its first write. */
export function readStreamStatus(statusFile) {
  try {
    const [lines, atMs, pid] = readFileSync(statusFile, 'utf8').trim().split(' ').map(Number);
    return Number.isFinite(lines) && Number.isFinite(atMs) ? { lines, atMs, pid } : null;
  } catch {
    return null;
  }
}
