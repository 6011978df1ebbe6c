// Follows one transcript file from the offset already read, so usage is counted as the agent writes it
// and no file is ever read twice. It holds the file open: when the agent replaces the file (rotation:
// the path names a new inode) the old one is read to its end before the new one is read from its
// start; when the file shrinks under the offset (truncation) it is read again from its start; a file
// that does not exist yet is waited for. Only complete lines are read (complete-lines.ts): the offset
// stops before a line still being written. A complete line that is not JSON is skipped and counted.
//
// Reading happens on `look()`: a watch of the file's folder calls it when the folder changes, and the
// owner calls it when the row goes quiet (a watch can miss events: a folder created after the watch
// began, an inotify queue overflow). There is no polling loop. A look reads at most `sliceBytes` and
// says whether more is waiting, so a large file already there is read in slices that let the event
// loop breathe; each slice hands its usage and the state after it to `commit` together, so whoever
// stores them stores both or neither (a restart then resumes from the committed state: nothing counted
// twice, nothing lost).
// A turn the operator stopped (a parser's interrupt line) is told to `interrupted` once, after the slice
// that held it is done. During a turn its owner shortens the settle (setSettleMs), so such a line is
// read a few tens of ms after it is written rather than half a second: it is the row's news of an Esc.
import { closeSync, constants, fstatSync, openSync, readSync, statSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import { type Clock, systemClock } from '../util/clock.js';
import { type Disposable, toDisposable } from '../util/lifecycle.js';
import { TimerSlot } from '../util/timer-slot.js';
import { scanCompleteLines } from './complete-lines.js';
import { EVENT_LINE_BYTES, type LineVerdict, type TranscriptParser } from './transcript-parser.js';
import type { RateLimits, TurnInterrupt, UsageTurn } from './usage-turn.js';

/** Where reading stands in one file, saved with the totals it produced. */
export interface FollowState {
  offset: number;
  /** The inode the offset belongs to (a new inode at the path: rotation). 0: not opened yet. */
  inode: number;
  /** The parser's own state (an open response's counted usage, a cumulative counter). */
  parser: unknown;
}

/** What one slice of reading found, and the state after it. */
export interface FollowBatch {
  path: string;
  turns: UsageTurn[];
  limits: RateLimits | null;
  state: FollowState;
  /** Bytes read since the previous commit (slices without usage need not commit). */
  bytes: number;
}

export interface FollowCounters {
  /** Lines holding a marker that were parsed. */
  parsed: number;
  /** Of those: not JSON (skipped). */
  malformed: number;
  /** Of those: a kind the parser does not know (skipped). */
  unknown: number;
  /** Lines longer than the longest line read, or event lines over EVENT_LINE_BYTES (skipped). */
  oversized: number;
  truncations: number;
  rotations: number;
}

export interface TranscriptFollowerOptions {
  path: string;
  parser: TranscriptParser;
  /** Takes each slice's usage and state; if it throws, the follower goes back to the state before the slice. */
  commit: (batch: FollowBatch) => void;
  /** Takes each turn the operator stopped, once, after the slice that held it (only a row's own conversation needs it). */
  interrupted?: (interrupt: TurnInterrupt) => void;
  /** The state committed last time (a restart), if any. */
  state?: FollowState;
  now?: () => number;
  /** At most this much is read per look (default 4 MiB). */
  sliceBytes?: number;
  /** A line longer than this is skipped (default 64 MiB). */
  maxLineBytes?: number;
  /** A watch event waits this long for the rest of its burst before the look (default 500 ms). */
  settleMs?: number;
  clock?: Clock;
  /**
   * Bytes without usage read past the last commit before the offset is committed anyway (default
   * 8 MiB). A slice with usage always commits; one without need not (a restart reads those bytes
   * again and finds nothing in them to count), which spares a store write per watch event.
   */
  commitEveryBytes?: number;
}

const NO_FOLLOW = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

export class TranscriptFollower implements Disposable {
  readonly path: string;
  readonly counters: FollowCounters = { parsed: 0, malformed: 0, unknown: 0, oversized: 0, truncations: 0, rotations: 0 };
  private readonly parser: TranscriptParser;
  private readonly commit: (batch: FollowBatch) => void;
  private readonly interrupted: ((interrupt: TurnInterrupt) => void) | undefined;
  /** The parser's markers and its event markers: what the scan looks for. */
  private readonly scanMarkers: readonly Buffer[];
  private readonly now: () => number;
  private readonly sliceBytes: number;
  private readonly maxLineBytes: number;
  private readonly commitEveryBytes: number;
  private settleMs: number;
  /** The one pending look a burst of watch events asks for. */
  private readonly lookTimer: TimerSlot;
  private fd: number | null = null;
  private offset: number;
  private inode: number;
  /** The state last committed (what a failed commit goes back to). */
  private committed: FollowState;
  /** Inside a line longer than maxLineBytes: bytes up to the next newline are dropped. */
  private skippingLine = false;
  private buffer: Buffer;
  private watcher: FSWatcher | null = null;
  private disposed = false;

  constructor(o: TranscriptFollowerOptions) {
    this.path = o.path;
    this.parser = o.parser;
    this.commit = o.commit;
    this.interrupted = o.interrupted;
    this.scanMarkers = [...o.parser.markers, ...(o.parser.eventMarkers ?? [])];
    this.now = o.now ?? Date.now;
    this.sliceBytes = o.sliceBytes ?? 4 * 1024 * 1024;
    this.maxLineBytes = Math.max(this.sliceBytes, o.maxLineBytes ?? 64 * 1024 * 1024);
    this.commitEveryBytes = o.commitEveryBytes ?? 8 * 1024 * 1024;
    this.settleMs = o.settleMs ?? 500;
    this.lookTimer = new TimerSlot(o.clock ?? systemClock);
    this.buffer = Buffer.allocUnsafe(Math.min(this.sliceBytes, 64 * 1024));
    this.committed = o.state ?? { offset: 0, inode: 0, parser: undefined };
    this.offset = this.committed.offset;
    this.inode = this.committed.inode;
    if (o.state) this.parser.restore(o.state.parser);
  }

  state(): FollowState {
    return { offset: this.offset, inode: this.inode, parser: this.parser.save() };
  }

  /**
   * Reads what is new (at most one slice) and commits it. Returns true when more is waiting (call
   * again, after letting the loop run). A file that is not there yet is not an error: nothing to read.
   */
  look(): boolean {
    if (this.disposed) return false;
    if (!this.ensureOpen()) return false;
    const fd = this.fd!;
    const size = fstatSync(fd).size;
    if (size < this.offset) {
      // Truncated under us: what is there now is new.
      this.counters.truncations++;
      this.offset = 0;
      this.skippingLine = false;
    }
    if (size === this.offset) {
      // Read to the end of this inode: if the path now names another file, move on to it.
      if (this.rotated()) return this.look();
      return false;
    }
    return this.readSlice(fd, size);
  }

  /** Watches the file's folder and looks on each change there to this file's name (or an unnamed one). */
  watch(): Disposable {
    if (this.disposed || this.watcher) return toDisposable(() => this.unwatch());
    const name = basename(this.path);
    try {
      this.watcher = watch(dirname(this.path), { persistent: false }, (_event, file) => {
        if (file === null || file === name) this.lookSoon();
      });
      this.watcher.on('error', () => this.unwatch());
    } catch {
      // The folder is not there yet: the owner's look (when the row goes quiet) finds the file.
      this.watcher = null;
    }
    return toDisposable(() => this.unwatch());
  }

  /**
   * How long a watch event waits for the rest of its burst. Its owner shortens it during a turn (a line
   * that ends the turn is read promptly) and gives the default back after; a look already waiting longer
   * is brought forward.
   */
  setSettleMs(ms: number): void {
    const sooner = ms < this.settleMs;
    this.settleMs = ms;
    if (sooner && this.lookTimer.pending) this.lookTimer.set(() => this.lookOn(), ms);
  }

  get watching(): boolean {
    return this.watcher !== null;
  }

  dispose(): void {
    this.disposed = true;
    this.lookTimer.dispose();
    this.unwatch();
    this.closeFd();
  }

  /**
   * One look for a burst of watch events: an agent writes a response as several appends, and each
   * wakes the watch; the look waits `settleMs` from the first (never pushed back by later ones).
   * A backlog goes on a slice per turn of the event loop.
   */
  private lookSoon(): void {
    if (this.disposed) return;
    this.lookTimer.setIfIdle(() => this.lookOn(), this.settleMs);
  }

  private lookOn(): void {
    if (this.look()) setImmediate(() => this.lookOn());
  }

  private unwatch(): void {
    this.watcher?.close();
    this.watcher = null;
  }

  private ensureOpen(): boolean {
    if (this.fd !== null) return true;
    let fd: number;
    try {
      fd = openSync(this.path, NO_FOLLOW);
    } catch {
      return false;
    }
    const inode = fstatSync(fd).ino;
    if (this.inode !== 0 && inode !== this.inode) {
      // Not the file the saved offset belongs to (replaced while nobody watched): read it whole.
      this.counters.rotations++;
      this.offset = 0;
    }
    this.inode = inode;
    this.fd = fd;
    return true;
  }

  /** Whether the path now names another file than the open one; if so, switches to it at offset 0. */
  private rotated(): boolean {
    let ino: number;
    try {
      ino = statSync(this.path).ino;
    } catch {
      return false; // gone (being replaced): the old file is read out; wait for the new one
    }
    if (ino === this.inode) return false;
    this.counters.rotations++;
    this.closeFd();
    this.offset = 0;
    this.inode = 0;
    this.skippingLine = false;
    return this.ensureOpen();
  }

  private readSlice(fd: number, size: number): boolean {
    const want = Math.min(size - this.offset, this.sliceBytes);
    if (this.buffer.length < want) this.buffer = Buffer.allocUnsafe(want);
    let length = readSync(fd, this.buffer, 0, want, this.offset);
    let buf = this.buffer;
    // A line longer than the slice: read on until its end, up to maxLineBytes.
    while (!this.skippingLine && buf.lastIndexOf(10, length - 1) < 0 && this.offset + length < size && length < this.maxLineBytes) {
      const more = Math.min(size - this.offset, this.maxLineBytes, length * 2);
      const bigger = Buffer.allocUnsafe(more);
      buf.copy(bigger, 0, 0, length);
      length += readSync(fd, bigger, length, more - length, this.offset + length);
      buf = bigger;
    }
    const turns: UsageTurn[] = [];
    let limits: RateLimits | null = null;
    let start = 0;
    if (this.skippingLine) {
      // The rest of an oversized line: dropped up to its newline.
      const nl = buf.subarray(0, length).indexOf(10);
      if (nl < 0) return this.finishSlice(length, turns, limits, size);
      this.skippingLine = false;
      start = nl + 1;
    } else if (length >= this.maxLineBytes && buf.subarray(0, length).lastIndexOf(10) < 0) {
      this.counters.oversized++;
      this.skippingLine = true;
      return this.finishSlice(length, turns, limits, size);
    }
    const readAt = this.now();
    const interrupts: TurnInterrupt[] = [];
    const sink = { turn: (t: UsageTurn) => turns.push(t), limits: (l: RateLimits) => (limits = l), interrupted: (i: TurnInterrupt) => interrupts.push(i) };
    const view = start === 0 ? buf : buf.subarray(start, length);
    const consumed = scanCompleteLines(view, length - start, this.scanMarkers, (s, e) => {
      // A long line found only by an event marker is no event line (those are short): not parsed.
      if (e - s > EVENT_LINE_BYTES && !this.holdsUsageMarker(view, s, e)) {
        this.counters.oversized++;
        return;
      }
      this.counters.parsed++;
      let record: unknown;
      try {
        record = JSON.parse(view.toString('utf8', s, e));
      } catch {
        this.counters.malformed++;
        return;
      }
      const verdict: LineVerdict = this.parser.parse(record, readAt, sink);
      if (verdict === 'unknown') this.counters.unknown++;
    });
    const more = this.finishSlice(start + consumed, turns, limits, size);
    // Told once the slice is done (a failed commit reads it again, and tells it then).
    if (this.interrupted) for (const i of interrupts) this.interrupted(i);
    return more;
  }

  private holdsUsageMarker(view: Buffer, start: number, end: number): boolean {
    const line = view.subarray(start, end);
    return this.parser.markers.some((m) => line.includes(m));
  }

  private finishSlice(bytes: number, turns: UsageTurn[], limits: RateLimits | null, size: number): boolean {
    if (bytes === 0) return false; // a partial last line: wait for its end
    this.offset += bytes;
    const uncommitted = this.inode === this.committed.inode ? this.offset - this.committed.offset : this.offset;
    const more = this.offset < size;
    if (turns.length > 0 || limits !== null || uncommitted >= this.commitEveryBytes || (!more && uncommitted >= this.sliceBytes)) {
      const state = this.state();
      try {
        this.commit({ path: this.path, turns, limits, state, bytes: uncommitted });
      } catch (err) {
        this.offset = this.committed.offset;
        this.inode = this.committed.inode;
        this.parser.restore(this.committed.parser);
        throw err;
      }
      this.committed = state;
    }
    // More to read here, or read out while the path already names the next file.
    return more || this.pathMovedOn();
  }

  private pathMovedOn(): boolean {
    try {
      return statSync(this.path).ino !== this.inode;
    } catch {
      return false;
    }
  }

  private closeFd(): void {
    if (this.fd === null) return;
    try {
      closeSync(this.fd);
    } catch {
      // already closed
    }
    this.fd = null;
  }
}
