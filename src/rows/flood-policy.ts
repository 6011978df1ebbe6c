// When a row's plain flood waits unparsed. A row that is not attached lets a flood of plain lines
// gather while it keeps coming, for at most maxDeferMs, so the fast-forward (fast-forward.ts) has
// lines to cut rather than parsing each; anything else (escape sequences, a few lines, the end of
// a flood) is parsed at once. The same clock says when output went quiet (a flood ended), which is
// when a screen is worth showing at once. Time comes from the injected Clock, so the rule is
// tested exactly with a fake one.
import { holdingClock, type Clock } from '../util/clock.js';
import type { Disposable } from '../util/lifecycle.js';
import { TimerSlot } from '../util/timer-slot.js';
import type { ParseQueue } from './parse-queue.js';

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
export const FLOOD_GAP_MS = 15;
/** A plain backlog smaller than this (and under a screenful of lines) is parsed at once: not a flood. */
const DEFER_MIN_BYTES = 4096;

export class FloodPolicy implements Disposable {
  /** Clock time of the last write. */
  private lastWriteAt = 0;
  /** The row stopped reading its pty after the last write (inputPaused): no more can come for now. */
  private paused = false;
  private readonly waitOver: TimerSlot;

  /** `onWaitOver` runs when a flood's wait ends: ask for a parse turn then. */
  constructor(
    private readonly onWaitOver: () => void,
    private readonly clock: Clock = holdingClock,
    private readonly maxDeferMs: number = MAX_DEFER_MS,
  ) {
    this.waitOver = new TimerSlot(clock);
  }

  /** Output arrived; returns the clock time it is stamped with. */
  noteWrite(): number {
    this.paused = false;
    return (this.lastWriteAt = this.clock.now());
  }

  /**
   * The row stopped reading its pty for a while (a row nobody draws reads in batches): a flood's
   * wait for more output would wait for output that cannot come, and cost the event loop a wake
   * of its own; what waits is parsed at its next turn. The next write ends this.
   */
  inputPaused(): void {
    this.paused = true;
  }

  /** Nothing was written for FLOOD_GAP_MS: the program paused, or a flood ended. */
  get quietNow(): boolean {
    return this.clock.now() - this.lastWriteAt >= FLOOD_GAP_MS;
  }

  /**
   * Whether the waiting output is a plain flood that is still coming (output within the last
   * FLOOD_GAP_MS, the oldest waiting less than maxDeferMs): then it waits, and onWaitOver runs
   * when its wait ends. `screenRows` is the screen's height. The caller rules out an attached row.
   */
  holds(queue: ParseQueue, screenRows: number): boolean {
    if (queue.notPlain > 0 || queue.isBackedUp || this.paused) return false;
    const head = queue.oldest;
    if (head === undefined) return false;
    if (queue.lineEnds < screenRows && queue.pending < DEFER_MIN_BYTES) return false;
    const now = this.clock.now();
    const deadline = Math.min(head.at + this.maxDeferMs, this.lastWriteAt + FLOOD_GAP_MS);
    if (now >= deadline) return false;
    this.waitOver.setIfIdle(this.onWaitOver, Math.max(1, Math.ceil(deadline - now)));
    return true;
  }

  dispose(): void {
    this.waitOver.dispose();
  }
}
