// Shares parse time fairly between rows and with the rest of the event loop. Left alone, each
// xterm parses for up to 12 ms per timer callback and all due timers run back to back, so eight
// flooding rows hold the loop for about 100 ms at a time and keystrokes wait behind them. Here
// each row hands its emulator at most its share of a per-turn byte budget, and asks again only
// after that share was parsed: the next share goes out in a later check phase, after the poll
// phase has had its chance to deliver input.
import { holdingClock, type Clock } from '../util/clock.js';
import { TimerSlot } from '../util/timer-slot.js';

export interface ParseClient {
  /** Hand up to about `budget` more bytes to the emulator (a chunk is never split). */
  feed(budget: number): void;
}

export interface ParseSchedulerOptions {
  /** Bytes all rows together may hand over per event-loop turn (default 256 KiB, ~10 ms of parsing). */
  bytesPerTurn?: number;
  /** A row's share never drops below this, however many rows are busy (default 16 KiB). */
  minSliceBytes?: number;
  /** Times yieldOnce's wait (default: the system clock). */
  clock?: Clock;
}

export class ParseScheduler {
  private readonly bytesPerTurn: number;
  private readonly minSliceBytes: number;
  private waiting: ParseClient[] = [];
  private scheduled = false;
  /** While pending, turns wait (yieldOnce): the timer that ends the wait. */
  private readonly hold: TimerSlot;
  /** A turn came due during the hold: it runs when the hold ends. */
  private dueAfterHold = false;

  constructor(options: ParseSchedulerOptions = {}) {
    this.bytesPerTurn = options.bytesPerTurn ?? 256 * 1024;
    this.minSliceBytes = options.minSliceBytes ?? 16 * 1024;
    this.hold = new TimerSlot(options.clock ?? holdingClock);
  }

  /** Asks for a turn; `client.feed` runs in a later check phase (setImmediate). */
  request(client: ParseClient): void {
    this.waiting.push(client);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.run);
    }
  }

  /**
   * Turns that come due now wait for a timer (>= 1 ms), so the event loop blocks in epoll before
   * it parses: an attached row's keystroke or echo was just written, and Linux hands a pty write
   * to its reader through a kernel worker that often waits for this very CPU. Parsing the other
   * rows first held the keystroke back from the program, and the echo from the operator, by as
   * long (`npm run bench:render -- --only=echo-under-load --sched` shows the hops).
   */
  yieldOnce(): void {
    this.hold.setIfIdle(this.endHold, 0);
  }

  private readonly endHold = (): void => {
    if (!this.dueAfterHold) return;
    this.dueAfterHold = false;
    this.run();
  };

  private readonly run = (): void => {
    if (this.hold.pending) {
      this.dueAfterHold = true;
      return;
    }
    this.scheduled = false;
    const clients = this.waiting;
    this.waiting = [];
    const share = Math.max(this.minSliceBytes, Math.floor(this.bytesPerTurn / clients.length));
    for (const client of clients) client.feed(share);
  };
}

/** The scheduler rows share unless given their own. */
export const sharedParseScheduler = new ParseScheduler();
