// One program in its own pty (node-pty), with the two node-pty 1.1.0 defects handled: the last
// output of a fast-exiting program is read before the master closes (pty-tail-drain), and the
// program starts holding only its own pty: on Linux started with posix_spawn rather than node-pty's
// fork (pty-spawn-strategy), which keeps only 0-2; elsewhere, or where it declines, through the
// descriptor-closing wrapper (isolated-command). Output is raw bytes; exit is only
// reported after every byte the program wrote has been delivered.
import { accessSync, constants as fsConstants } from 'node:fs';
import { constants as osConstants } from 'node:os';
import { isAbsolute } from 'node:path';
import { spawn, type IPty } from 'node-pty';
import { systemClock } from '../util/clock.js';
import { Emitter, type Event } from '../util/event.js';
import { DisposableStore, type Disposable } from '../util/lifecycle.js';
import { isolatedCommand } from './isolated-command.js';
import { needsFdWrapper } from './pty-spawn-strategy.js';
import { identifyProcessTree, processTreeAlive, signalProcessTree, type ProcessTree } from './process-tree.js';
import { installTailDrain } from './pty-tail-drain.js';
import { ptyWriter, type PtyWriter } from './pty-direct-write.js';
import { pausePtyReads, resumePtyReads, stopPtyReads, type OutputLoan } from './pty-output-loan.js';

/**
 * A simple command line (one program and its words, no operators) is exec'd by the shell, so the
 * row's program is that program: bash does this itself for `-c`, dash does not, and a dash left
 * waiting as the parent would make the program a foreground job of the row (never woken).
 */
export function execWhenSimple(line: string): string {
  const simple = /^\s*[A-Za-z0-9_@%+=:,./'" -]+\s*$/.test(line) && !/^\s*(exec|[A-Za-z_][A-Za-z0-9_]*=)/.test(line);
  // A builtin is no program to exec (`exec cd /x` fails where `cd /x` works).
  const first = line.trim().split(/\s+/)[0] ?? '';
  return simple && !SHELL_BUILTINS.has(first) ? `exec ${line.trim()}` : line;
}

const SHELL_BUILTINS: ReadonlySet<string> = new Set(
  ['cd', 'source', '.', 'export', 'set', 'unset', 'read', 'ulimit', 'umask', 'alias', 'eval', 'trap', 'wait', 'exit', 'return', 'shift', 'local', 'declare', 'typeset', 'readonly', 'jobs', 'fg', 'bg', 'history'],
);

/** A program with arguments, or a shell command line run with `$SHELL -c` (fallback /bin/sh). */
export type RowCommand = { file: string; args?: readonly string[] } | { shell: string };

export interface RowExit {
  exitCode: number;
  /** The signal that ended the program, if any. */
  signal: NodeJS.Signals | null;
}

export interface RowProcessOptions {
  command: RowCommand;
  /** The complete environment (see buildRowEnv). */
  env: Record<string, string>;
  cwd?: string;
  cols: number;
  rows: number;
  /** After dispose, how long the row's processes get to leave after SIGHUP before SIGKILL. */
  killGraceMs?: number;
  /**
   * Only descriptors 0-2 in the program (default true): through the posix_spawn fork where it is in
   * place, else through the descriptor-closing wrapper. false: node-pty's fork without the wrapper
   * (where the posix_spawn fork is in place, it still closes them, and wraps what it declines).
   */
  isolateFds?: boolean;
}

const DEFAULT_KILL_GRACE_MS = 2000;

const SIGNAL_NAMES = new Map<number, NodeJS.Signals>(
  Object.entries(osConstants.signals).map(([name, num]) => [num, name as NodeJS.Signals]),
);

function isExecutable(path: string): boolean {
  try {
    accessSync(path, fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** `$SHELL` from the row's environment when it is an absolute executable path, else /bin/sh. */
export function shellFor(env: Readonly<Record<string, string>>): string {
  const shell = env.SHELL;
  return shell !== undefined && isAbsolute(shell) && isExecutable(shell) ? shell : '/bin/sh';
}

function resolveCommand(command: RowCommand, env: Readonly<Record<string, string>>): { file: string; args: string[] } {
  if ('shell' in command) return { file: shellFor(env), args: ['-c', execWhenSimple(command.shell)] };
  return { file: command.file, args: [...(command.args ?? [])] };
}

/** Closes the master now (node-pty's UnixTerminal.destroy, missing from its typings). */
function closePty(pty: IPty): void {
  const destroy = (pty as unknown as { destroy?: unknown }).destroy;
  try {
    if (typeof destroy === 'function') destroy.call(pty);
    else pty.kill('SIGHUP');
  } catch {
    // already closed
  }
}

export class RowProcess implements Disposable {
  readonly pid: number;
  /** Whether the program's last bytes are guaranteed (false only if node-pty's internals changed). */
  readonly tailDrainInstalled: boolean;

  private readonly store = new DisposableStore();
  private readonly pty: IPty;
  private readonly writer: PtyWriter;
  private readonly tree: ProcessTree;
  private readonly dataEmitter = this.store.add(new Emitter<Buffer>());
  private readonly exitEmitter = this.store.add(new Emitter<RowExit>());
  private readonly killGraceMs: number;
  private exitValue: RowExit | undefined;
  private pausedFlag = false;
  private readonly deliver: (chunk: Buffer) => void;
  /** Set while the output is lent (lendOutput): takes it back, synchronously. */
  private loanRecall: (() => void) | undefined;
  private colsValue: number;
  private rowsValue: number;

  /** Raw output, in order. Every byte arrives before onExit fires. */
  readonly onData: Event<Buffer> = this.dataEmitter.event;
  readonly onExit: Event<RowExit> = this.exitEmitter.event;

  constructor(options: RowProcessOptions) {
    this.killGraceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
    this.colsValue = options.cols;
    this.rowsValue = options.rows;
    const direct = resolveCommand(options.command, options.env);
    // posix_spawn in node-pty's fork's place (Linux), from the first row on: it starts the program
    // with only 0-2 open, so the wrapper is for node-pty's own fork alone.
    const exec = options.isolateFds === false || !needsFdWrapper() ? direct : isolatedCommand(direct.file, direct.args);
    this.pty = spawn(exec.file, exec.args, {
      name: options.env.TERM ?? 'xterm-256color',
      cols: options.cols,
      rows: options.rows,
      cwd: options.cwd ?? process.cwd(),
      env: options.env,
      encoding: null,
    });
    this.pid = this.pty.pid;
    this.writer = ptyWriter(this.pty);
    this.tree = identifyProcessTree(this.pid);

    const deliver = (chunk: Buffer): void => {
      if (!this.store.disposed) this.dataEmitter.fire(chunk);
    };
    this.deliver = deliver;
    // A borrower's output goes first: the drain reads what follows it.
    this.tailDrainInstalled = installTailDrain(this.pty, deliver, () => !this.store.disposed, undefined, () => this.loanRecall?.()).installed;
    // With `encoding: null` node-pty hands out Buffers although its typings say string.
    this.store.add(
      this.pty.onData((data: string | Buffer) => deliver(typeof data === 'string' ? Buffer.from(data, 'utf8') : data)),
    );
    // node-pty emits exit only after its socket closed, and the socket closes only through the
    // tail drain, so by now every byte has gone through `deliver`.
    this.store.add(
      this.pty.onExit(({ exitCode, signal }) => {
        if (this.exitValue !== undefined) return;
        this.exitValue = { exitCode, signal: signal ? (SIGNAL_NAMES.get(signal) ?? null) : null };
        this.exitEmitter.fire(this.exitValue);
      }),
    );
  }

  /** True when input bypasses node-pty's thread-pool writes (see pty-direct-write.ts). */
  get writesDirectly(): boolean {
    return this.writer.direct;
  }

  /** Where input may be written straight, next in order (pty-direct-write.ts), while the program runs; else undefined. */
  get directInputFd(): number | undefined {
    return this.store.disposed || this.exitValue !== undefined ? undefined : this.writer.directFd();
  }

  get exit(): RowExit | undefined {
    return this.exitValue;
  }

  get running(): boolean {
    return this.exitValue === undefined;
  }

  get paused(): boolean {
    return this.pausedFlag;
  }

  get cols(): number {
    return this.colsValue;
  }

  get rows(): number {
    return this.rowsValue;
  }

  /** Sends input (keys, paste, terminal replies) to the program. */
  write(data: string | Buffer): void {
    if (this.store.disposed || this.exitValue !== undefined) return;
    this.writer.write(data);
  }

  /** Sets the pty's window size; the program gets SIGWINCH. */
  resize(cols: number, rows: number): void {
    if (cols < 1 || rows < 1 || !Number.isFinite(cols) || !Number.isFinite(rows)) {
      throw new RangeError(`a row needs at least 1x1 cells, got ${cols}x${rows}`);
    }
    cols = Math.floor(cols);
    rows = Math.floor(rows);
    // The same size again is no SIGWINCH: a program redraws on every one it gets.
    if (cols === this.colsValue && rows === this.rowsValue) return;
    this.colsValue = cols;
    this.rowsValue = rows;
    if (this.store.disposed || this.exitValue !== undefined) return;
    try {
      this.pty.resize(this.colsValue, this.rowsValue);
    } catch {
      // The pty closed between the exit check and the ioctl; nothing left to resize.
    }
  }

  /** Stops reading output; the program blocks once the kernel buffer is full. */
  pause(): void {
    if (this.pausedFlag || this.store.disposed) return;
    this.pausedFlag = true;
    if (!this.loanRecall) pausePtyReads(this.pty);
  }

  resume(): void {
    if (!this.pausedFlag || this.store.disposed) return;
    this.pausedFlag = false;
    // Lent: node-pty reads again when the loan ends.
    if (this.loanRecall) return;
    // After a loan the stream's own resume() would not restart its read (see resumePtyReads).
    resumePtyReads(this.pty);
  }

  /**
   * Lends the reading of the output (pty-output-loan.ts): node-pty stops reading until the loan
   * ends, and what the borrower read goes on through `deliver`, in order. `recall` must end the
   * loan synchronously (delivering what was read); it is called when the pty is about to close.
   * Undefined when the output cannot be lent: not running, paused, lent already.
   */
  lendOutput(recall: () => void): OutputLoan | undefined {
    if (this.store.disposed || this.exitValue !== undefined || this.pausedFlag || this.loanRecall || !stopPtyReads(this.pty)) return undefined;
    this.loanRecall = recall;
    let ended = false;
    return {
      deliver: (chunk) => {
        if (!ended) this.deliver(chunk);
      },
      end: () => {
        if (ended) return;
        ended = true;
        this.loanRecall = undefined;
        if (!this.pausedFlag && !this.store.disposed) resumePtyReads(this.pty);
      },
    };
  }

  /** Signals the program's process group and session (default SIGHUP, like closing a terminal). */
  kill(signal: NodeJS.Signals = 'SIGHUP'): void {
    signalProcessTree(this.tree, signal);
    if (signal === 'SIGHUP' || signal === 'SIGTERM') signalProcessTree(this.tree, 'SIGCONT');
  }

  /** The kernel's start time of the program's process (Linux; undefined elsewhere), read once as it started. */
  get startTime(): string | undefined {
    return this.tree.startTime;
  }

  /** Whether the program or anything it started in its session is still alive. */
  processesAlive(): boolean {
    return processTreeAlive(this.tree);
  }

  /**
   * Ends the row: SIGHUP to its process group and session, the pty closed, and SIGKILL for
   * whatever is still there after the grace period (that last timer does not hold the event loop).
   */
  readonly dispose = (): void => {
    if (this.store.disposed) return;
    this.store.dispose();
    this.kill('SIGHUP');
    closePty(this.pty);
    const tree = this.tree;
    systemClock.setTimer(() => {
      if (processTreeAlive(tree)) signalProcessTree(tree, 'SIGKILL');
    }, this.killGraceMs);
  };
}
