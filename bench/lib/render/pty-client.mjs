// The "operator's terminal" for a benchmark: runs a multiplexer (swb, or a tmux client) in a pty
// of a fixed size, reads everything it draws, and offers three ways to look at that output:
//   - markers: the time at which given strings first appear in the raw byte stream (cheap: a
//     few Buffer.indexOf per chunk, so watching them barely costs this process anything);
//   - an emulated screen (@xterm/headless) of what the terminal shows, which can be deferred
//     (chunks kept, parsed later) so the harness's own parsing does not compete with a
//     measured multiplexer for the CPU;
//   - printable text (escape sequences stripped), for catching a single echoed keystroke.
import pty from 'node-pty';
import xtermHeadless from '@xterm/headless';

const { Terminal } = xtermHeadless;
const TAIL_BYTES = 128;

export class PtyClient {
  /**
   * @param {{ file: string, args: string[], env: Record<string,string>, cwd: string, cols?: number, rows?: number }} o
   */
  constructor(o) {
    this.cols = o.cols ?? 200;
    this.rows = o.rows ?? 50;
    this.term = new Terminal({ cols: this.cols, rows: this.rows, scrollback: 0, allowProposedApi: true, logLevel: 'off' });
    this.startedAt = performance.now();
    this.bytes = 0;
    this.lastDataAt = this.startedAt;
    this.deferred = null;
    this.watchers = new Set();
    this.tail = Buffer.alloc(0);
    this.textWaiter = null;
    this.strip = null;
    this.exitInfo = null;
    this.pty = pty.spawn(o.file, o.args, {
      name: o.env.TERM ?? 'xterm-256color',
      cols: this.cols,
      rows: this.rows,
      cwd: o.cwd,
      env: o.env,
      encoding: null,
    });
    this.pid = this.pty.pid;
    this.exited = new Promise((resolve) => {
      this.pty.onExit((e) => {
        this.exitInfo = e;
        for (const w of this.watchers) w.fail(new Error(`${o.file} exited (code ${e.exitCode}, signal ${e.signal}) before showing ${[...w.pending].join(', ')}`));
        resolve(e);
      });
    });
    this.pty.onData((data) => this.onData(typeof data === 'string' ? Buffer.from(data, 'utf8') : data));
  }

  onData(buf) {
    const now = performance.now();
    this.bytes += buf.length;
    this.lastDataAt = now;
    if (this.deferred) this.deferred.push(buf);
    else this.term.write(buf);
    if (this.watchers.size > 0) {
      const hay = this.tail.length > 0 ? Buffer.concat([this.tail, buf]) : buf;
      for (const w of [...this.watchers]) w.scan(hay, now);
      this.tail = Buffer.from(hay.subarray(Math.max(0, hay.length - TAIL_BYTES)));
    }
    if (this.strip && this.textWaiter) {
      const text = this.strip.push(buf);
      const w = this.textWaiter;
      if (text.includes(w.text)) {
        this.textWaiter = null;
        w.resolve(now);
      }
    }
  }

  /**
   * Resolves with the time (performance.now()) at which every marker has appeared in the output
   * received from now on (markers shorter than 128 bytes, matched as UTF-8).
   */
  waitForMarkers(markers, timeoutMs) {
    this.tail = Buffer.alloc(0);
    return new Promise((resolve, reject) => {
      const pending = new Set(markers);
      const needles = new Map(markers.map((m) => [m, Buffer.from(m, 'utf8')]));
      const seen = new Map();
      const w = {
        pending,
        scan: (hay, now) => {
          for (const m of pending) {
            if (hay.indexOf(needles.get(m)) >= 0) {
              pending.delete(m);
              seen.set(m, now);
            }
          }
          if (pending.size === 0) done(null, now);
        },
        fail: (err) => done(err),
      };
      const timer = setTimeout(() => done(new Error(`timed out after ${timeoutMs} ms waiting for ${[...pending].join(', ')}`)), timeoutMs);
      const done = (err, now) => {
        clearTimeout(timer);
        this.watchers.delete(w);
        if (err) reject(err);
        else resolve({ at: now, seen });
      };
      if (this.exitInfo) return done(new Error('the client has exited'));
      this.watchers.add(w);
    });
  }

  /** Resolves with the time at which `text` (printable characters) next shows up in the output. */
  waitForText(text, timeoutMs) {
    if (!this.strip) this.strip = new EscapeStripper();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.textWaiter = null;
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${JSON.stringify(text)}`));
      }, timeoutMs);
      this.textWaiter = {
        text,
        resolve: (at) => {
          clearTimeout(timer);
          resolve(at);
        },
      };
    });
  }

  /** Resolves once no output has arrived for `quietMs` (or after `maxMs` regardless). */
  async settle(quietMs, maxMs) {
    const until = performance.now() + maxMs;
    for (;;) {
      const now = performance.now();
      if (now - this.lastDataAt >= quietMs || now >= until) return;
      await sleep(Math.min(quietMs - (now - this.lastDataAt), until - now) + 1);
    }
  }

  /** Keep chunks instead of emulating them until resumeEmulation(). */
  deferEmulation() {
    this.deferred ??= [];
  }

  /** Parses what was kept; resolves once the emulated screen is up to date. */
  async resumeEmulation() {
    const chunks = this.deferred ?? [];
    this.deferred = null;
    for (const c of chunks) this.term.write(c);
    await new Promise((resolve) => this.term.write('', resolve));
  }

  /** The emulated screen, one string per line. */
  async screenLines() {
    await new Promise((resolve) => this.term.write('', resolve));
    const b = this.term.buffer.active;
    const lines = [];
    for (let y = 0; y < this.rows; y++) lines.push(b.getLine(b.viewportY + y)?.translateToString(true) ?? '');
    return lines;
  }

  write(data) {
    this.pty.write(data);
  }

  /** Sends a signal and waits up to `graceMs` for the process to leave, then SIGKILLs it. */
  async stop(signal = 'SIGTERM', graceMs = 5000) {
    if (this.exitInfo) return this.exitInfo;
    try {
      process.kill(this.pid, signal);
    } catch {
      // already gone
    }
    const left = await Promise.race([this.exited, sleep(graceMs).then(() => null)]);
    if (left) return left;
    try {
      process.kill(this.pid, 'SIGKILL');
    } catch {
      // already gone
    }
    return Promise.race([this.exited, sleep(1000).then(() => null)]);
  }

  dispose() {
    this.term.dispose();
  }
}

/** Printable text of a terminal byte stream: drops CSI, OSC, DCS/APC/PM/SOS strings and ESC pairs. */
export class EscapeStripper {
  constructor() {
    this.state = 0; // 0 ground, 1 after ESC, 2 CSI, 3 string (OSC/DCS/...), 4 ESC inside a string, 5 one more byte (charset)
  }

  push(buf) {
    let out = '';
    for (let i = 0; i < buf.length; i++) {
      const b = buf[i];
      switch (this.state) {
        case 0:
          if (b === 0x1b) this.state = 1;
          else if (b === 0x9b) this.state = 2;
          else if (b >= 0x20 && b !== 0x7f) out += String.fromCharCode(b);
          break;
        case 1:
          if (b === 0x5b) this.state = 2;
          else if (b === 0x5d || b === 0x50 || b === 0x5f || b === 0x5e || b === 0x58) this.state = 3;
          else if (b >= 0x20 && b <= 0x2f) this.state = 5;
          else this.state = 0;
          break;
        case 2:
          if (b >= 0x40 && b <= 0x7e) this.state = 0;
          break;
        case 3:
          if (b === 0x07) this.state = 0;
          else if (b === 0x1b) this.state = 4;
          break;
        case 4:
          this.state = b === 0x5c ? 0 : 3;
          break;
        case 5:
          if (b < 0x20 || b > 0x2f) this.state = 0;
          break;
      }
    }
    return out;
  }
}

export function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}
