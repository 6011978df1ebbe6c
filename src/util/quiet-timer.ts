// Runs a callback once things have been quiet for a while, but never later than a bound after the
// first poke: `poke()` on every event, the callback runs `quietMs` after the last poke or `maxMs`
// after the first unanswered one, whichever comes first. The attached row's full repaint uses it, so
// that safety net runs between keystrokes rather than in the middle of a burst of them.
import { systemClock, type Clock } from './clock.js';
import type { Disposable } from './lifecycle.js';
import { TimerSlot } from './timer-slot.js';

export class QuietTimer implements Disposable {
  private readonly timer: TimerSlot;
  private firstPokeAt = 0;
  private lastPokeAt = 0;

  constructor(
    private readonly quietMs: number,
    private readonly maxMs: number,
    private readonly fn: () => void,
    private readonly clock: Clock = systemClock,
  ) {
    this.timer = new TimerSlot(clock);
  }

  /**
   * Something happened: (re)start the quiet wait, bounded by maxMs since the first poke. A poke
   * only notes the time (it comes with every keystroke's paint); the timer, armed once, looks at
   * that when it fires and waits out the rest.
   */
  poke(): void {
    const now = this.clock.now();
    this.lastPokeAt = now;
    if (this.timer.pending) return;
    this.firstPokeAt = now;
    this.arm(Math.min(this.quietMs, this.maxMs));
  }

  private arm(wait: number): void {
    this.timer.set(this.due, wait);
  }

  private readonly due = (): void => {
    const due = Math.min(this.lastPokeAt + this.quietMs, this.firstPokeAt + this.maxMs);
    const left = due - this.clock.now();
    if (left > 0) this.arm(left);
    else this.fn();
  };

  /** Forget the pending run (what it was for has been done another way). */
  cancel(): void {
    this.timer.clear();
  }

  get pending(): boolean {
    return this.timer.pending;
  }

  dispose(): void {
    this.timer.dispose();
  }
}
