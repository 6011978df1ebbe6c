// Runs `notify.command` for a notification: the argv from the config (never a shell line: nothing
// of the event reaches an argument list or a shell), the payload as JSON on its stdin, in a process
// group of its own, killed whole when it outlives its timeout. The caller never waits: run() spawns
// and returns; at most MAX_RUNNING commands run at once and a notification past that is dropped with
// a log line (a notifier that cannot keep up must not pile up processes). Every failure — no such
// program, a non-zero exit, a timeout — is a log line, never an exception.
//
// The environment is minimal and fixed (docs/CONFIG.md, "Notifications"): what a desktop
// notifier, curl or a script needs to find the user's session and programs — PATH, HOME, USER,
// LOGNAME, SHELL, LANG, LC_ALL, LC_CTYPE, TZ, TMPDIR, DISPLAY, WAYLAND_DISPLAY, XDG_RUNTIME_DIR,
// DBUS_SESSION_BUS_ADDRESS — plus SWB_NOTIFY_KIND, SWB_NOTIFY_ROW and SWB_NOTIFY_TEXT (the redacted,
// sanitized one-line text). Nothing else of swb's (no SWB_TOKEN, no operator token) is passed on.
import { spawn, type ChildProcess } from 'node:child_process';
import { systemClock, type Clock } from '../util/clock.js';
import { Emitter, type Event } from '../util/event.js';
import type { Disposable } from '../util/lifecycle.js';
import { sanitize } from '../text/sanitize.js';
import type { NotificationPayload } from './notification-payload.js';

export const MAX_RUNNING = 4;
/** Bytes of a failing command's stderr kept for its log line. */
const STDERR_KEPT = 512;

export const PASSED_ENV = [
  'PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'TMPDIR',
  'DISPLAY', 'WAYLAND_DISPLAY', 'XDG_RUNTIME_DIR', 'DBUS_SESSION_BUS_ADDRESS',
] as const;

export type CommandOutcome =
  | { ok: true; exitCode: 0 }
  | { ok: false; why: 'exit'; exitCode: number | null; signal: NodeJS.Signals | null; stderr: string }
  | { ok: false; why: 'timeout' | 'spawn' | 'busy'; message: string };

export interface CommandChannelOptions {
  argv: readonly string[];
  timeoutMs: number;
  /** The environment the few passed variables are taken from (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Failures, one line each. */
  log(line: string): void;
  clock?: Clock;
  maxRunning?: number;
}

export function commandEnv(from: NodeJS.ProcessEnv, payload: NotificationPayload): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of PASSED_ENV) if (from[name] !== undefined) env[name] = from[name];
  env.SWB_NOTIFY_KIND = payload.kind;
  env.SWB_NOTIFY_ROW = payload.row;
  env.SWB_NOTIFY_TEXT = payload.text;
  return env;
}

/** What the notifier needs of a command channel (tests give it a recorder). */
export interface NotifyCommandRunner {
  run(payload: NotificationPayload): void;
}

export class CommandChannel implements Disposable, NotifyCommandRunner {
  private readonly running = new Set<ChildProcess>();
  private readonly finished = new Emitter<{ payload: NotificationPayload; outcome: CommandOutcome }>();
  private idleWaiters: Array<() => void> = [];
  private readonly clock: Clock;
  private disposed = false;
  /** Each run's end: the payload it carried and how it went. */
  readonly onFinished: Event<{ payload: NotificationPayload; outcome: CommandOutcome }> = this.finished.event;

  constructor(private readonly o: CommandChannelOptions) {
    this.clock = o.clock ?? systemClock;
  }

  get runningCount(): number {
    return this.running.size;
  }

  /** Starts the command for `payload` and returns at once. */
  run(payload: NotificationPayload): void {
    if (this.disposed) return;
    const [file, ...args] = this.o.argv;
    if (file === undefined) return;
    if (this.running.size >= (this.o.maxRunning ?? MAX_RUNNING)) {
      this.end(payload, { ok: false, why: 'busy', message: `${this.running.size} notify commands still running; this ${payload.kind} notification for @${payload.row} was dropped` });
      return;
    }
    let child: ChildProcess;
    try {
      // detached: a process group of its own, so a timeout kills whatever it started too.
      child = spawn(file, args, { stdio: ['pipe', 'ignore', 'pipe'], detached: true, env: commandEnv(this.o.env ?? process.env, payload) });
    } catch (err) {
      this.end(payload, { ok: false, why: 'spawn', message: (err as Error).message });
      return;
    }
    this.running.add(child);
    let stderr = '';
    let timedOut = false;
    let settled = false;
    const timer = this.clock.setTimer(() => {
      timedOut = true;
      killGroup(child);
      // A descendant that left the group (setsid) may hold stderr open: the run still ends here.
      child.stdin?.destroy();
      child.stderr?.destroy();
    }, this.o.timeoutMs);
    const settle = (outcome: CommandOutcome) => {
      if (settled) return;
      settled = true;
      timer.dispose();
      this.running.delete(child);
      this.end(payload, outcome);
    };
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      if (stderr.length < STDERR_KEPT) stderr = (stderr + chunk).slice(0, STDERR_KEPT);
    });
    // A command that does not read its stdin closes the pipe: that is its business, not a failure.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(`${JSON.stringify(payload)}\n`);
    child.on('error', (err) => settle({ ok: false, why: 'spawn', message: err.message }));
    child.on('close', (exitCode, signal) => {
      if (timedOut) settle({ ok: false, why: 'timeout', message: `still running after ${this.o.timeoutMs} ms: its process group was killed` });
      else if (exitCode === 0) settle({ ok: true, exitCode: 0 });
      else settle({ ok: false, why: 'exit', exitCode, signal, stderr: stderr.trim() });
    });
  }

  /** Resolves once no command runs (for `swb notify test` and tests; the notifier never waits). */
  idle(): Promise<void> {
    if (this.running.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private end(payload: NotificationPayload, outcome: CommandOutcome): void {
    if (!outcome.ok) this.o.log(`notify command ${this.o.argv[0] ?? ''}: ${describeOutcome(outcome)}`);
    this.finished.fire({ payload, outcome });
    if (this.running.size === 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
    }
  }

  /** Kills what still runs: a server going away takes its notifications with it. */
  dispose(): void {
    this.disposed = true;
    for (const child of this.running) killGroup(child);
  }
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Already gone (ESRCH): nothing to kill.
  }
}

export function describeOutcome(outcome: CommandOutcome): string {
  if (outcome.ok) return 'ok';
  if (outcome.why !== 'exit') return outcome.message;
  const how = outcome.signal ? `killed by ${outcome.signal}` : `exit status ${outcome.exitCode}`;
  return outcome.stderr ? `${how}: ${sanitize(outcome.stderr.split('\n')[0]!, { singleLine: true, maxChars: 200 })}` : how;
}
