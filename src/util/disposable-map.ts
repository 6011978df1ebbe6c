// A map whose values are released with their keys: set() disposes the value it replaces, delete()
// the one it removes, dispose() all of them. The per-row registries (a row's listeners, its agent,
// its watchers) are this shape, and each wrote the get-dispose-delete dance by hand.
import type { Disposable } from './lifecycle.js';

export class DisposableMap<K, V extends Disposable> implements Disposable {
  private readonly map = new Map<K, V>();
  private disposed = false;

  set(key: K, value: V): V {
    if (this.disposed) {
      value.dispose();
      return value;
    }
    const before = this.map.get(key);
    this.map.set(key, value);
    if (before !== undefined && before !== value) before.dispose();
    return value;
  }

  get(key: K): V | undefined {
    return this.map.get(key);
  }

  has(key: K): boolean {
    return this.map.has(key);
  }

  /** Removes and disposes the value under `key`; says whether there was one. */
  delete(key: K): boolean {
    const value = this.map.get(key);
    if (value === undefined) return false;
    this.map.delete(key);
    value.dispose();
    return true;
  }

  get size(): number {
    return this.map.size;
  }

  keys(): IterableIterator<K> {
    return this.map.keys();
  }

  values(): IterableIterator<V> {
    return this.map.values();
  }

  /** Disposes every value, each even if one before it threw. */
  dispose(): void {
    this.disposed = true;
    const values = [...this.map.values()];
    this.map.clear();
    const errors: unknown[] = [];
    for (const value of values) {
      try {
        value.dispose();
      } catch (err) {
        errors.push(err);
      }
    }
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) throw new AggregateError(errors, 'several disposables failed');
  }
}
