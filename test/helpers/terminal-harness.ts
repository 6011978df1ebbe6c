// Drives a real program in a real pty and watches it through an emulated terminal of the same
// size, as an operator's terminal would show it: the e2e tests run `node dist/bin/swb.js ...`
// this way, and run bare programs (less, vim) the same way to compare screens.
//
// Every condition is evaluated after each chunk of output has been parsed (never mid-frame:
// while the program holds synchronized output open, the screen is not a frame yet), and at a
// deadline; nothing here sleeps blindly. The terminal answers queries (DA, CPR, ...) the way xterm does,
// through its onData, back into the pty. dispose() ends the program and everything it started.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Terminal, type IBufferCell } from '@xterm/headless';
import { spawn, type IPty } from 'node-pty';
import { installTailDrain } from '../../src/rows/pty-tail-drain.js';
import { swbBinPath } from '../../src/util/package-root.js';
import { deferCleanup } from './cleanup.js';
import { processFamily, startTimeOf } from './process-descendants.js';
import { swbEnv } from './run-swb.js';
import type { TempHome } from './temp-home.js';
import { waitUntil } from './wait-until.js';

/** The deadline of one wait unless a test says otherwise. */
export const DEFAULT_WAIT_MS = 10_000;

export type ColorMode = 'default' | 'palette' | 'rgb';

export interface CellInfo {
  char: string;
  fgMode: ColorMode;
  /** Palette index (0–255) or 0xRRGGBB; -1 for the default colour. */
  fg: number;
  bgMode: ColorMode;
  bg: number;
  bold: boolean;
  inverse: boolean;
}

export interface ProgramExit {
  exitCode: number;
  signal: number | undefined;
}

export interface TerminalHarnessOptions {
  /** The program; default is the built `swb` run by this node. */
  file?: string;
  args?: readonly string[];
  cols?: number;
  rows?: number;
  cwd?: string;
  /** The whole environment (default: this process's); CI is always removed, TERM defaulted. */
  env?: NodeJS.ProcessEnv;
  /** Keep every byte the program writes (see `output`); off by default, as floods would pile up. */
  recordOutput?: boolean;
  /**
   * False: the terminal does not answer DA1 (CSI c), as a terminal that knows no query, or one
   * behind a slow link, has not yet; the test types the answer itself when it wants one. Default true.
   */
  answersDeviceAttributes?: boolean;
}

/** xterm's answer to DA1 (CSI ? params c). */
const DA1_ANSWER = /^\x1b\[\?[0-9;]*c$/;

export interface WaitOptions {
  timeoutMs?: number;
}

interface Waiter {
  check: () => boolean;
  done: () => void;
}

export class TerminalHarness {
  readonly terminal: Terminal;
  readonly pid: number;
  private readonly pty: IPty;
  private readonly waiters = new Set<Waiter>();
  private exitValue: ProgramExit | undefined;
  private readonly exited: Promise<ProgramExit>;
  private pendingWrites = 0;
  private disposed = false;
  /** Every process family() has seen (pid → start time), to end orphans after the program exits. */
  private readonly seen = new Map<number, string>();
  private readonly recorded: string[] | undefined;
  private titleValue = '';
  private readonly titleLog: string[] = [];
  private cursorShown = true;

  constructor(opts: TerminalHarnessOptions) {
    const cols = opts.cols ?? 100;
    const rows = opts.rows ?? 30;
    const file = opts.file ?? process.execPath;
    const args = opts.file === undefined ? [swbBinPath(), ...(opts.args ?? [])] : [...(opts.args ?? [])];
    const env = { ...(opts.env ?? process.env) };
    delete env.CI; // with CI set, Ink draws only the last frame
    env.TERM ??= 'xterm-256color';
    this.terminal = new Terminal({ cols, rows, allowProposedApi: true, scrollback: 0 });
    this.pty = spawn(file, args, {
      name: 'xterm-256color',
      cols,
      rows,
      cwd: opts.cwd ?? process.cwd(),
      env: env as Record<string, string>,
    });
    this.pid = this.pty.pid;
    let resolveExit!: (e: ProgramExit) => void;
    this.exited = new Promise((resolve) => (resolveExit = resolve));
    this.recorded = opts.recordOutput ? [] : undefined;
    this.terminal.onTitleChange((title) => {
      this.titleValue = title;
      this.titleLog.push(title);
    });
    // DECTCEM (CSI ? 25 h / l) is not among xterm's public modes: follow it here, then let xterm handle it.
    const cursorMode = (shown: boolean) => (params: (number | number[])[]) => {
      if (params.includes(25)) this.cursorShown = shown;
      return false;
    };
    this.terminal.parser.registerCsiHandler({ prefix: '?', final: 'h' }, cursorMode(true));
    this.terminal.parser.registerCsiHandler({ prefix: '?', final: 'l' }, cursorMode(false));
    const take = (data: string | Uint8Array) => {
      this.recorded?.push(typeof data === 'string' ? data : Buffer.from(data).toString('utf8'));
      this.pendingWrites++;
      this.terminal.write(data, () => {
        this.pendingWrites--;
        this.evaluate();
      });
    };
    this.pty.onData(take);
    // node-pty 1.1.0 can drop what a quickly exiting program wrote last (src/rows/pty-tail-drain.ts):
    // read it as swb's rows do, and call the program exited only once that tail is on the screen.
    const tail = installTailDrain(this.pty, take);
    this.pty.onExit(({ exitCode, signal }) => {
      const exit = { exitCode, signal };
      const deadline = Date.now() + 1000;
      const settle = () => {
        if ((tail.installed && !tail.finished && Date.now() < deadline) || this.pendingWrites > 0) {
          setTimeout(settle, 5);
          return;
        }
        this.exitValue = exit;
        resolveExit(exit);
        this.evaluate();
      };
      settle();
    });
    // Replies to queries (DA, CPR, DECRQM) go back to the program, as a real terminal's would.
    const silentToDa1 = opts.answersDeviceAttributes === false;
    this.terminal.onData((reply) => {
      if (silentToDa1 && DA1_ANSWER.test(reply)) return;
      if (!this.disposed && this.exitValue === undefined) this.pty.write(reply);
    });
  }

  /** Whether the parsed screen is a whole frame (no output queued, no synchronized update open). */
  get settled(): boolean {
    return this.pendingWrites === 0 && !this.terminal.modes.synchronizedOutputMode;
  }

  get cols(): number {
    return this.terminal.cols;
  }

  get rows(): number {
    return this.terminal.rows;
  }

  get modes(): Terminal['modes'] {
    return this.terminal.modes;
  }

  /** The window title the program set (OSC 0 / 2), '' if never. */
  get title(): string {
    return this.titleValue;
  }

  /** Every title the program set, in order. */
  get titles(): readonly string[] {
    return this.titleLog;
  }

  /** Whether the cursor is shown (DECTCEM as the program last set it). */
  get cursorVisible(): boolean {
    return this.cursorShown;
  }

  /** Everything the program wrote so far, as decoded text (needs `recordOutput`). */
  get output(): string {
    if (!this.recorded) throw new Error('output is only kept with recordOutput: true');
    if (this.recorded.length > 1) this.recorded.splice(0, this.recorded.length, this.recorded.join(''));
    return this.recorded[0] ?? '';
  }

  get exit(): ProgramExit | undefined {
    return this.exitValue;
  }

  /** The visible screen, one string per line, trailing blanks trimmed (painted spaces too). */
  screenText(): string[] {
    const buf = this.terminal.buffer.active;
    const lines: string[] = [];
    for (let y = 0; y < this.terminal.rows; y++) lines.push((buf.getLine(buf.viewportY + y)?.translateToString(true) ?? '').trimEnd());
    return lines;
  }

  /** One cell of the visible screen (0-based column and line). */
  cellAt(x: number, y: number): CellInfo {
    const buf = this.terminal.buffer.active;
    const cell: IBufferCell | undefined = buf.getLine(buf.viewportY + y)?.getCell(x);
    if (!cell) throw new RangeError(`no cell at ${x},${y} on a ${this.cols}x${this.rows} screen`);
    const mode = (isDefault: boolean, isRgb: boolean): ColorMode => (isDefault ? 'default' : isRgb ? 'rgb' : 'palette');
    const fgMode = mode(cell.isFgDefault(), cell.isFgRGB());
    const bgMode = mode(cell.isBgDefault(), cell.isBgRGB());
    return {
      char: cell.getChars(),
      fgMode,
      fg: fgMode === 'default' ? -1 : cell.getFgColor(),
      bgMode,
      bg: bgMode === 'default' ? -1 : cell.getBgColor(),
      bold: cell.isBold() !== 0,
      inverse: cell.isInverse() !== 0,
    };
  }

  /** Where `text` first appears on screen (0-based), or null. */
  find(text: string): { x: number; y: number } | null {
    const lines = this.screenText();
    for (let y = 0; y < lines.length; y++) {
      const x = lines[y]!.indexOf(text);
      // Columns equal string indexes only for single-width text; the tests look for ASCII.
      if (x >= 0) return { x, y };
    }
    return null;
  }

  /**
   * Resolves with the condition's first truthy value, checked now, after every parsed chunk of
   * output and at exit; fails at the deadline with `what` and the screen.
   */
  waitFor<T>(condition: () => T, what: string, opts: WaitOptions = {}): Promise<NonNullable<T>> {
    const timeoutMs = opts.timeoutMs ?? DEFAULT_WAIT_MS;
    return new Promise((resolve, reject) => {
      let value: T | undefined;
      let lastError: unknown;
      const waiter: Waiter = {
        check: () => {
          if (!this.settled) return false;
          try {
            value = condition();
            lastError = undefined;
          } catch (err) {
            lastError = err;
            return false;
          }
          return Boolean(value);
        },
        done: () => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          resolve(value as NonNullable<T>);
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        // One last look at a settled screen before giving up.
        if (waiter.check()) return resolve(value as NonNullable<T>);
        const why = lastError instanceof Error ? `\nlast error: ${lastError.message}` : '';
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}${why}\n${this.describe()}`));
      }, timeoutMs);
      this.waiters.add(waiter);
      if (waiter.check()) waiter.done();
    });
  }

  /** Waits until the screen shows `pattern`; resolves with the screen lines. */
  waitForText(pattern: string | RegExp, opts: WaitOptions = {}): Promise<string[]> {
    const test = typeof pattern === 'string' ? (s: string) => s.includes(pattern) : (s: string) => pattern.test(s);
    return this.waitFor(() => {
      const lines = this.screenText();
      return test(lines.join('\n')) ? lines : null;
    }, `the screen to show ${String(pattern)}`, opts);
  }

  /** Waits until `pattern` is gone from the screen. */
  waitForNoText(pattern: string | RegExp, opts: WaitOptions = {}): Promise<string[]> {
    const test = typeof pattern === 'string' ? (s: string) => s.includes(pattern) : (s: string) => pattern.test(s);
    return this.waitFor(() => {
      const lines = this.screenText();
      return test(lines.join('\n')) ? null : lines;
    }, `the screen to stop showing ${String(pattern)}`, opts);
  }

  /**
   * Waits until the screen has not changed for `quietMs` (for programs that draw in several
   * writes without synchronized output). Checked on output and on a short re-check timer.
   */
  async waitForStableScreen(quietMs = 150, opts: WaitOptions = {}): Promise<string[]> {
    const deadline = Date.now() + (opts.timeoutMs ?? DEFAULT_WAIT_MS);
    let last = '';
    let since = Date.now();
    return waitUntil(() => {
      if (!this.settled) return null;
      const now = this.screenText().join('\n');
      if (now !== last) {
        last = now;
        since = Date.now();
        return null;
      }
      return Date.now() - since >= quietMs ? this.screenText() : null;
    }, { timeoutMs: Math.max(1, deadline - Date.now()), intervalMs: 20, what: `the screen to stay still for ${quietMs} ms` });
  }

  /** Types keys (a string is sent as UTF-8 bytes, exactly as a terminal would send them). */
  write(keys: string): void {
    if (this.exitValue !== undefined || this.disposed) throw new Error(`cannot type ${JSON.stringify(keys)}: the program has exited`);
    this.pty.write(keys);
  }

  /**
   * Stops reading the program's output, like a terminal behind a stalled SSH link: the pty's
   * buffer fills and the program's writes to it stop going through. resumeReading() reads again.
   */
  pauseReading(): void {
    this.pty.pause();
  }

  resumeReading(): void {
    this.pty.resume();
  }

  /**
   * Closes the terminal itself (the pty's master), as a dropped SSH connection or a closed
   * terminal window does: the program's side hangs up and its session gets SIGHUP.
   */
  hangUp(): void {
    (this.pty as unknown as { _socket: { destroy(): void } })._socket.destroy();
  }

  /** Resizes the pty (the program gets SIGWINCH) and the emulated terminal alike. */
  resize(cols: number, rows: number): void {
    this.terminal.resize(cols, rows);
    this.pty.resize(cols, rows);
    this.evaluate();
  }

  /** The program's exit, or a failure after the deadline. */
  async waitForExit(opts: WaitOptions = {}): Promise<ProgramExit> {
    const timeoutMs = opts.timeoutMs ?? DEFAULT_WAIT_MS;
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        this.exited,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for the program to exit\n${this.describe()}`)), timeoutMs);
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Pids of everything the program started that is still alive (rows and their children). Once
   * the program has exited, its orphans are no longer found this way: take this before then.
   */
  family(): number[] {
    const pids = processFamily(this.pid);
    for (const pid of pids) {
      const start = startTimeOf(pid);
      if (start !== undefined) this.seen.set(pid, start);
    }
    return pids;
  }

  /** A screen dump for failure messages. */
  describe(): string {
    const lines = this.screenText().map((l, i) => `${String(i).padStart(2)}|${l}`);
    const exit = this.exitValue ? ` (exited ${this.exitValue.exitCode}${this.exitValue.signal ? ` signal ${this.exitValue.signal}` : ''})` : '';
    return `screen ${this.cols}x${this.rows}${exit}:\n${lines.join('\n')}`;
  }

  /**
   * Kills the program and every process it started (found now, or seen by an earlier family()),
   * and waits until they are all gone. A pid is only signalled while it still names the process
   * that was seen (same kernel start time).
   */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    if (this.exitValue === undefined) this.seen.set(this.pid, startTimeOf(this.pid) ?? '');
    const killAll = (): boolean => {
      this.family();
      let alive = false;
      for (const [pid, start] of this.seen) {
        const now = startTimeOf(pid);
        if (now === undefined || (start !== '' && now !== start)) {
          this.seen.delete(pid);
          continue;
        }
        alive = true;
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          this.seen.delete(pid);
        }
      }
      return !alive;
    };
    killAll();
    if (this.exitValue === undefined) await this.exited;
    // A child may have forked while we collected pids: look again until nothing is left.
    await waitUntil(killAll, { timeoutMs: 5000, what: `the processes of ${this.pid} to end` });
    this.terminal.dispose();
  }

  private evaluate(): void {
    if (!this.settled) return;
    for (const w of [...this.waiters]) if (w.check()) w.done();
  }
}

export interface SwbTerminalOptions {
  home: TempHome;
  args: readonly string[];
  cols?: number;
  rows?: number;
  /** Extra environment entries. */
  env?: Record<string, string>;
  /** Keep every byte swb writes (the harness's `output`). */
  recordOutput?: boolean;
  /** Where swb runs (default: the home's workspace). */
  cwd?: string;
  /** False: the terminal leaves DA1 unanswered (TerminalHarnessOptions). */
  answersDeviceAttributes?: boolean;
}

/**
 * Starts `swb ARGS...` in a pty of the given size (default 100x30), in the home's workspace with
 * its SWB_HOME; disposed (with every process it started) after the test.
 */
export function startSwb(opts: SwbTerminalOptions): TerminalHarness {
  if (!existsSync(swbBinPath())) throw new Error(`${swbBinPath()} is missing: run \`npm run build\` before the e2e tests`);
  const harness = new TerminalHarness({
    args: opts.args,
    cols: opts.cols ?? 100,
    rows: opts.rows ?? 30,
    cwd: opts.cwd ?? opts.home.workspace,
    // The operator's own config and themes stay out of it: an empty config dir under the home.
    env: swbEnv(opts.home, { TERM: 'xterm-256color', SHELL: '/bin/sh', XDG_CONFIG_HOME: join(opts.home.home, 'config'), ...opts.env }),
    ...(opts.recordOutput ? { recordOutput: true } : {}),
    ...(opts.answersDeviceAttributes === false ? { answersDeviceAttributes: false } : {}),
  });
  deferCleanup(`swb terminal ${harness.pid}`, () => harness.dispose());
  return harness;
}

/** Starts a bare program in a pty (no swb), disposed after the test. */
export function startProgram(file: string, args: readonly string[], opts: { cols: number; rows: number; cwd?: string; env?: NodeJS.ProcessEnv }): TerminalHarness {
  const harness = new TerminalHarness({ file, args, cols: opts.cols, rows: opts.rows, ...(opts.cwd ? { cwd: opts.cwd } : {}), ...(opts.env ? { env: opts.env } : {}) });
  deferCleanup(`program ${file} ${harness.pid}`, () => harness.dispose());
  return harness;
}
