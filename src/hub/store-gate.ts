// Every store call of the hub passes this gate, so another process's lock on mail.db never
// freezes the hub. SQLite's own busy wait runs on the event loop, so it is kept to a few ms
// (BUSY_TIMEOUT_MS); when a call still finds the database locked, the gate closes: that call and
// every later one queue in order, and ONE timer probes the lock with the oldest queued call at
// growing intervals. Other clients' socket work goes on meanwhile (a full probe costs one short
// busy wait, not one per waiting client). A call that waited past its deadline fails with
// DB_LOCKED; nothing it would have written was written.
//
// A burst of small writes made in one go (a launch of many rows: each registers its handle and
// records its spec) can share one commit, i.e. one fsync, in a batch (`batch`): the calls run as
// they come, each in a savepoint of its own (it succeeds or fails alone, as it would outside), and
// each promise settles only once the commit did — a failed commit fails them all.
import { isBusyError } from '../store/store-error.js';
import type { Continuation } from './continuation.js';
import { systemClock, type Clock } from '../util/clock.js';
import { TimerSlot } from '../util/timer-slot.js';

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

/** What a batch needs of the database: better-sqlite3's. */
export interface BatchDatabase {
  exec(sql: string): unknown;
  readonly inTransaction: boolean;
  /** Wraps `fn` in a transaction; inside an open one, in a savepoint. */
  transaction(fn: () => unknown): () => unknown;
}

interface Batched {
  value: unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

interface OpenBatch {
  settled: Batched[];
  /** SQLite rolled the whole transaction back (a full disk does): what the batch wrote is gone. */
  lost: unknown;
}

const FIRST_PROBE_MS = 10;
const MAX_PROBE_MS = 250;

export class StoreGate {
  private readonly queue: Queued[] = [];
  /** The one probe timer, pending while calls are queued. */
  private readonly probeTimer: TimerSlot;
  private probeMs = FIRST_PROBE_MS;
  private lastBusy: unknown = null;
  private open: OpenBatch | null = null;

  constructor(
    private readonly waitMs: number,
    private readonly clock: Clock = systemClock,
    /** The database batches commit to; without it, `batch` only runs its work. */
    private readonly db?: BatchDatabase,
    /** A batch's commit failed: what the store keeps in memory of its writes must be read again. */
    private readonly onBatchLost: (err: unknown) => void = () => undefined,
  ) {
    this.probeTimer = new TimerSlot(clock);
  }

  /** True while the database is locked and calls are queued. */
  get closed(): boolean {
    return this.queue.length > 0;
  }

  /** Runs `step` now if the store is free, else after the calls queued before it. */
  run<T>(step: () => T): Promise<T> {
    if (this.open && this.open.lost === null) return this.inBatch(this.open, step);
    if (this.queue.length === 0) {
      try {
        return Promise.resolve(step());
      } catch (err) {
        if (!isBusyError(err)) return Promise.reject(err);
        this.lastBusy = err;
      }
    }
    return this.enqueue(step);
  }

  /**
   * `run` with a continuation (continuation.ts) instead of a promise: when the store is free, `step`
   * runs now and `then` hears of it at once, in this turn (the group commit's way to its answers,
   * issue #33). Locked, queued or inside a batch, it waits as `run` does. `then.resume` must not throw.
   */
  runThen<T>(step: () => T, then: Continuation<T>): void {
    if (this.open === null && this.queue.length === 0) {
      let value: T;
      try {
        value = step();
      } catch (err) {
        if (!isBusyError(err)) {
          then.fail(err);
          return;
        }
        this.lastBusy = err;
        this.enqueue(step).then(
          (v) => then.resume(v),
          (e: unknown) => then.fail(e),
        );
        return;
      }
      then.resume(value);
      return;
    }
    this.run(step).then(
      (v) => then.resume(v),
      (e: unknown) => then.fail(e),
    );
  }

  /** Queues `step` behind the calls already waiting for the lock. */
  private enqueue<T>(step: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ step, resolve: resolve as (v: unknown) => void, reject, deadline: this.clock.now() + this.waitMs });
      this.schedule();
    });
  }

  /**
   * Runs `work` (synchronous) with the store calls it makes sharing one transaction, committed when
   * it returns or throws. A locked or busy database (or a batch already open) runs it plainly.
   */
  batch<T>(work: () => T): T {
    const db = this.db;
    if (!db || this.open || this.queue.length > 0 || db.inTransaction) return work();
    try {
      db.exec('BEGIN IMMEDIATE');
    } catch {
      return work(); // locked by another process (or worse): each call goes through the gate alone
    }
    const open: OpenBatch = { settled: [], lost: null };
    this.open = open;
    try {
      return work();
    } finally {
      this.open = null;
      this.commit(db, open);
    }
  }

  private inBatch<T>(open: OpenBatch, step: () => T): Promise<T> {
    const db = this.db!;
    return new Promise<T>((resolve, reject) => {
      let value: T;
      try {
        value = db.transaction(step)() as T;
      } catch (err) {
        if (!db.inTransaction) open.lost = err;
        reject(err);
        return;
      }
      if (!db.inTransaction) {
        // A step that caught SQLite's own error (a full disk ends the transaction) may still return:
        // what it and the batch wrote is gone, and must not be reported stored.
        open.lost = new Error('the batch transaction ended inside a store call');
        reject(open.lost);
        return;
      }
      open.settled.push({ value, resolve: resolve as (v: unknown) => void, reject });
    });
  }

  private commit(db: BatchDatabase, open: OpenBatch): void {
    let failure = open.lost;
    if (failure === null) {
      try {
        db.exec('COMMIT');
      } catch (err) {
        failure = err;
      }
    }
    if (failure !== null && db.inTransaction) {
      try {
        db.exec('ROLLBACK');
      } catch {
        // nothing more to undo
      }
    }
    for (const b of open.settled) {
      if (failure === null) b.resolve(b.value);
      else b.reject(failure);
    }
    if (failure !== null) this.onBatchLost(failure);
  }

  private schedule(): void {
    if (this.probeTimer.pending || this.queue.length === 0) return;
    // Never sleep past the earliest deadline: a call is answered DB_LOCKED on time, not a probe later.
    const untilDeadline = Math.min(...this.queue.map((q) => q.deadline)) - this.clock.now();
    this.probeTimer.set(this.probe, Math.min(this.probeMs, untilDeadline));
  }

  private readonly probe = (): void => {
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
  };

  /** Fails every queued call whose deadline passed (all of them, in order, not only the head). */
  private expire(): void {
    const now = this.clock.now();
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
    this.probeTimer.clear();
    for (const q of this.queue.splice(0)) q.reject(new StoreLockedError(0, this.lastBusy));
  }
}
