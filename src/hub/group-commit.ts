// Group commit: sends that arrive in the same turn of the event loop are stored in one
// transaction. While a commit's fsync blocks the loop, new requests pile up in the socket buffers
// and form the next, larger batch, so throughput grows with load instead of paying one fsync each.
// Under another process's lock the batch waits in the store gate (in order, behind earlier
// batches) instead of blocking the loop; a commit that fails fails every request of its batch
// with the same typed error, and nothing of it is stored.
import type { SwbErrorValue } from '../protocol/error-codes.js';
import type { AcceptOutcome, AcceptRequest, MailStore } from '../store/mail-store.js';
import type { StoreGate } from './store-gate.js';

export class GroupCommitter {
  private queue: AcceptRequest[] = [];
  private waiting: Array<(outcome: AcceptOutcome) => void> = [];
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

  submit(request: AcceptRequest): Promise<AcceptOutcome> {
    return new Promise((resolve) => {
      this.queue.push(request);
      this.waiting.push(resolve);
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(this.flush);
      }
    });
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    const requests = this.queue;
    const resolvers = this.waiting;
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
          resolvers[i]!(outcome);
        }
      },
      (err: unknown) => {
        const error = this.failure(err);
        for (const resolve of resolvers) resolve({ ok: false, error });
      },
    );
  };
}
