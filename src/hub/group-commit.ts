// Group commit: sends that arrive in the same turn of the event loop are stored in one
// transaction. While a commit's fsync blocks the loop, new requests pile up in the socket buffers
// and form the next, larger batch, so throughput grows with load instead of paying one fsync each.
import type { AcceptOutcome, AcceptRequest, MailStore } from '../store/mail-store.js';

export class GroupCommitter {
  private queue: AcceptRequest[] = [];
  private waiting: Array<(outcome: AcceptOutcome) => void> = [];
  private scheduled = false;
  /** Batch sizes, for the benchmark and tests. */
  batches = 0;
  committed = 0;

  constructor(
    private readonly store: MailStore,
    private readonly onCommitted: (request: AcceptRequest, outcome: AcceptOutcome) => void,
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
    const outcomes = this.store.acceptBatch(requests); // returns after the commit is durable
    this.batches += 1;
    this.committed += requests.length;
    for (let i = 0; i < requests.length; i++) {
      const outcome = outcomes[i]!;
      this.onCommitted(requests[i]!, outcome);
      resolvers[i]!(outcome);
    }
  };
}
