// Every store call of the hub passes this gate, so another process's lock on mail.db never
// freezes the hub. SQLite's own busy wait runs on the event loop, so it is kept to a few ms
// (BUSY_TIMEOUT_MS); when a call still finds the database locked, the gate closes: that call and
// every later one queue in order, and ONE timer probes the lock with the oldest queued call at
// growing intervals. Other clients' socket work goes on meanwhile (a full probe costs one short
// busy wait, not one per waiting client). A call that waited past its deadline fails with
// DB_LOCKED; nothing it would have written was written.
import { isBusyError } from '../store/store-error.js';

interface Queued {
  step: () => unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
  deadline: number;
}

/** Thrown (as the rejection) for a call that waited out its deadline; `cause` is SQLite's busy error. */
export class StoreLockedError extends Error {
  /** Classified like SQLite's own busy error (DB_LOCKED). */
  readonly code = 'SQLITE_BUSY';
  constructor(
    readonly waitedMs: number,
    busy: unknown,
  ) {
    super(`mail.db stayed locked for ${waitedMs} ms`, { cause: busy });
    this.name = 'StoreLockedError';
  }
}

const FIRST_PROBE_MS = 10;
const MAX_PROBE_MS = 250;

export class StoreGate {
  private readonly queue: Queued[] = [];
  private timer: NodeJS.Timeout | null = null;
  private probeMs = FIRST_PROBE_MS;
  private lastBusy: unknown = null;

  constructor(
    private readonly waitMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** True while the database is locked and calls are queued. */
  get closed(): boolean {
    return this.queue.length > 0;
  }

  /** Runs `step` now if the store is free, else after the calls queued before it. */
  run<T>(step: () => T): Promise<T> {
    if (this.queue.length === 0) {
      try {
        return Promise.resolve(step());
      } catch (err) {
        if (!isBusyError(err)) return Promise.reject(err);
        this.lastBusy = err;
      }
    }
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ step, resolve: resolve as (v: unknown) => void, reject, deadline: this.now() + this.waitMs });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.timer || this.queue.length === 0) return;
    // Never sleep past the earliest deadline: a call is answered DB_LOCKED on time, not a probe later.
    const untilDeadline = Math.min(...this.queue.map((q) => q.deadline)) - this.now();
    this.timer = setTimeout(() => this.probe(), Math.max(0, Math.min(this.probeMs, untilDeadline)));
  }

  private probe(): void {
    this.timer = null;
    while (this.queue.length > 0) {
      const head = this.queue[0]!;
      try {
        const value = head.step();
        this.queue.shift();
        head.resolve(value);
        this.probeMs = FIRST_PROBE_MS;
      } catch (err) {
        if (!isBusyError(err)) {
          this.queue.shift();
          head.reject(err);
          continue;
        }
        this.lastBusy = err;
        this.expire();
        this.probeMs = Math.min(this.probeMs * 2, MAX_PROBE_MS);
        break;
      }
    }
    this.schedule();
  }

  /** Fails every queued call whose deadline passed (all of them, in order, not only the head). */
  private expire(): void {
    const now = this.now();
    for (let i = 0; i < this.queue.length; ) {
      const q = this.queue[i]!;
      if (q.deadline <= now) {
        this.queue.splice(i, 1);
        q.reject(new StoreLockedError(this.waitMs, this.lastBusy));
      } else i += 1;
    }
  }

  /** Fails everything still queued (the hub is stopping). */
  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    for (const q of this.queue.splice(0)) q.reject(new StoreLockedError(0, this.lastBusy));
  }
}
