// Group commit: sends that arrive in the same turn of the event loop are stored in one
// transaction. While a commit's fsync blocks the loop, new requests pile up in the socket buffers
// and form the next, larger batch, so throughput grows with load instead of paying one fsync each.
// Under another process's lock the batch waits in the store gate (in order, behind earlier
// batches) instead of blocking the loop; a commit that fails fails every request of its batch
// with the same typed error, and nothing of it is stored.
//
// Each request brings what its caller makes of the outcome (`finish`): it runs in the commit's own
// loop, right after the fan-out, and settles the one promise the request has. A send therefore
// costs one promise and one turn of the microtask queue between its commit and its answer, not a
// chain of awaits (issue #33: the hot path of a mail accept).
import type { SwbErrorValue } from '../protocol/error-codes.js';
import type { AcceptOutcome, AcceptRequest, MailStore } from '../store/mail-store.js';
import type { StoreGate } from './store-gate.js';

interface Waiting {
  finish: (outcome: AcceptOutcome) => unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

export class GroupCommitter {
  private queue: AcceptRequest[] = [];
  private waiting: Waiting[] = [];
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

  /** Queues `request` for the next commit; the promise settles with `finish(outcome)` (rejects if `finish` throws). */
  submit<T>(request: AcceptRequest, finish: (outcome: AcceptOutcome) => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push(request);
      this.waiting.push({ finish, resolve: resolve as (value: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(this.flush);
      }
    });
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    const requests = this.queue;
    const waiting = this.waiting;
    this.queue = [];
    this.waiting = [];
    if (requests.length === 0) return;
    // acceptBatch returns after the commit is durable.
    this.gate.run(() => this.store.acceptBatch(requests)).then(
      (outcomes) => {
        this.batches += 1;
        this.committed += requests.length;
        for (let i = 0; i < requests.length; i++) {
          const outcome = outcomes[i]!;
          this.onCommitted(requests[i]!, outcome);
          settle(waiting[i]!, outcome);
        }
      },
      (err: unknown) => {
        const error = this.failure(err);
        for (const w of waiting) settle(w, { ok: false, error });
      },
    );
  };
}

/** One request's answer; a `finish` that throws fails that request alone, not the rest of the batch. */
function settle(w: Waiting, outcome: AcceptOutcome): void {
  try {
    w.resolve(w.finish(outcome));
  } catch (err) {
    w.reject(err);
  }
}
