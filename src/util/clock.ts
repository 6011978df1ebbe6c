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
 * The real clock with timers that hold the event loop, for a wait that stands for work still owed:
 * a parse turn a flush() awaits (RowScreen, ParseScheduler), a retry a command awaits (sleep). A
 * process must not exit in the middle of it, as it may in a debounce on systemClock.
 */
export const holdingClock: Clock = {
  now: () => Date.now(),
  setTimer(fn, ms) {
    const handle = setTimeout(fn, Math.max(0, ms));
    return toDisposable(() => clearTimeout(handle));
  },
};

/**
 * Resolves after `ms` on `clock`: for the few product loops that must wait between tries. A wait on
 * the system clock holds the event loop (a command retrying its connect has nothing else alive
 * between tries, and would otherwise exit in the middle of its loop); a fake clock's is its own.
 */
export function sleep(ms: number, clock: Clock = holdingClock): Promise<void> {
  const on = clock === systemClock ? holdingClock : clock;
  return new Promise((resolve) => on.setTimer(resolve, ms));
}
