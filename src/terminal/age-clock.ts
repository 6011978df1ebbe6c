// Header ages ("now", "<1m", "5m", "3h") move with the clock. Rather than waking every second to
// see whether one changed, the clock wakes when the first of them would (nextAgeChange): a
// dashboard whose rows have all been quiet for minutes wakes once a minute, and one whose rows
// never printed not at all. New output makes a row's age "now", which may change sooner than the
// armed wake: `output` moves the wake earlier; `replan` reads every age again (a row exited).
import { nextAgeChange } from '../app/app-state.js';
import type { Disposable } from '../util/lifecycle.js';

export class AgeClock implements Disposable {
  private timer: NodeJS.Timeout | null = null;
  /** When the armed wake is due (Infinity: none armed). */
  private dueAt = Infinity;

  constructor(
    /** What every header's age counts from (0: never printed). */
    private readonly lastOutputs: () => Iterable<number>,
    /** An age may read differently now. */
    private readonly onTick: () => void,
    private readonly now: () => number = Date.now,
  ) {
    this.replan();
  }

  /** A row printed at `lastOutputAt`. */
  output(lastOutputAt: number): void {
    const due = nextAgeChange(lastOutputAt, this.now());
    if (due < this.dueAt) this.arm(due);
  }

  /** Reads every age again; the armed wake moves only if the first change moved. */
  replan(): void {
    const now = this.now();
    let due = Infinity;
    for (const at of this.lastOutputs()) due = Math.min(due, nextAgeChange(at, now));
    if (due !== this.dueAt) this.arm(due);
  }

  private arm(due: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.dueAt = due;
    if (due === Infinity) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.dueAt = Infinity;
      this.onTick();
      this.replan();
    }, Math.max(0, due - this.now()));
    this.timer.unref();
  }

  dispose(): void {
    this.arm(Infinity);
  }
}
