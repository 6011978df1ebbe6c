// Runs a callback once things have been quiet for a while, but never later than a bound after the
// first poke: `poke()` on every event, the callback runs `quietMs` after the last poke or `maxMs`
// after the first unanswered one, whichever comes first. The attached row's full repaint uses it, so
// that safety net runs between keystrokes rather than in the middle of a burst of them.
import type { Disposable } from './lifecycle.js';

export class QuietTimer implements Disposable {
  private timer: NodeJS.Timeout | null = null;
  private firstPokeAt = 0;
  private lastPokeAt = 0;

  constructor(
    private readonly quietMs: number,
    private readonly maxMs: number,
    private readonly fn: () => void,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Something happened: (re)start the quiet wait, bounded by maxMs since the first poke. A poke
   * only notes the time (it comes with every keystroke's paint); the timer, armed once, looks at
   * that when it fires and waits out the rest.
   */
  poke(): void {
    const now = this.now();
    this.lastPokeAt = now;
    if (this.timer !== null) return;
    this.firstPokeAt = now;
    this.arm(Math.min(this.quietMs, this.maxMs));
  }

  private arm(wait: number): void {
    this.timer = setTimeout(() => {
      this.timer = null;
      const due = Math.min(this.lastPokeAt + this.quietMs, this.firstPokeAt + this.maxMs);
      const left = due - this.now();
      if (left > 0) this.arm(left);
      else this.fn();
    }, wait);
  }

  /** Forget the pending run (what it was for has been done another way). */
  cancel(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  get pending(): boolean {
    return this.timer !== null;
  }

  dispose(): void {
    this.cancel();
  }
}
