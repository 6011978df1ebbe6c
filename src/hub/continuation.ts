// A continuation: what a caller does with a value that comes later, handed to whoever produces it
// and called there, in the producer's own loop, instead of a promise whose reactions run a turn of
// the microtask queue later. The mail accept's hot path (issue #33) is a request's frame, the
// group commit and the answer: as continuations, a send costs no promise, no closures for its
// reactions and no microtask turn between its commit and its answer, as the floor hub's costs none.
// Everything else keeps its promises; `toPromise` bridges the two where a caller wants one.

export interface Continuation<T> {
  /** The value came. */
  resume(value: T): void;
  /** Producing it threw (or `resume` did: the producer then calls this once, for this caller alone). */
  fail(err: unknown): void;
}

/** Hands `value` to `c`; a `resume` that throws is that caller's failure, never the producer's. */
export function resumeSafely<T>(c: Continuation<T>, value: T): void {
  try {
    c.resume(value);
  } catch (err) {
    c.fail(err);
  }
}

/** A promise of what `start` hands its continuation (for callers that await). */
export function toPromise<T>(start: (c: Continuation<T>) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => start({ resume: resolve, fail: reject }));
}
