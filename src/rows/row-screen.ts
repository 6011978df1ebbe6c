// A row's emulated screen: an @xterm/headless terminal fed with the pty's bytes. It answers the
// program's queries (device attributes, cursor position) through onReply, reports parse backlog
// through onPressure so the owner can pause the pty, and bumps a cheap version number whenever
// parsed output (or a resize) changed the screen. Snapshots are taken on demand, never per chunk.
// Output is queued here and handed to xterm in turns granted by a ParseScheduler, so many busy
// rows share the event loop instead of each taking xterm's full 12 ms slice per turn.
// A flood of plain lines is fast-forwarded: lines that would scroll out of history before anyone
// could see them are cut from the backlog unparsed (plain-backlog.ts says when that is exact), and
// a row that is not attached lets such a flood gather while it keeps coming (at most MAX_DEFER_MS)
// so there is something to cut. When the lines the cut keeps for history are simple (printable
// ASCII, no wider than the screen), they are taken into history as text rather than parsed, and
// only the lines the emulator keeps as cells are parsed.
// History is kept in two parts: the emulator's own scrollback (EMULATOR_SCROLLBACK lines, as cells)
// and, older than that, plain text (spilled-history.ts), which costs a tenth of the memory.
import xtermHeadless from '@xterm/headless';
import type { IBuffer, IBufferCell, Terminal } from '@xterm/headless';
import unicode11 from '@xterm/addon-unicode11';
const { Unicode11Addon } = unicode11;
import { Emitter, type Event } from '../util/event.js';
import { DisposableStore, toDisposable, type Disposable } from '../util/lifecycle.js';
import { ModeTracker, type ActiveModes } from './mode-tracker.js';
import { sharedParseScheduler, type ParseClient, type ParseScheduler } from './parse-scheduler.js';
import { applyPlainCut, findPlainCut, findSpillCut, scanPlain, simpleLines } from './plain-backlog.js';
import { probeEmulator, type EmulatorProbe } from './xterm-state.js';
import { tapScrollback, type ScrollbackTap } from './scrollback-tap.js';
import { SpilledHistory } from './spilled-history.js';
import type { ScreenSnapshot } from './screen-snapshot.js';

const { Terminal: HeadlessTerminal } = xtermHeadless;

export const DEFAULT_SCROLLBACK = 5000;
/**
 * History lines the emulator keeps as cells; older ones are kept as text. Enough for a resize's
 * reflow to work on (a screen pulled taller shows history), small enough not to matter in memory.
 */
export const EMULATOR_SCROLLBACK = 200;
/** Unparsed bytes above which the owner should pause the pty. */
export const DEFAULT_HIGH_WATERMARK = 256 * 1024;
/** Unparsed bytes below which a paused pty may resume. */
export const DEFAULT_LOW_WATERMARK = 32 * 1024;
/**
 * Longest a plain flood waits unparsed in a row that is not attached. The cut keeps a whole
 * history's worth of lines (5,000 by default), so it pays only when the wait collects more than
 * that: at 30 ms it rarely did; at 100 ms a flooding row still redraws ten times a second.
 */
export const MAX_DEFER_MS = 100;
/**
 * A flood whose output paused this long has ended (or stalled): parse what came. Not shorter: while
 * other rows parse, this row's pty is not read for several ms, which is no pause of its program.
 */
const FLOOD_GAP_MS = 15;
/** A plain backlog smaller than this (and under a screenful of lines) is parsed at once: not a flood. */
const DEFER_MIN_BYTES = 4096;
/** Puts the cursor home and erases the screen and scrollback (see plain-backlog.ts on spilling). */
const ERASE_ALL = '\x1b[H\x1b[2J\x1b[3J';
/** A fast-forward is worth its scan when it drops at least this many lines... */
const MIN_CUT_LINES = 1024;
/** ...and bytes. */
const MIN_CUT_BYTES = 8 * 1024;

/** Output waiting for its parse turn. */
interface QueuedChunk {
  data: Uint8Array | string;
  /** performance.now() when it arrived. */
  at: number;
  /** Every byte is plain (see plain-backlog.ts); strings never count as plain. */
  plain: boolean;
  /** CR LF pairs that end in it (when plain). */
  lineEnds: number;
  /** The byte written just before it (-1: none or unknown), for CR LF pairs split across chunks. */
  prevByte: number;
  /** Runs once xterm has parsed it, before anything queued after it. */
  afterParse?: () => void;
}

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
}

export type { ActiveModes } from './mode-tracker.js';

const EMPTY_CHUNK: QueuedChunk = { data: '', at: 0, plain: true, lineEnds: 0, prevByte: -1 };

/** Part of a plain queued chunk, with its own line count. */
function sliceChunk(chunk: QueuedChunk, start: number, end: number): QueuedChunk {
  const bytes = chunk.data as Uint8Array;
  // The byte before the slice: the chunk's own, or what preceded the chunk.
  const prevByte = start > 0 ? bytes[start - 1]! : chunk.prevByte;
  const data = bytes.subarray(start, end);
  return { data, at: chunk.at, plain: true, lineEnds: scanPlain(data, prevByte).lineEnds, prevByte };
}

/** Drops trailing blanks: empty cells are trimmed by xterm, written spaces here. */
function trimSpaces(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 32) end--;
  return end === text.length ? text : text.slice(0, end);
}

export class RowScreen implements Disposable, ParseClient {
  private readonly store = new DisposableStore();
  private readonly terminal: Terminal;
  private readonly modeTracker: ModeTracker;
  private readonly highWatermark: number;
  private readonly lowWatermark: number;
  private readonly replyEmitter = this.store.add(new Emitter<string>());
  private readonly pressureEmitter = this.store.add(new Emitter<boolean>());
  private readonly changeEmitter = this.store.add(new Emitter<void>());
  private readonly titleEmitter = this.store.add(new Emitter<string>());
  private readonly scheduler: Pick<ParseScheduler, 'request'> & Partial<Pick<ParseScheduler, 'yieldOnce'>>;
  private readonly maxDeferMs: number;
  /** Output waiting for its parse turn, oldest first (from `queueHead`). */
  private queue: QueuedChunk[] = [];
  private queueHead = 0;
  /** Queued chunks that are not plain; while any is queued there is no fast-forward or deferral. */
  private queuedNotPlain = 0;
  /** CR LF pairs in the queued chunks. */
  private queuedLineEnds = 0;
  /** The last byte written, for the next chunk's scan. */
  private lastByte = -1;
  /** xterm internals (null when they are not found): the fast-forward and `settled` read them. */
  private readonly emulator: EmulatorProbe | null;
  private readonly fastForwardOn: boolean;
  private deferTimer: NodeJS.Timeout | undefined;
  /** Set by parseAfterYield: the next write() waits for `yieldTimer` before it is parsed. */
  private yieldNext = false;
  /** While set, nothing is parsed here: the event loop first blocks once (parseAfterYield). */
  private yieldTimer: NodeJS.Timeout | undefined;
  /** Chunks written after parseAfterYield (their echo is on the terminal already) not parsed yet. */
  private echoesUnparsed = 0;
  private readonly echoParsed = (): void => {
    this.echoesUnparsed--;
  };
  /** Set while feed() hands a turn's chunks over (each parsed at once): their changes are told once, after. */
  private feeding = false;
  private changedWhileFeeding = false;
  /** performance.now() of the last write(). */
  private lastWriteAt = 0;
  private skippedBytes = 0;
  private spilledAsText = 0;
  /** Bytes handed to xterm in the current turn; parsed when `onBatchParsed` runs. */
  private inFlight = 0;
  private turnRequested = false;
  private urgentValue = false;
  private pending = 0;
  private backedUp = false;
  private flushWaiters: Array<() => void> = [];
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
  readonly onPressure: Event<boolean> = this.pressureEmitter.event;
  /** Parsed output (or a resize) changed the screen; `version` has moved on. */
  readonly onChange: Event<void> = this.changeEmitter.event;
  readonly onTitleChange: Event<string> = this.titleEmitter.event;

  constructor(options: RowScreenOptions) {
    this.highWatermark = options.highWatermark ?? DEFAULT_HIGH_WATERMARK;
    this.lowWatermark = Math.min(options.lowWatermark ?? DEFAULT_LOW_WATERMARK, this.highWatermark);
    this.scheduler = options.scheduler ?? sharedParseScheduler;
    this.maxDeferMs = options.maxDeferMs ?? MAX_DEFER_MS;
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
      this.clearSpilledOn(spilled!);
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
    this.trackDirtyRows();
    this.emulator = probeEmulator(this.terminal);
    this.fastForwardOn = options.fastForward !== false;
    this.store.add(toDisposable(() => clearTimeout(this.deferTimer)));
    this.store.add(toDisposable(() => clearTimeout(this.yieldTimer)));
  }

  // --- which rows changed -------------------------------------------------------------------
  // xterm's parser reports the viewport rows each parse touched (scrolls mark the whole scroll
  // region) on an internal event the headless build does not re-export. When it is there, the
  // attached row repaints only those rows per keystroke; when it is not (another xterm version),
  // every row counts as changed. Consumers must treat this as a hint and repaint fully now and then.
  private dirtyTracked = false;
  private dirtyAll = true;
  private dirtyStart = Number.POSITIVE_INFINITY;
  private dirtyEnd = -1;

  private trackDirtyRows(): void {
    type RefreshRows = (listener: (range?: { start: number; end: number }) => void) => { dispose(): void };
    const core = (this.terminal as unknown as { _core?: { _inputHandler?: { onRequestRefreshRows?: unknown } } })._core;
    const event = core?._inputHandler?.onRequestRefreshRows;
    if (typeof event !== 'function') return;
    this.dirtyTracked = true;
    this.store.add(
      (event as RefreshRows).call(core!._inputHandler, (range) => {
        if (!range) this.dirtyAll = true;
        else {
          this.dirtyStart = Math.min(this.dirtyStart, range.start);
          this.dirtyEnd = Math.max(this.dirtyEnd, range.end);
        }
      }),
    );
  }

  /** Rows changed since the last call: a range, 'all', or 'none'; resets the record. */
  takeDirtyRows(): { start: number; end: number } | 'all' | 'none' {
    const all = !this.dirtyTracked || this.dirtyAll;
    const range = this.dirtyEnd >= 0 ? { start: Math.max(0, this.dirtyStart), end: this.dirtyEnd } : null;
    this.dirtyAll = false;
    this.dirtyStart = Number.POSITIVE_INFINITY;
    this.dirtyEnd = -1;
    return all ? 'all' : (range ?? 'none');
  }

  get cols(): number {
    return this.terminal.cols;
  }

  get rows(): number {
    return this.terminal.rows;
  }

  /** The internals the fast-forward reads; null when it is off or they are not found. */
  private get probe(): EmulatorProbe | null {
    return this.fastForwardOn ? this.emulator : null;
  }

  /**
   * Everything written so far is parsed and the parser is between sequences: plain text the
   * program writes next is printed at the cursor as it stands (Compositor.echoAhead relies on it).
   * False when xterm's internals are not found.
   */
  get settled(): boolean {
    return !this.store.disposed && this.pending === 0 && this.inFlight === 0 && this.emulator !== null && this.emulator.atGround();
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
    return this.pending === 0 && performance.now() - this.lastWriteAt >= FLOOD_GAP_MS;
  }

  /** Bytes handed to write() that the parser has not processed yet. */
  get pendingBytes(): number {
    return this.pending;
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
    if (on && this.queueHead < this.queue.length) this.requestTurn();
  }

  /**
   * Bytes of plain floods cut unparsed: dropped because they would have scrolled out of history,
   * or taken into history as text (spilledAsTextBytes of them).
   */
  get fastForwardedBytes(): number {
    return this.skippedBytes;
  }

  /** Of fastForwardedBytes, the lines taken into history as text without being parsed. */
  get spilledAsTextBytes(): number {
    return this.spilledAsText;
  }

  /** True between a pressure(true) and the matching pressure(false). */
  get isBackedUp(): boolean {
    return this.backedUp;
  }

  /**
   * What clears the emulator's scrollback clears the spilled part too: ED 3 (`clear` in most
   * shells, an agent's /clear) while the normal buffer is active, and a full reset (RIS). The
   * handlers return false, so xterm's own handling runs after them.
   */
  private clearSpilledOn(spilled: SpilledHistory): void {
    const parser = this.terminal.parser;
    const erase = (params: (number | number[])[]): boolean => {
      if (params[0] === 3 && this.terminal.buffer.active.type === 'normal') spilled.clear();
      return false;
    };
    this.store.add(parser.registerCsiHandler({ final: 'J' }, erase));
    this.store.add(parser.registerCsiHandler({ prefix: '?', final: 'J' }, erase));
    this.store.add(
      parser.registerEscHandler({ final: 'c' }, () => {
        spilled.clear();
        return false;
      }),
    );
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
      this.yieldTimer ??= setTimeout(this.endYield, 0);
    }
    if (this.urgent && this.inFlight === 0 && this.queueHead === this.queue.length && this.yieldTimer === undefined) {
      this.lastWriteAt = performance.now();
      this.pending += data.length;
      this.inFlight = data.length;
      this.parseNow();
      this.terminal.write(data, this.onBatchParsed);
      return;
    }
    // An echo's chunk counts as not plain: a flood behind it is neither cut nor put off while it
    // waits, and it is told parsed (echoUnparsed) only once it is.
    const scan = this.probe && typeof data !== 'string' && !echoed ? scanPlain(data, prevByte) : { plain: false, lineEnds: 0 };
    const now = performance.now();
    const chunk: QueuedChunk = { data, at: now, plain: scan.plain, lineEnds: scan.lineEnds, prevByte };
    if (echoed) {
      this.echoesUnparsed++;
      chunk.afterParse = this.echoParsed;
    }
    this.queue.push(chunk);
    if (scan.plain) this.queuedLineEnds += scan.lineEnds;
    else this.queuedNotPlain++;
    this.pending += data.length;
    this.lastWriteAt = now;
    if (!this.backedUp && this.pending > this.highWatermark) {
      // A plain flood is cut down here rather than paused: cutting costs far less than parsing.
      if (this.inFlight === 0) this.fastForward();
      if (this.pending > this.highWatermark) {
        this.backedUp = true;
        this.pressureEmitter.fire(true);
      }
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

  /** Resolves once everything written so far has been parsed. */
  flush(): Promise<void> {
    if (this.store.disposed || this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.flushWaiters.push(resolve));
  }

  /** Called by the scheduler: hands the next queued chunks (about `budget` bytes) to xterm. */
  feed(budget: number): void {
    this.turnRequested = false;
    if (this.store.disposed || this.inFlight > 0) return;
    // A flood that is still coming waits (deferFlood), and is cut once its wait ends. Not at each
    // turn meanwhile: a cut that spills history queues an erase, which is no plain output, so the
    // wait ended there and the tail (a screenful and more) was parsed after every cut.
    if (this.deferFlood()) return;
    this.fastForward();
    // A turn's chunks are parsed one after another, at once; the screen is told it changed once,
    // after the last: one paint of the attached row per turn, not one per chunk, and none of a
    // screen part-way through a turn (a keystroke's echo the terminal shows already, in the
    // chunk after the one just parsed, would be taken off its line and sent again after).
    this.feeding = true;
    try {
      let handed = 0;
      while (this.queueHead < this.queue.length && handed < budget) {
        const chunk = this.queue[this.queueHead]!;
        this.queue[this.queueHead] = EMPTY_CHUNK;
        this.queueHead++;
        if (chunk.plain) this.queuedLineEnds -= chunk.lineEnds;
        else this.queuedNotPlain--;
        handed += chunk.data.length;
        const last = this.queueHead === this.queue.length || handed >= budget;
        // Parse now, in this scheduler turn: left alone xterm defers every write to a timer
        // (>= 1 ms each), which made a flood's wall time mostly waiting. The turn's byte budget
        // (ParseScheduler) still bounds how long the keyboard can wait behind parsing.
        this.parseNow();
        if (last) this.inFlight = handed;
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
    if (this.queueHead === this.queue.length) {
      this.queue = [];
      this.queueHead = 0;
    } else if (this.queueHead >= 1024) {
      this.queue = this.queue.slice(this.queueHead);
      this.queueHead = 0;
    }
  }

  /**
   * Cuts the part of a plain backlog that would scroll out of history anyway (see plain-backlog.ts
   * for why the screen and history come out the same as after parsing it).
   */
  private fastForward(): void {
    const probe = this.probe;
    if (probe === null || this.queuedNotPlain > 0) return;
    const keepLines = 2 * this.terminal.rows + this.historyDepth;
    if (this.queuedLineEnds < keepLines + MIN_CUT_LINES) return;
    if (!probe.atGround() || !probe.scrollsWholeScreen()) return;
    const queued = this.queue.slice(this.queueHead);
    // Every queued chunk is plain here: bytes, never strings.
    const chunks = queued.map((chunk) => chunk.data as Uint8Array);
    const lineEnds = queued.map((chunk) => chunk.lineEnds);
    if (this.spillHistory(probe, queued, chunks, lineEnds)) return;
    const cut = findPlainCut(chunks, keepLines, MIN_CUT_BYTES, lineEnds);
    if (cut === null) return;
    // Whole chunks keep their records; the (at most two) the cut goes through are rescanned.
    this.queue = applyPlainCut(queued, cut, (chunk) => chunk.data.length, sliceChunk);
    this.queueHead = 0;
    this.queuedLineEnds = this.queue.reduce((sum, chunk) => sum + chunk.lineEnds, 0);
    this.pending -= cut.bytes;
    this.skippedBytes += cut.bytes;
    this.relievePressure();
  }

  /**
   * The fast-forward that also takes the history's lines as text rather than parsing them, when
   * they are simple (see plain-backlog.ts): the backlog becomes an erase of the emulator, the
   * spilled lines, and the tail the emulator keeps as cells. False when it does not apply.
   * `chunks` and `lineEnds` are `queued`'s bytes and line counts, read once by fastForward.
   */
  private spillHistory(probe: EmulatorProbe, queued: QueuedChunk[], chunks: Uint8Array[], lineEnds: number[]): boolean {
    const spilled = this.spilled;
    if (spilled === null || !probe.asciiCharset()) return false;
    const keepLines = 2 * this.terminal.rows + this.emulatorScrollback;
    if (this.queuedLineEnds < keepLines + this.historyDepth + 1 + MIN_CUT_LINES) return false;
    const cut = findSpillCut(chunks, keepLines, this.historyDepth, lineEnds);
    if (cut === null) return false;
    const text = simpleLines(chunks, cut.spillFrom, cut.tailFrom, this.terminal.cols);
    if (text === null) return false;
    const erase: QueuedChunk = { data: ERASE_ALL, at: performance.now(), plain: false, lineEnds: 0, prevByte: -1, afterParse: () => spilled.appendAsciiLines(text) };
    const tail = applyPlainCut(queued, { from: { index: 0, offset: 0 }, to: cut.tailFrom, bytes: cut.bytes }, (chunk) => chunk.data.length, sliceChunk);
    this.queue = [erase, ...tail];
    this.queueHead = 0;
    this.queuedLineEnds = tail.reduce((sum, chunk) => sum + chunk.lineEnds, 0);
    this.queuedNotPlain++;
    this.pending += ERASE_ALL.length - cut.bytes;
    this.skippedBytes += cut.bytes;
    this.spilledAsText += text.length;
    this.relievePressure();
    return true;
  }

  /**
   * A row that is not attached lets a plain flood build up while it keeps coming (output within
   * the last FLOOD_GAP_MS), for at most maxDeferMs, so a fast-forward has lines to cut; anything
   * else (escape sequences, a few lines, the end of a flood, an attached row) is parsed at once.
   */
  private deferFlood(): boolean {
    if (this.urgent || this.probe === null || this.queuedNotPlain > 0 || this.backedUp) return false;
    const head = this.queue[this.queueHead];
    if (head === undefined) return false;
    if (this.queuedLineEnds < this.terminal.rows && this.pending < DEFER_MIN_BYTES) return false;
    const now = performance.now();
    const deadline = Math.min(head.at + this.maxDeferMs, this.lastWriteAt + FLOOD_GAP_MS);
    if (now >= deadline) return false;
    if (this.deferTimer === undefined) {
      this.deferTimer = setTimeout(() => {
        this.deferTimer = undefined;
        this.requestTurn();
      }, Math.max(1, Math.ceil(deadline - now)));
    }
    return true;
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
    this.yieldTimer = undefined;
    if (this.queueHead < this.queue.length) this.requestTurn();
  };

  private requestTurn(): void {
    if (this.turnRequested || this.inFlight > 0 || this.yieldTimer !== undefined) return;
    this.turnRequested = true;
    this.scheduler.request(this);
  }

  private relievePressure(): void {
    if (this.backedUp && this.pending <= this.lowWatermark) {
      this.backedUp = false;
      this.pressureEmitter.fire(false);
    }
  }

  private readonly onBatchParsed = (): void => {
    this.pending -= this.inFlight;
    this.inFlight = 0;
    this.relievePressure();
    if (this.pending > 0) {
      this.requestTurn();
    } else if (this.flushWaiters.length > 0) {
      const waiters = this.flushWaiters;
      this.flushWaiters = [];
      for (const resolve of waiters) resolve();
    }
  };

  resize(cols: number, rows: number): void {
    if (this.store.disposed) return;
    if (cols === this.terminal.cols && rows === this.terminal.rows) return;
    this.tap?.makeRoom(cols, rows, this.emulatorScrollback);
    this.terminal.resize(cols, rows);
    this.dirtyAll = true;
    this.bump();
  }

  snapshot(): ScreenSnapshot {
    const buffer = this.terminal.buffer.active;
    const rows = this.terminal.rows;
    const cols = this.terminal.cols;
    const lines: string[] = new Array<string>(rows);
    const dimRanges: Array<Array<[number, number]>> = new Array<Array<[number, number]>>(rows);
    const cell = (this.scratchCell ??= buffer.getNullCell());
    for (let y = 0; y < rows; y++) {
      const line = buffer.getLine(buffer.baseY + y);
      lines[y] = line === undefined ? '' : trimSpaces(line.translateToString(true));
      const ranges: Array<[number, number]> = [];
      if (line !== undefined) {
        let start = -1;
        for (let x = 0; x < cols; x++) {
          const c = line.getCell(x, cell);
          const dim = c !== undefined && !c.isAttributeDefault() && c.isDim() !== 0;
          if (dim && start < 0) start = x;
          else if (!dim && start >= 0) {
            ranges.push([start, x]);
            start = -1;
          }
        }
        if (start >= 0) ranges.push([start, cols]);
      }
      dimRanges[y] = ranges;
    }
    return {
      lines,
      cols,
      rows,
      cursor: {
        x: Math.min(buffer.cursorX, cols - 1),
        y: buffer.cursorY,
        visible: this.modeTracker.isCursorVisible,
      },
      title: this.titleValue,
      alternateScreen: buffer.type === 'alternate',
      dimRanges,
    };
  }

  private bump(): void {
    this.versionValue++;
    this.changeEmitter.fire();
  }

  readonly dispose = (): void => {
    if (this.store.disposed) return;
    this.store.dispose();
    this.queue = [];
    this.queueHead = 0;
    const waiters = this.flushWaiters;
    this.flushWaiters = [];
    for (const resolve of waiters) resolve();
  };
}
