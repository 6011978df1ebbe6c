// Group commit: sends that arrive in the same turn of the event loop are stored in one
// transaction. While a commit's fsync blocks the loop, new requests pile up in the socket buffers
// and form the next, larger batch, so throughput grows with load instead of paying one fsync each.
// Under another process's lock the batch waits in the store gate (in order, behind earlier
// batches) instead of blocking the loop; a commit that fails fails every request of its batch
// with the same typed error, and nothing of it is stored.
//
// Each request brings its continuation (continuation.ts): it runs in the commit's own loop, right
// after the fan-out, with the request's outcome. A send therefore costs no promise between its
// frame and its answer, and its answer leaves in the same turn as its commit (issue #33: the hot
// path of a mail accept). `submit` gives a promise, for callers that await.
import type { SwbErrorValue } from '../protocol/error-codes.js';
import type { AcceptOutcome, AcceptRequest, MailStore } from '../store/mail-store.js';
import { resumeSafely, toPromise, type Continuation } from './continuation.js';
import type { StoreGate } from './store-gate.js';

export class GroupCommitter {
  private queue: AcceptRequest[] = [];
  private waiting: Continuation<AcceptOutcome>[] = [];
  private scheduled = false;
  /** Batch sizes, for the benchmark and tests. */
  batches = 0;
  committed = 0;

  constructor(
    private readonly store: MailStore,
    private readonly gate: StoreGate,
    private readonly onCommitted: (request: AcceptRequest, outcome: AcceptOutcome) => void,
    private readonly failure: (err: unknown) => SwbErrorValue,
  ) {}

  /** Queues `request` for the next commit; `then` gets its outcome in the commit's loop, after the fan-out. */
  submitThen(request: AcceptRequest, then: Continuation<AcceptOutcome>): void {
    this.queue.push(request);
    this.waiting.push(then);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flush);
    }
  }

  /** Queues `request` for the next commit; the promise settles with `finish(outcome)` (rejects if `finish` throws). */
  submit<T>(request: AcceptRequest, finish: (outcome: AcceptOutcome) => T): Promise<T> {
    return toPromise<T>((c) => this.submitThen(request, { resume: (outcome) => c.resume(finish(outcome)), fail: c.fail }));
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    const requests = this.queue;
    const waiting = this.waiting;
    this.queue = [];
    this.waiting = [];
    if (requests.length === 0) return;
    // acceptBatch returns after the commit is durable; the batch hears of it at once when the store was free.
    this.gate.runThen(() => this.store.acceptBatch(requests), new CommittedBatch(this, requests, waiting));
  };

  /** A batch's commit returned: each request to the fan-out, then to its own continuation, in order. */
  committedBatch(requests: readonly AcceptRequest[], waiting: readonly Continuation<AcceptOutcome>[], outcomes: readonly AcceptOutcome[]): void {
    this.batches += 1;
    this.committed += requests.length;
    for (let i = 0; i < requests.length; i++) {
      const outcome = outcomes[i]!;
      this.onCommitted(requests[i]!, outcome);
      resumeSafely(waiting[i]!, outcome);
    }
  }

  /** A batch's commit failed: nothing of it is stored, and every request of it is told so. */
  failedBatch(waiting: readonly Continuation<AcceptOutcome>[], err: unknown): void {
    const error = this.failure(err);
    for (const w of waiting) resumeSafely(w, { ok: false, error });
  }
}

/** One batch's continuation at the store gate (one object a batch, not a closure for each outcome). */
class CommittedBatch implements Continuation<AcceptOutcome[]> {
  constructor(
    private readonly committer: GroupCommitter,
    private readonly requests: readonly AcceptRequest[],
    private readonly waiting: readonly Continuation<AcceptOutcome>[],
  ) {}

  resume(outcomes: AcceptOutcome[]): void {
    this.committer.committedBatch(this.requests, this.waiting, outcomes);
  }

  fail(err: unknown): void {
    this.committer.failedBatch(this.waiting, err);
  }
}
