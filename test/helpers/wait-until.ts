// Waits on a condition with a deadline (STYLE §10): never a bare sleep. The condition is polled
// every `intervalMs`; the first truthy value it returns is the result.

export interface WaitOptions {
  /** Give up after this long (default 5 s). */
  timeoutMs?: number;
  /** Poll this often (default 10 ms). */
  intervalMs?: number;
  /** Named in the timeout error, so a failing test says what it was waiting for. */
  what?: string;
}

/** What a `cond && value` condition yields once it holds. */
export type Truthy<T> = Exclude<T, false | 0 | '' | null | undefined>;

export async function waitUntil<T>(condition: () => T | Promise<T>, opts: WaitOptions = {}): Promise<Truthy<T>> {
  const timeoutMs = opts.timeoutMs ?? 5000;
  const intervalMs = opts.intervalMs ?? 10;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await condition();
      if (value) return value as Truthy<T>;
      lastError = undefined;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() >= deadline) {
      const why = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`waitUntil: ${opts.what ?? 'condition'} not met within ${timeoutMs} ms${why}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
