// When the read batches of rows nobody draws end (row.ts, HIDDEN_READ_MS). Each row's wait was its
// own timer, started at its own read: eight rows streaming in bursts woke the server eight times a
// period, each time to read one pty, and on these machines a wake of a node process costs ~180 µs
// of CPU before it does anything (an empty setTimeout loop, by /proc/self/schedstat; a bare C epoll
// loop, ~45). Here every wait ends at the same boundaries, multiples of the period on one
// clock: one timer for all of them, and the reads they release come back in one wake of the event
// loop, parsed in one turn of the scheduler.
import { holdingClock, type Clock } from '../util/clock.js';
import { toDisposable, type Disposable } from '../util/lifecycle.js';
import { TimerSlot } from '../util/timer-slot.js';

export class ReadBatchClock {
  private waiting = new Set<() => void>();
  private readonly tick: TimerSlot;

  constructor(
    readonly periodMs: number,
    private readonly clock: Clock = holdingClock,
  ) {
    this.tick = new TimerSlot(clock);
  }

  /**
   * Runs `end` at the next boundary (within periodMs). Disposing the result before then cancels it;
   * the clock's timer runs only while someone waits.
   */
  wait(end: () => void): Disposable {
    this.waiting.add(end);
    if (!this.tick.pending) {
      const now = this.clock.now();
      this.tick.set(this.fire, (Math.floor(now / this.periodMs) + 1) * this.periodMs - now);
    }
    return toDisposable(() => {
      this.waiting.delete(end);
      if (this.waiting.size === 0) this.tick.clear();
    });
  }

  private readonly fire = (): void => {
    const ends = [...this.waiting];
    this.waiting.clear();
    for (const end of ends) end();
  };
}
