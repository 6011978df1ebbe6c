// A manual clock for timing logic: timers run only when the test advances time.
import type { Clock } from '../../src/util/clock.js';
import { toDisposable, type Disposable } from '../../src/util/lifecycle.js';

interface Timer {
  at: number;
  seq: number;
  fn: () => void;
  live: boolean;
}

export class FakeClock implements Clock {
  private t: number;
  private seq = 0;
  private timers: Timer[] = [];

  constructor(start = 1_000_000) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  setTimer(fn: () => void, ms: number): Disposable {
    const timer: Timer = { at: this.t + Math.max(0, ms), seq: this.seq++, fn, live: true };
    this.timers.push(timer);
    return toDisposable(() => {
      timer.live = false;
    });
  }

  /** Moves time forward, running every timer that falls due, in order (timers may add timers). */
  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      this.timers = this.timers.filter((x) => x.live);
      const next = this.timers.filter((x) => x.at <= end).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!next) break;
      this.t = Math.max(this.t, next.at);
      next.live = false;
      next.fn();
    }
    this.t = end;
  }

  get pendingTimers(): number {
    return this.timers.filter((x) => x.live).length;
  }
}
