// Header ages ("now", "<1m", "5m", "3h") move with the clock. Rather than waking every second to
// see whether one changed, the clock wakes when the first of them would (nextAgeChange): a
// dashboard whose rows have all been quiet for minutes wakes once a minute, and one whose rows
// never printed not at all. New output makes a row's age "now", which may change sooner than the
// armed wake: `output` moves the wake earlier; `replan` reads every age again (a row exited).
import { nextAgeChange } from '../app/app-state.js';
import { systemClock, type Clock } from '../util/clock.js';
import type { Disposable } from '../util/lifecycle.js';
import { TimerSlot } from '../util/timer-slot.js';

export class AgeClock implements Disposable {
  private readonly wake: TimerSlot;
  /** When the armed wake is due (Infinity: none armed). */
  private dueAt = Infinity;

  constructor(
    /** What every header's age counts from (0: never printed). */
    private readonly lastOutputs: () => Iterable<number>,
    /** An age may read differently now. */
    private readonly onTick: () => void,
    private readonly clock: Clock = systemClock,
  ) {
    this.wake = new TimerSlot(clock);
    this.replan();
  }

  /** A row printed at `lastOutputAt`. */
  output(lastOutputAt: number): void {
    const due = nextAgeChange(lastOutputAt, this.clock.now());
    if (due < this.dueAt) this.arm(due);
  }

  /** Reads every age again; the armed wake moves only if the first change moved. */
  replan(): void {
    const now = this.clock.now();
    let due = Infinity;
    for (const at of this.lastOutputs()) due = Math.min(due, nextAgeChange(at, now));
    if (due !== this.dueAt) this.arm(due);
  }

  /** The clock's timers do not hold the event loop: an age label never keeps a process alive. */
  private arm(due: number): void {
    this.wake.clear();
    this.dueAt = due;
    if (due === Infinity) return;
    this.wake.set(this.woke, due - this.clock.now());
  }

  private readonly woke = (): void => {
    this.dueAt = Infinity;
    this.onTick();
    this.replan();
  };

  dispose(): void {
    this.arm(Infinity);
    this.wake.dispose();
  }
}
