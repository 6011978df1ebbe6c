// A row's emulated screen: an @xterm/headless terminal fed with the pty's bytes. It answers the
// program's queries (device attributes, cursor position) through onReply, reports parse backlog
// through onPressure so the owner can pause the pty, and bumps a cheap version number whenever
// parsed output (or a resize) changed the screen. Snapshots are taken on demand, never per chunk.
// Output waits in a ParseQueue (parse-queue.ts) and is handed to xterm in turns granted by a
// ParseScheduler, so many busy rows share the event loop instead of each taking xterm's full 12 ms
// slice per turn. A flood of plain lines in a row that is not attached waits while it keeps coming
// (flood-policy.ts) and is then fast-forwarded (fast-forward.ts); an attached row parses at once.
// History is kept in two parts: the emulator's own scrollback (EMULATOR_SCROLLBACK lines, as cells)
// and, older than that, plain text (spilled-history.ts), which costs a tenth of the memory.
// xterm's internals are read only through xterm-state.ts, scrollback-tap.ts and recycled-line-objects.ts.
import xtermHeadless from '@xterm/headless';
import type { IBuffer, IBufferCell, Terminal } from '@xterm/headless';
import unicode11 from '@xterm/addon-unicode11';
const { Unicode11Addon } = unicode11;
import { holdingClock, type Clock } from '../util/clock.js';
import { Emitter, type Event } from '../util/event.js';
import { DisposableStore, toDisposable, type Disposable } from '../util/lifecycle.js';
import { TimerSlot } from '../util/timer-slot.js';
import { FastForward } from './fast-forward.js';
import { FloodPolicy } from './flood-policy.js';
import { ModeTracker, type ActiveModes } from './mode-tracker.js';
import { sharedParseScheduler, type ParseClient, type ParseScheduler } from './parse-scheduler.js';
import { ParseQueue, type QueuedChunk } from './parse-queue.js';
import { scanPlain } from './plain-backlog.js';
import { probeEmulator, trackDirtyRows, type DirtyRows, type EmulatorProbe } from './xterm-state.js';
import { tapScrollback, type ScrollbackTap } from './scrollback-tap.js';
import { keepRecycledLineObjects } from './recycled-line-objects.js';
import { clearWithScrollback, SpilledHistory } from './spilled-history.js';
import { readScreenSnapshot } from './read-screen-snapshot.js';
import type { ScreenSnapshot } from './screen-snapshot.js';
import { serializeTerminal } from './serialize-terminal.js';

const { Terminal: HeadlessTerminal } = xtermHeadless;

export const DEFAULT_SCROLLBACK = 5000;
/**
 * History lines the emulator keeps as cells; older ones are kept as text. Enough for a resize's
 * reflow to work on (a screen pulled taller shows history), small enough not to matter in memory.
 */
export const EMULATOR_SCROLLBACK = 200;
export { DEFAULT_HIGH_WATERMARK, DEFAULT_LOW_WATERMARK } from './parse-queue.js';
export { MAX_DEFER_MS } from './flood-policy.js';

export interface RowScreenOptions {
  cols: number;
  rows: number;
  /** History lines kept in all (default DEFAULT_SCROLLBACK). */
  scrollback?: number;
  /** Of those, how many the emulator keeps as cells (default EMULATOR_SCROLLBACK); tests set it low. */
  emulatorScrollback?: number;
  highWatermark?: number;
  lowWatermark?: number;
  /** Shares parse time with other rows (default: the process-wide shared scheduler). */
  scheduler?: Pick<ParseScheduler, 'request'> & Partial<Pick<ParseScheduler, 'yieldOnce'>>;
  /** Cut plain floods that scroll out of history unparsed (default true; false parses every byte). */
  fastForward?: boolean;
  /** Longest a plain flood may wait unparsed in a row that is not attached (default MAX_DEFER_MS). */
  maxDeferMs?: number;
  /** Times the flood policy, quiet and the echo's wait (default: the system clock, its timers holding the event loop: a flush() awaits them). */
  clock?: Clock;
}

export type { ActiveModes } from './mode-tracker.js';

/** The scan of a chunk that is not looked at (a string, an echo, no fast-forward). */
const NOT_SCANNED = { plain: false, lineEnds: 0 };

export class RowScreen implements Disposable, ParseClient {
  private readonly store = new DisposableStore();
  private readonly terminal: Terminal;
  private readonly modeTracker: ModeTracker;
  private readonly replyEmitter = this.store.add(new Emitter<string>());
  private readonly changeEmitter = this.store.add(new Emitter<void>());
  private readonly titleEmitter = this.store.add(new Emitter<string>());
  private readonly scheduler: Pick<ParseScheduler, 'request'> & Partial<Pick<ParseScheduler, 'yieldOnce'>>;
  private readonly queue: ParseQueue;
  private readonly flood: FloodPolicy;
  /** Null when fast-forward is off or xterm's internals are not found: every byte is parsed. */
  private readonly fastForwarder: FastForward | null;
  /** xterm internals (null when they are not found): `settled` reads them. */
  private readonly emulator: EmulatorProbe | null;
  private readonly dirtyRows: DirtyRows;
  /** The last byte written, for the next chunk's scan. */
  private lastByte = -1;
  /** Set by parseAfterYield: the next write() waits for `echoWait` before it is parsed. */
  private yieldNext = false;
  /** While pending, nothing is parsed here: the event loop first blocks once (parseAfterYield). */
  private readonly echoWait: TimerSlot;
  /** Chunks written after parseAfterYield (their echo is on the terminal already) not parsed yet. */
  private echoesUnparsed = 0;
  private readonly echoParsed = (): void => {
    this.echoesUnparsed--;
  };
  /** Set while feed() hands a turn's chunks over (each parsed at once): their changes are told once, after. */
  private feeding = false;
  private changedWhileFeeding = false;
  private turnRequested = false;
  private urgentValue = false;
  private versionValue = 0;
  private titleValue = '';
  private scratchCell: IBufferCell | undefined;
  /** History lines kept in all: the emulator's scrollback plus `spilled`. */
  private readonly historyDepth: number;
  /** The emulator's own scrollback (the rest of historyDepth is spilled as text). */
  private readonly emulatorScrollback: number;
  private readonly spilled: SpilledHistory | null;
  private readonly tap: ScrollbackTap | null;

  /** Bytes the terminal sends back to the program (query replies); write them to the pty. */
  readonly onReply: Event<string> = this.replyEmitter.event;
  /** true: the parser is behind, pause the pty; false: caught up, resume it. */
  readonly onPressure: Event<boolean>;
  /** Parsed output (or a resize) changed the screen; `version` has moved on. */
  readonly onChange: Event<void> = this.changeEmitter.event;
  readonly onTitleChange: Event<string> = this.titleEmitter.event;

  constructor(options: RowScreenOptions) {
    const clock = options.clock ?? holdingClock;
    this.queue = this.store.add(new ParseQueue(options.highWatermark, options.lowWatermark));
    this.onPressure = this.queue.onPressure;
    this.flood = this.store.add(new FloodPolicy(() => this.requestTurn(), clock, options.maxDeferMs));
    this.echoWait = this.store.add(new TimerSlot(clock));
    this.scheduler = options.scheduler ?? sharedParseScheduler;
    this.historyDepth = options.scrollback ?? DEFAULT_SCROLLBACK;
    const emulatorScrollback = Math.min(this.historyDepth, options.emulatorScrollback ?? EMULATOR_SCROLLBACK);
    this.terminal = new HeadlessTerminal({
      cols: options.cols,
      rows: options.rows,
      scrollback: emulatorScrollback,
      allowProposedApi: true,
      logLevel: 'off',
      windowOptions: { getWinSizeChars: true },
    });
    this.store.add(toDisposable(() => this.terminal.dispose()));
    keepRecycledLineObjects(this.terminal);
    // A whole history's worth of text: after a resize moved the emulator's lines out (makeRoom),
    // history is still as deep as asked; historyLines trims the two parts to historyDepth.
    const spilled = emulatorScrollback < this.historyDepth ? new SpilledHistory(this.historyDepth) : null;
    const tap = spilled ? tapScrollback(this.terminal, (line) => spilled.appendLine(line)) : null;
    if (spilled && !tap) this.terminal.options.scrollback = this.historyDepth; // no tap: the emulator keeps it all
    this.tap = tap;
    this.spilled = tap ? spilled : null;
    this.emulatorScrollback = tap ? emulatorScrollback : this.historyDepth;
    if (tap) {
      this.store.add(toDisposable(() => tap.dispose()));
      this.store.add(clearWithScrollback(this.terminal, spilled!));
    }
    // Unicode 11 widths, as the terminals operators use draw them (and as tmux counts them): an
    // emoji is two cells. xterm's default (Unicode 6) makes it one, and a row whose program prints ✅
    // would be painted a cell short per emoji on the operator's screen.
    this.terminal.loadAddon(new Unicode11Addon());
    this.terminal.unicode.activeVersion = '11';
    this.modeTracker = this.store.add(new ModeTracker(this.terminal));
    this.store.add(
      this.terminal.onData((data) => {
        if (data.length > 0) this.replyEmitter.fire(data);
      }),
    );
    this.store.add(this.terminal.onBinary((data) => this.replyEmitter.fire(data)));
    this.store.add(
      this.terminal.onTitleChange((title) => {
        this.titleValue = title;
        this.titleEmitter.fire(title);
      }),
    );
    this.store.add(
      this.terminal.onWriteParsed(() => {
        if (this.feeding) this.changedWhileFeeding = true;
        else this.bump();
      }),
    );
    this.dirtyRows = this.store.add(trackDirtyRows(this.terminal));
    this.emulator = probeEmulator(this.terminal);
    this.fastForwarder =
      options.fastForward !== false && this.emulator !== null
        ? new FastForward(this.emulator, { depth: this.historyDepth, emulatorScrollback: this.emulatorScrollback, spilled: this.spilled }, clock)
        : null;
  }

  /** Rows changed since the last call: a range, 'all', or 'none'; resets the record. */
  takeDirtyRows(): { start: number; end: number } | 'all' | 'none' {
    return this.dirtyRows.take();
  }
  get cols(): number {
    return this.terminal.cols;
  }

  get rows(): number {
    return this.terminal.rows;
  }

  /**
   * Everything written so far is parsed and the parser is between sequences: plain text the
   * program writes next is printed at the cursor as it stands (Compositor.echoAhead relies on it).
   * False when xterm's internals are not found.
   */
  get settled(): boolean {
    return !this.store.disposed && this.queue.pending === 0 && this.queue.inFlight === 0 && this.emulator !== null && this.emulator.atGround();
  }

  /**
   * Output whose echo went to the terminal ahead (parseAfterYield) is not parsed yet: the screen
   * does not show what the terminal does on the cursor's line until it is.
   */
  get echoUnparsed(): boolean {
    return this.echoesUnparsed > 0;
  }

  /** Increases whenever the screen may have changed; compare to skip redrawing a still row. */
  get version(): number {
    return this.versionValue;
  }

  get title(): string {
    return this.titleValue;
  }

  /**
   * Everything written is parsed and nothing more came for FLOOD_GAP_MS: the program paused (a
   * flood ended), so what the screen shows now is its output's end, worth showing at once.
   */
  get quiet(): boolean {
    return this.queue.pending === 0 && this.flood.quietNow;
  }

  /** Bytes handed to write() that the parser has not processed yet. */
  get pendingBytes(): number {
    return this.queue.pending;
  }

  /**
   * Latency over fairness: an attached row's output is parsed as it arrives, not in a later
   * scheduler turn, so a keystroke's echo reaches the operator without waiting a turn; and a flood
   * the row was letting gather is parsed now rather than when its wait runs out.
   */
  get urgent(): boolean {
    return this.urgentValue;
  }

  set urgent(on: boolean) {
    this.urgentValue = on;
    if (on && !this.queue.isEmpty) this.requestTurn();
  }

  /**
   * Bytes of plain floods cut unparsed: dropped because they would have scrolled out of history,
   * or taken into history as text (spilledAsTextBytes of them).
   */
  get fastForwardedBytes(): number {
    return this.fastForwarder?.skippedBytes ?? 0;
  }

  /** Of fastForwardedBytes, the lines taken into history as text without being parsed. */
  get spilledAsTextBytes(): number {
    return this.fastForwarder?.spilledAsTextBytes ?? 0;
  }

  /** True between a pressure(true) and the matching pressure(false). */
  get isBackedUp(): boolean {
    return this.queue.isBackedUp;
  }

  /** The active buffer (normal or alternate), for renderers. Read it synchronously; it mutates. */
  get buffer(): IBuffer {
    return this.terminal.buffer.active;
  }

  /**
   * The normal buffer's kept history and screen as plain text, oldest first (a full-screen program's
   * alternate screen has no history of its own): the history view and search read it.
   */
  historyLines(maxLines = 100_000): string[] {
    const limit = Math.min(maxLines, this.historyDepth + this.terminal.rows);
    const b = this.terminal.buffer.normal;
    const from = Math.max(0, b.length - limit);
    const out: string[] = this.spilled?.lines(limit - (b.length - from)) ?? [];
    for (let i = from; i < b.length; i++) out.push(b.getLine(i)?.translateToString(true) ?? '');
    while (out.length > 0 && out[out.length - 1] === '') out.pop();
    return out;
  }

  get activeModes(): ActiveModes {
    return this.modeTracker.modes;
  }

  get alternateScreen(): boolean {
    return this.terminal.buffer.active.type === 'alternate';
  }

  /** Feeds program output. Bytes may split UTF-8 sequences and escape sequences anywhere. */
  write(data: Uint8Array | string): void {
    if (this.store.disposed || data.length === 0) return;
    const prevByte = this.lastByte;
    this.lastByte = typeof data === 'string' ? -1 : data[data.length - 1]!;
    const echoed = this.yieldNext;
    if (echoed) {
      this.yieldNext = false;
      this.echoWait.setIfIdle(this.endYield, 0);
    }
    const queue = this.queue;
    if (this.urgentValue && queue.inFlight === 0 && queue.isEmpty && !this.echoWait.pending) {
      this.flood.noteWrite();
      queue.handOver(data.length);
      this.parseNow();
      this.terminal.write(data, this.onBatchParsed);
      return;
    }
    // An echo's chunk counts as not plain: a flood behind it is neither cut nor put off while it
    // waits, and it is told parsed (echoUnparsed) only once it is.
    const scan = this.fastForwarder !== null && typeof data !== 'string' && !echoed ? scanPlain(data, prevByte) : NOT_SCANNED;
    const chunk: QueuedChunk = { data, at: this.flood.noteWrite(), plain: scan.plain, lineEnds: scan.lineEnds, prevByte };
    if (echoed) {
      this.echoesUnparsed++;
      chunk.afterParse = this.echoParsed;
    }
    queue.push(chunk);
    if (queue.overHighWatermark) {
      // A plain flood is cut down here rather than paused: cutting costs far less than parsing.
      if (queue.inFlight === 0) this.fastForwarder?.run(queue, this.terminal.rows, this.terminal.cols);
      queue.pressIfOver();
    }
    this.requestTurn();
  }

  /**
   * Makes xterm parse the next write() synchronously (left alone it defers each write to a timer,
   * >= 1 ms, most of a keystroke's echo latency): every write() here is preceded by this. Its
   * public switch for that is "user input happened": `input('', true)` sets it (and emits an empty
   * onData, which is not forwarded). The side effect, scrolling the viewport to the bottom, is
   * moot: we never scroll xterm's viewport.
   */
  private parseNow(): void {
    if (!this.store.disposed) this.terminal.input('', true);
  }

  /**
   * The row stopped reading its program's output for a while (a batch of a row nobody draws): what
   * was written is all there is until the next write, so a plain flood does not wait for more.
   */
  readsPaused(): void {
    this.flood.inputPaused();
  }

  /** Resolves once everything written so far has been parsed. */
  flush(): Promise<void> {
    if (this.store.disposed) return Promise.resolve();
    return this.queue.flush();
  }

  /** Called by the scheduler: hands the next queued chunks (about `budget` bytes) to xterm. */
  feed(budget: number): void {
    this.turnRequested = false;
    const queue = this.queue;
    if (this.store.disposed || queue.inFlight > 0) return;
    const fastForwarder = this.fastForwarder;
    if (fastForwarder !== null) {
      // A flood that is still coming waits (FloodPolicy), and is cut once its wait ends. Not at
      // each turn meanwhile: a cut that spills history queues an erase, which is no plain output,
      // so the wait ended there and the tail (a screenful and more) was parsed after every cut.
      if (!this.urgentValue && this.flood.holds(queue, this.terminal.rows)) return;
      fastForwarder.run(queue, this.terminal.rows, this.terminal.cols);
    }
    // A turn's chunks are parsed one after another, at once; the screen is told it changed once,
    // after the last: one paint of the attached row per turn, not one per chunk, and none of a
    // screen part-way through a turn (a keystroke's echo the terminal shows already, in the
    // chunk after the one just parsed, would be taken off its line and sent again after).
    this.feeding = true;
    try {
      let handed = 0;
      while (!queue.isEmpty && handed < budget) {
        const chunk = queue.take();
        handed += chunk.data.length;
        const last = queue.isEmpty || handed >= budget;
        // Parse now, in this scheduler turn: left alone xterm defers every write to a timer
        // (>= 1 ms each), which made a flood's wall time mostly waiting. The turn's byte budget
        // (ParseScheduler) still bounds how long the keyboard can wait behind parsing.
        this.parseNow();
        if (last) queue.startBatch(handed);
        const parsed = last ? this.onBatchParsed : undefined;
        const after = chunk.afterParse;
        this.terminal.write(chunk.data, after && parsed ? () => (after(), parsed()) : (after ?? parsed));
      }
    } finally {
      this.feeding = false;
      if (this.changedWhileFeeding) {
        this.changedWhileFeeding = false;
        this.bump();
      }
    }
    queue.compact();
  }

  /**
   * Every row's next parse turn waits until the event loop has blocked once (ParseScheduler.yieldOnce):
   * a keystroke was just written into this row's program.
   */
  yieldTurns(): void {
    this.scheduler.yieldOnce?.();
  }

  /**
   * As yieldTurns, and this screen's next write() — the chunk whose echo is already on the
   * operator's terminal (Compositor.echoAhead) — is parsed after that wait too, not at once; writes
   * meanwhile queue behind it, in order.
   */
  parseAfterYield(): void {
    this.yieldNext = true;
    this.yieldTurns();
  }

  private readonly endYield = (): void => {
    if (!this.queue.isEmpty) this.requestTurn();
  };

  private requestTurn(): void {
    if (this.turnRequested || this.queue.inFlight > 0 || this.echoWait.pending) return;
    this.turnRequested = true;
    this.scheduler.request(this);
  }

  private readonly onBatchParsed = (): void => {
    if (this.queue.batchParsed()) this.requestTurn();
  };

  resize(cols: number, rows: number): void {
    if (this.store.disposed) return;
    if (cols === this.terminal.cols && rows === this.terminal.rows) return;
    this.tap?.makeRoom(cols, rows, this.emulatorScrollback);
    this.terminal.resize(cols, rows);
    this.dirtyRows.markAll();
    this.bump();
  }

  /** The screen and (up to `historyLines` of) the emulator's history as the escape sequences that redraw them (a browser view's first frame). */
  serialize(historyLines?: number): string {
    return serializeTerminal(this.terminal, historyLines);
  }

  snapshot(): ScreenSnapshot {
    const buffer = this.terminal.buffer.active;
    const cell = (this.scratchCell ??= buffer.getNullCell());
    return readScreenSnapshot(buffer, this.terminal.cols, this.terminal.rows, cell, this.modeTracker.isCursorVisible, this.titleValue);
  }

  private bump(): void {
    this.versionValue++;
    this.changeEmitter.fire();
  }

  readonly dispose = (): void => {
    if (this.store.disposed) return;
    // The queue is disposed with the store: what waits is dropped and every flush() resolves.
    this.store.dispose();
  };
}
