// Typed events as functions: `onThing(listener)` returns a Disposable that removes exactly that listener.
import { type Disposable, toDisposable } from './lifecycle.js';

export type Event<T> = (listener: (value: T) => void) => Disposable;

export class Emitter<T> {
  private listeners = new Set<(value: T) => void>();

  readonly event: Event<T> = (listener) => {
    this.listeners.add(listener);
    return toDisposable(() => this.listeners.delete(listener));
  };

  fire(value: T): void {
    for (const listener of [...this.listeners]) listener(value);
  }

  get size(): number {
    return this.listeners.size;
  }

  dispose(): void {
    this.listeners.clear();
  }
}
