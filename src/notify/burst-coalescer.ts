// One notification for a burst. Per key (the notifier uses channel + row + kind), the first item
// goes out at once and opens a window; what arrives inside it is held, the newest replacing the
// one before, and goes out when the window closes, saying how many items it stands for; that
// opens the next window. The window is read from the clock's time, so an item after it passes goes
// out at once even if the timer that would have closed it has not run yet. Times come from the
// injected Clock and each key's pending flush is one TimerSlot.
import { systemClock, type Clock } from '../util/clock.js';
import type { Disposable } from '../util/lifecycle.js';
import { TimerSlot } from '../util/timer-slot.js';

interface Burst<T> {
  windowEnd: number;
  pending: T | null;
  /** Items the pending one stands for. */
  count: number;
  flush: TimerSlot;
}

export class BurstCoalescer<T> implements Disposable {
  private readonly bursts = new Map<string, Burst<T>>();

  /** `emit(item, count)`: count is how many items this one stands for (1 unless coalesced). */
  constructor(
    private readonly windowMs: () => number,
    private readonly emit: (item: T, count: number) => void,
    private readonly clock: Clock = systemClock,
  ) {}

  offer(key: string, item: T): void {
    const now = this.clock.now();
    const burst = this.bursts.get(key);
    if (!burst || now >= burst.windowEnd) {
      // A window closed late (its timer not run yet) still counts what it held.
      const count = burst?.pending != null ? burst.count + 1 : 1;
      burst?.flush.clear();
      this.bursts.set(key, { windowEnd: now + this.windowMs(), pending: null, count: 0, flush: burst?.flush ?? new TimerSlot(this.clock) });
      this.emit(item, count);
      return;
    }
    burst.pending = item;
    burst.count += 1;
    burst.flush.setIfIdle(() => this.close(key), burst.windowEnd - now);
  }

  /** Items held for `key` (0 when nothing waits). */
  held(key: string): number {
    return this.bursts.get(key)?.count ?? 0;
  }

  /** Drops what is held for keys `drop` accepts (a row muted: its held notifications never come). */
  forget(drop: (key: string) => boolean): void {
    for (const [key, burst] of this.bursts) {
      if (!drop(key)) continue;
      burst.flush.dispose();
      this.bursts.delete(key);
    }
  }

  private close(key: string): void {
    const burst = this.bursts.get(key);
    if (!burst || burst.pending === null) return;
    const { pending, count } = burst;
    burst.pending = null;
    burst.count = 0;
    burst.windowEnd = this.clock.now() + this.windowMs();
    this.emit(pending, count);
  }

  dispose(): void {
    for (const burst of this.bursts.values()) burst.flush.dispose();
    this.bursts.clear();
  }
}
