// One pending timer an owner may have at a time: setting it again replaces the one before, and
// clear() or dispose() cancels it. It replaces the "timer = null" bookkeeping each owner wrote by
// hand (xterm.js's MutableDisposable is the model): the slot knows whether it is pending, so no
// owner keeps a handle, and no fired timer is left looking pending.
import { systemClock, type Clock } from './clock.js';
import type { Disposable } from './lifecycle.js';

export class TimerSlot implements Disposable {
  private pendingTimer: Disposable | null = null;
  private disposed = false;

  constructor(private readonly clock: Clock = systemClock) {}

  /** Runs `fn` after `ms`, cancelling whatever this slot held before. */
  set(fn: () => void, ms: number): void {
    this.clear();
    if (this.disposed) return;
    const timer = this.clock.setTimer(() => {
      if (this.pendingTimer === timer) this.pendingTimer = null;
      fn();
    }, ms);
    this.pendingTimer = timer;
  }

  /** Runs `fn` after `ms` unless a timer is already pending (the first request sets the time). */
  setIfIdle(fn: () => void, ms: number): void {
    if (this.pendingTimer === null) this.set(fn, ms);
  }

  get pending(): boolean {
    return this.pendingTimer !== null;
  }

  clear(): void {
    const timer = this.pendingTimer;
    this.pendingTimer = null;
    timer?.dispose();
  }

  dispose(): void {
    this.disposed = true;
    this.clear();
  }
}
