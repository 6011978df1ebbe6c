// A row: one program in a pty, its emulated screen and, when asked for, a bounded raw transcript.
// The data path is pty bytes → (transcript ring, a reference, no copy) → RowScreen.write; the
// screen's backlog pauses and resumes the pty, and so does a row nobody draws, between batched
// reads. Consumers get cheap notifications and read the screen when they draw; a client that
// draws the row says so with one handle (show, or attach for the row the keys go to).
import { Emitter, type Event } from '../util/event.js';
import { DisposableStore, toDisposable, type Disposable } from '../util/lifecycle.js';
import { ByteRing } from './byte-ring.js';
import { ReadBatchClock } from './read-batch-clock.js';
import { buildRowEnv } from './row-env.js';
import { RowProcess, type RowCommand, type RowExit } from './row-process.js';
import type { OutputLoan } from './pty-output-loan.js';
import { RowScreen } from './row-screen.js';
import { foregroundJobOf, type ForegroundJob } from './foreground-job.js';

/**
 * How often a row nobody draws reads its pty. Each read costs the same whatever it carries (a
 * wakeup, node-pty's stream, a parse turn, events: about half of a hidden row's CPU at 400
 * lines/s); a program printing a line every few ms costs a fraction as much read in batches, and
 * nobody is there to see the delay. At 40 ms an agent's Ink UI, which writes a burst every 100 ms
 * or so, was still read once a burst; at 250 ms two or three bursts share a read. Replies to its
 * terminal queries are delayed as much, at most; the state detector's quiet times are seconds.
 * Fast output is read as it comes. Every row's batch ends at the same boundaries (ReadBatchClock):
 * their reads come back in one wake of the server, not one each.
 */
export const HIDDEN_READ_MS = 250;
const hiddenReadBatches = new ReadBatchClock(HIDDEN_READ_MS);
/**
 * A read this large is not followed by a batch wait: a pty read returns at most 4095 bytes, so a
 * (nearly) full one says more is waiting — output coming faster than batches would carry it
 * (a flood has its own fast path). Not less: after a 250 ms wait a trickle's read carries a few KB.
 */
const HIDDEN_BATCH_BELOW = 4000;
/**
 * Nor is a read that came this soon after the one before (which was not followed by a wait): the
 * output is streaming, and a flood's reads are often part-full. Waiting there held a 20 MB flood
 * for 250 ms at every short read.
 */
const HIDDEN_STREAM_GAP_MS = 20;

export interface RowSpec {
  /** The row's handle (also SWB_SESSION). */
  name: string;
  /** A shell command line, or a program with arguments. */
  command: string | RowCommand;
  cwd?: string;
  env?: Readonly<Record<string, string | undefined>>;
  /** Agent profile id (src/agents/profiles), if any. */
  profile?: string;
  /** false: the agent is not handed swb's own tools (MCP server, hooks) even when its profile can. */
  nativeTools?: boolean;
  /** The row works in its own git worktree (its cwd): where it came from, for review, merge and removal. */
  worktree?: { repo: string; path: string; branch: string; base: { ref: string | null; commit: string } };
}

export type RowState = 'running' | 'exited';

export interface RowOptions {
  spec: RowSpec;
  cols: number;
  rows: number;
  /** Hub socket path given to the program as SWB_SOCKET. */
  socketPath: string;
  /** Mints the SWB_TOKEN for each incarnation of the row. */
  mintToken: (name: string) => string;
  /** Directory of the running swb's `swb`, put first on PATH. */
  binDir?: string;
  /** Environment to start from (default process.env). */
  baseEnv?: NodeJS.ProcessEnv;
  scrollback?: number;
  /**
   * Raw output kept (the last N bytes), for tests and debugging. Off by default: nothing in the
   * product reads it, and at 1 MiB a row it was a megabyte per busy row held for no one.
   */
  transcriptBytes?: number;
  highWatermark?: number;
  lowWatermark?: number;
  killGraceMs?: number;
}

function toCommand(command: string | RowCommand): RowCommand {
  return typeof command === 'string' ? { shell: command } : command;
}

/** One incarnation: a process and the screen it draws on, released together. */
interface Incarnation {
  process: RowProcess;
  screen: RowScreen;
  store: DisposableStore;
}

export class Row implements Disposable {
  readonly name: string;
  /** What the row runs: a restart may change it (a resume recipe's arguments), never its name. */
  private specValue: RowSpec;

  private readonly store = new DisposableStore();
  private readonly options: RowOptions;
  private readonly transcriptRing: ByteRing | null;
  private readonly screenChangeEmitter = this.store.add(new Emitter<void>());
  private readonly outputEmitter = this.store.add(new Emitter<Buffer>());
  private readonly exitEmitter = this.store.add(new Emitter<RowExit>());
  private readonly restartEmitter = this.store.add(new Emitter<void>());
  private readonly titleEmitter = this.store.add(new Emitter<string>());
  private current: Incarnation;
  private stateValue: RowState = 'running';
  private exitValue: RowExit | undefined;
  private lastOutput = 0;
  private colsValue: number;
  private rowsValue: number;
  private changeQueued = false;
  private incarnationCount = 0;
  private startedAtValue = 0;

  /**
   * The screen changed. Fires at most once per event-loop turn and carries nothing: the
   * consumer marks the row dirty and reads it at its own frame rate. (A client that draws the
   * row hears this through its show()/attach() handle.)
   */
  readonly onScreenChange: Event<void> = this.screenChangeEmitter.event;
  /** The program exited and its last output has been parsed into the screen. */
  readonly onExit: Event<RowExit> = this.exitEmitter.event;
  /** restart() started a new process on a fresh screen (`screen` now returns the new one). */
  readonly onRestart: Event<void> = this.restartEmitter.event;
  /** The program set its window title (OSC 0/2); raw, sanitize before showing. */
  readonly onTitleChange: Event<string> = this.titleEmitter.event;

  constructor(options: RowOptions) {
    this.options = options;
    this.specValue = options.spec;
    this.name = options.spec.name;
    this.colsValue = options.cols;
    this.rowsValue = options.rows;
    this.transcriptRing = options.transcriptBytes ? new ByteRing(options.transcriptBytes) : null;
    this.current = this.start();
  }

  get profileId(): string | undefined {
    return this.spec.profile;
  }

  get state(): RowState {
    return this.stateValue;
  }

  /** How the last incarnation ended (undefined while running). */
  get exit(): RowExit | undefined {
    return this.exitValue;
  }

  get exitCode(): number | undefined {
    return this.exitValue?.exitCode;
  }

  get pid(): number {
    return this.current.process.pid;
  }

  /** The kernel's start time of `pid` (Linux), with the pid the program's identity (a pid is reused, a start time with it is not). */
  get pidStartTime(): string | undefined {
    return this.current.process.startTime;
  }

  /** The job in the foreground of this row's terminal if it is not the program's own (see foreground-job.ts). */
  foregroundJob(): ForegroundJob | null | undefined {
    return this.state === 'running' ? foregroundJobOf(this.pid) : undefined;
  }

  /** Epoch ms of the last output byte (0 before any output of this incarnation). */
  get lastOutputAt(): number {
    return this.lastOutput;
  }

  get screen(): RowScreen {
    return this.current.screen;
  }

  /** The raw transcript, if the row keeps one (`transcriptBytes`). */
  get transcript(): ByteRing | null {
    return this.transcriptRing;
  }

  get cols(): number {
    return this.colsValue;
  }

  get rows(): number {
    return this.rowsValue;
  }

  /** How many times the row has been (re)started. */
  get incarnation(): number {
    return this.incarnationCount;
  }

  get disposed(): boolean {
    return this.store.disposed;
  }

  /** The operator's keys (or a wake line) for the program. */
  write(input: string | Buffer): void {
    if (this.store.disposed) return;
    this.current.process.write(input);
    // Someone typed here: the program should get the keys before the other rows are parsed.
    if (this.urgentValue) this.current.screen.yieldTurns();
  }

  /** Where the operator's keys may be written straight (RowProcess.directInputFd), or undefined. */
  get directInputFd(): number | undefined {
    return this.store.disposed ? undefined : this.current.process.directInputFd;
  }

  /** Lends the reading of the program's output (RowProcess.lendOutput), or undefined. */
  lendOutput(recall: () => void): OutputLoan | undefined {
    return this.store.disposed ? undefined : this.current.process.lendOutput(recall);
  }

  /** Resizes the screen first (it reflows), then the pty (the program gets SIGWINCH). */
  resize(cols: number, rows: number): void {
    if (this.store.disposed) return;
    cols = Math.max(1, Math.floor(cols));
    rows = Math.max(1, Math.floor(rows));
    this.colsValue = cols;
    this.rowsValue = rows;
    this.current.screen.resize(cols, rows);
    this.current.process.resize(cols, rows);
  }

  /** Signals the row's process group and session (default SIGHUP). */
  kill(signal?: NodeJS.Signals): void {
    this.current.process.kill(signal);
  }

  get spec(): RowSpec {
    return this.specValue;
  }

  /**
   * Ends the current process (if running) and starts the spec again on a fresh screen — or `next`,
   * the same row launched differently (its agent resuming its conversation).
   */
  restart(next?: RowSpec): void {
    if (this.store.disposed) throw new Error(`row ${this.name} is closed`);
    if (next !== undefined) {
      if (next.name !== this.name) throw new Error(`row ${this.name} cannot restart as ${next.name}`);
      this.specValue = next;
    }
    this.current.store.dispose();
    this.transcriptRing?.clear();
    try {
      this.current = this.start();
    } catch (err) {
      // The old incarnation is gone and no new one started: the row shows as exited.
      this.stateValue = 'exited';
      this.exitValue = { exitCode: -1, signal: null };
      throw err;
    }
    this.restartEmitter.fire();
    this.queueScreenChange();
  }

  /** Whether the program or anything it started in its session still lives (after dispose too). */
  processesAlive(): boolean {
    return this.current.process.processesAlive();
  }

  /** ms epoch the current incarnation's program started. */
  get startedAt(): number {
    return this.startedAtValue;
  }

  private start(): Incarnation {
    this.startedAtValue = Date.now();
    const { spec } = this;
    const o = this.options;
    const store = new DisposableStore();
    const env = buildRowEnv({
      base: o.baseEnv,
      extra: spec.env,
      identity: { socket: o.socketPath, session: spec.name, token: o.mintToken(spec.name) },
      binDir: o.binDir,
    });
    const screen = store.add(
      new RowScreen({
        cols: this.colsValue,
        rows: this.rowsValue,
        scrollback: o.scrollback,
        highWatermark: o.highWatermark,
        lowWatermark: o.lowWatermark,
      }),
    );
    screen.urgent = this.urgentValue;
    let proc: RowProcess;
    try {
      proc = store.add(
        new RowProcess({
          command: toCommand(spec.command),
          env,
          cwd: spec.cwd,
          cols: this.colsValue,
          rows: this.rowsValue,
          killGraceMs: o.killGraceMs,
        }),
      );
    } catch (err) {
      store.dispose();
      throw err;
    }
    this.incarnationCount++;
    this.stateValue = 'running';
    this.exitValue = undefined;
    this.lastOutput = 0;

    // Two reasons to stop reading the pty: the parser is behind (pressure), or nobody sees the row
    // and its output is read in batches (see HIDDEN_READ_MS).
    let behind = false;
    // The batch's wait (on the shared clock, whose timer holds the event loop, as the reads it
    // stands for would); null while the row reads.
    let batch: Disposable | null = null;
    store.add(toDisposable(() => batch?.dispose()));
    // The next read ends a batch: it comes soon after the read before only when the batch was short
    // (ReadBatchClock's boundary was near), which says nothing of the program's pace.
    let batchRead = false;
    const readOrNot = () => (behind || batch !== null ? proc.pause() : proc.resume());
    const endBatch = () => {
      if (batch === null) return;
      batch.dispose();
      batch = null;
      batchRead = true;
      readOrNot();
    };
    this.endReadBatch = endBatch;
    store.add(
      proc.onData((chunk) => {
        if (this.outputTaps !== 0) this.outputEmitter.fire(chunk);
        const now = Date.now();
        const streaming = !batchRead && now - this.lastOutput < HIDDEN_STREAM_GAP_MS;
        batchRead = false;
        this.lastOutput = now;
        this.transcriptRing?.write(chunk);
        screen.write(chunk);
        // Only a trickle waits (HIDDEN_BATCH_BELOW, HIDDEN_STREAM_GAP_MS).
        if (this.viewers === 0 && batch === null && chunk.length < HIDDEN_BATCH_BELOW && !streaming) {
          batch = hiddenReadBatches.wait(endBatch);
          readOrNot();
          screen.readsPaused();
        }
      }),
    );
    store.add(
      screen.onPressure((b) => {
        behind = b;
        readOrNot();
      }),
    );
    store.add(screen.onReply((reply) => proc.write(reply)));
    store.add(screen.onChange(() => this.queueScreenChange()));
    store.add(screen.onTitleChange((title) => this.titleEmitter.fire(title)));
    store.add(
      proc.onExit((exit) => {
        void screen.flush().then(() => {
          if (store.disposed) return;
          this.stateValue = 'exited';
          this.exitValue = exit;
          this.exitEmitter.fire(exit);
          this.queueScreenChange();
        });
      }),
    );
    return { process: proc, screen, store };
  }

  private urgentValue = false;
  /** Clients drawing this row now (a dashboard tile, zoomed, attached). */
  private viewers = 0;
  /** Ends the current incarnation's read batch (the row is seen again: read at once). */
  private endReadBatch: () => void = () => undefined;

  /**
   * A client draws this row until the returned handle is disposed, and hears its screen change
   * (`onChange`: at most once per event-loop turn; the client reads the screen at its own frame
   * rate). A row nobody draws reads its pty in batches (at most every HIDDEN_READ_MS): its screen
   * is still kept, its state detected and its agent woken, a few ms later, for a fraction of the
   * per-read cost. Taken where the client decides what it shows, never while it paints.
   */
  show(onChange: () => void): Disposable {
    const heard = this.screenChangeEmitter.event(onChange);
    this.viewers++;
    this.endReadBatch();
    return toDisposable(() => {
      this.viewers--;
      heard.dispose();
    });
  }

  /** Clients attached to this row now. */
  private attachedClients = 0;

  /**
   * A client draws this row attached (the whole terminal, keys going to it) until the handle is
   * disposed: as show(), and the row is urgent — output parsed as it arrives and changes reported
   * at once (see RowScreen.urgent) — and `onOutput` hears each chunk of the program's output just
   * before the screen parses it, for an echo sent ahead of the emulator (Compositor.echoAhead).
   * Counted: one of two attached clients leaving leaves the row urgent for the other.
   */
  attach(onChange: () => void, onOutput?: (chunk: Buffer) => void): Disposable {
    const shown = onOutput ? this.tap(onChange, onOutput) : this.show(onChange);
    this.attachedClients++;
    this.setUrgent(true);
    // toDisposable runs this once, however often the handle is disposed.
    return toDisposable(() => {
      shown.dispose();
      if (--this.attachedClients === 0) this.setUrgent(false);
    });
  }

  /** Handles hearing the program's output (tap, or attach with onOutput): none, and a chunk costs one compare. */
  private outputTaps = 0;

  /**
   * As show(), and `onOutput` hears each chunk of the program's output as it arrives, before the
   * screen parses it: a client that keeps its own emulator (the browser's xterm.js) takes the
   * screen once (RowScreen.serialize, when `screen.pendingBytes` is 0) and then the bytes.
   */
  tap(onChange: () => void, onOutput: (chunk: Buffer) => void): Disposable {
    const shown = this.show(onChange);
    const output = this.outputEmitter.event(onOutput);
    this.outputTaps++;
    return toDisposable(() => {
      this.outputTaps--;
      output.dispose();
      shown.dispose();
    });
  }

  private setUrgent(on: boolean): void {
    this.urgentValue = on;
    this.current.screen.urgent = on;
  }

  private queueScreenChange(): void {
    if (this.urgentValue && !this.store.disposed) {
      this.screenChangeEmitter.fire();
      return;
    }
    if (this.changeQueued || this.store.disposed) return;
    this.changeQueued = true;
    setImmediate(() => {
      this.changeQueued = false;
      if (!this.store.disposed) this.screenChangeEmitter.fire();
    });
  }

  /** Kills the row's process group and session and releases the pty, screen and listeners. */
  readonly dispose = (): void => {
    if (this.store.disposed) return;
    this.current.store.dispose();
    this.store.dispose();
  };
}
