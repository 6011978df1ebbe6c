// The time source every timing rule takes by injection (quiet time, debounce, verify timeouts,
// re-nudge, loop guard, coalescing, the parse queue), so those rules are tested with a fake clock
// instead of real sleeps. Product code outside src/util/ asks a Clock, not Date.now() or setTimeout.
import { type Disposable, toDisposable } from './lifecycle.js';

export interface Clock {
  /** Milliseconds on a monotonic-enough scale; only differences matter. */
  now(): number;
  /** Runs `fn` once after `ms`; disposing the result cancels it. */
  setTimer(fn: () => void, ms: number): Disposable;
}

/**
 * The real clock. Its timers are unref'd: a pending debounce or retry must never be what keeps a
 * process alive (the server lives on its sockets, a CLI command on its one request).
 */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(fn, ms) {
    const handle = setTimeout(fn, Math.max(0, ms));
    handle.unref?.();
    return toDisposable(() => clearTimeout(handle));
  },
};

/**
 * Resolves after `ms` on `clock`: for the few product loops that must wait between tries. On the
 * system clock the wait holds the event loop, unlike setTimer's timers: a command retrying its
 * connect has nothing else alive between tries, and would otherwise exit in the middle of its loop.
 */
export function sleep(ms: number, clock: Clock = systemClock): Promise<void> {
  if (clock !== systemClock) return new Promise((resolve) => clock.setTimer(resolve, ms));
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}
