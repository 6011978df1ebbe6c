// Typed events as functions: `onThing(listener)` returns a Disposable that removes exactly that listener.
import { type Disposable, toDisposable } from './lifecycle.js';

export type Event<T> = (listener: (value: T) => void) => Disposable;

export class Emitter<T> {
  private listeners = new Set<(value: T) => void>();
  /**
   * The listeners as an array, made again only after one was added or removed: a fire calls the
   * listeners there were when it began, and the hot events (a row's output, a keystroke) fire
   * without copying the set each time.
   */
  private snapshot: ReadonlyArray<(value: T) => void> | null = null;

  readonly event: Event<T> = (listener) => {
    this.listeners.add(listener);
    this.snapshot = null;
    return toDisposable(() => {
      if (this.listeners.delete(listener)) this.snapshot = null;
    });
  };

  fire(value: T): void {
    const listeners = (this.snapshot ??= [...this.listeners]);
    for (let i = 0; i < listeners.length; i++) listeners[i]!(value);
  }

  get size(): number {
    return this.listeners.size;
  }

  dispose(): void {
    this.listeners.clear();
    this.snapshot = null;
  }
}
