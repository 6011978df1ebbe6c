// The wake's loop guard: at most so many automatic wakes per row in a rolling hour, so two agents that
// keep mailing each other cannot keep each other typing. Its own job, apart from the state machine
// that asks it (wake-controller.ts).
const HOUR_MS = 60 * 60 * 1000;

export class WakeLoopGuard {
  private readonly wakeTimes: number[] = [];

  constructor(private readonly maxPerHour: number) {}

  /** The wakes in the hour up to `now`, when they reach the limit (no wake now); null when one may go. */
  held(now: number): number | null {
    while (this.wakeTimes.length > 0 && now - this.wakeTimes[0]! >= HOUR_MS) this.wakeTimes.shift();
    return this.wakeTimes.length >= this.maxPerHour ? this.wakeTimes.length : null;
  }

  /** A wake is typed now. */
  record(now: number): void {
    this.wakeTimes.push(now);
  }
}
