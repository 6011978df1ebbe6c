// One tiny lifecycle helper low in the import graph: every owner registers what it starts
// (sockets, timers, listeners, child processes) and releases all of it in one dispose().

export interface Disposable {
  dispose(): void;
}

export function toDisposable(fn: () => void): Disposable {
  let done = false;
  return {
    dispose() {
      if (done) return;
      done = true;
      fn();
    },
  };
}

/** Disposes in reverse registration order; errors in one child do not stop the others. */
export class DisposableStore implements Disposable {
  private readonly items: Disposable[] = [];
  private disposedFlag = false;

  get disposed(): boolean {
    return this.disposedFlag;
  }

  add<T extends Disposable>(item: T): T {
    if (this.disposedFlag) {
      item.dispose();
      return item;
    }
    this.items.push(item);
    return item;
  }

  readonly dispose = (): void => {
    if (this.disposedFlag) return;
    this.disposedFlag = true;
    const errors: unknown[] = [];
    while (this.items.length > 0) {
      const item = this.items.pop()!;
      try {
        item.dispose();
      } catch (err) {
        errors.push(err);
      }
    }
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) throw new AggregateError(errors, 'several disposables failed');
  };
}
